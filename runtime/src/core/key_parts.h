/* Multi-attribute index keys in the LMDB key layout (internal; see
 * keycodec.h for the single-attribute layout they extend).
 *
 * The partition digest of several partition-key attributes is XXH3-128 of
 * each value's type, length and bytes in declared order (one attribute:
 * exactly ddbi_key_digest of it), so the partition is the hash of all of
 * them together.
 *
 * The sort part of several sort-key attributes is the concatenation of
 * each value's self-delimiting, order-preserving form, in declared order:
 * a number its decimal key (number.c, which ends itself), a string or
 * binary its bytes with 0x00 written 0x00 0xFF, then the terminator 0x00
 * 0x01.  So byte order is the order of the tuple: the first attribute,
 * then the next, each by its own type, a shorter string before the longer
 * ones it begins ("a" < "a\0" < "ab"), and no boundary between two
 * attributes can be mistaken for bytes of one.  A string's prefix p
 * (begins_with) is its escaped bytes without the terminator.  The whole
 * sort part is stored as one binary sort key would be (a long one keeps
 * a prefix and a digest, keycodec.h). */
#ifndef DDB_KEY_PARTS_H
#define DDB_KEY_PARTS_H

#include <ddb/ddb.h>

#include "core/key_schema.h"
#include "core/keycodec.h"

/* Room for one attribute's sort form: a string or binary of 1,024 bytes
 * escaped (each byte may double) plus the terminator. */
#define DDB_KEY_PART_MAX (2 * 1024 + 2)
/* Room for the sort forms of DDB_MAX_KEY_ATTRS attributes. */
#define DDB_KEY_PARTS_MAX (DDB_MAX_KEY_ATTRS * DDB_KEY_PART_MAX)

/* The digest of n partition-key values together (n >= 1). */
void ddbi_key_parts_digest(const ddb_value *const *pk, size_t n, uint8_t out[DDB_DIGEST_LEN]);
/* The sort form of one value appended at out (room DDB_KEY_PART_MAX);
 * terminated = false leaves a string's or binary's terminator off (a
 * begins_with prefix).  Returns its length; 0 for a value of no key type
 * or longer than a sort-key attribute may be. */
size_t ddbi_key_part_encode(const ddb_value *v, bool terminated, uint8_t *out);
/* The sort forms of n values, one after the other, into out (room
 * DDB_KEY_PARTS_MAX); returns the length, 0 when one does not encode. */
size_t ddbi_key_parts_encode(const ddb_value *const *sk, size_t n, uint8_t *out);
/* The index key of a multi-attribute key: the digest of the partition
 * values, then the sort part of the sort values (n_sk may be 0) stored as
 * a binary sort key.  The sort forms are built in scratch (room
 * DDB_KEY_PARTS_MAX).  Returns false when a value does not encode. */
bool ddbi_key_parts_make(ddb_key *k, const ddb_value *const *pk, size_t n_pk, const ddb_value *const *sk,
                         size_t n_sk, uint8_t *scratch);

#endif
