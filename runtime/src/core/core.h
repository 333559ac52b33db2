/* core/: values, numbers, the item and key codecs, arenas, errors and the
 * clock (room header: what the core room offers every other room;
 * internal).  The room calls only the C library and xxhash; every room
 * may call it.  Its offer is the headers included here, each on one
 * subject; a file may include just the one it needs. */
#ifndef DDB_CORE_CORE_H
#define DDB_CORE_CORE_H

#include "core/backend.h"  /* the contract of a backend: types only */
#include "core/clock.h"    /* the system clock */
#include "core/codec.h"    /* items and values as stored; growable buffers */
#include "core/error.h"    /* filling a ddb_error; the out-of-memory failure */
#include "core/keycodec.h" /* LMDB key layout: digests, sort parts */
#include "core/number.h"   /* DynamoDB numbers */
#include "core/value.h"    /* value helpers */

#endif
