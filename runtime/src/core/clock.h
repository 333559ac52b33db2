/* core/: the system clock (internal). */
#ifndef DDB_CORE_CLOCK_H
#define DDB_CORE_CLOCK_H

#include <stdint.h>

/* CLOCK_REALTIME in milliseconds since the epoch. */
int64_t ddbi_clock_system_ms(void);
/* The same from the coarse clock (CLOCK_REALTIME_COARSE: a tick, a few
 * milliseconds, behind; a fraction of the precise clock's cost).  For
 * what counts whole seconds on every read: TTL (seconds) and the
 * per-second timelines. */
int64_t ddbi_clock_coarse_ms(void);

#endif
