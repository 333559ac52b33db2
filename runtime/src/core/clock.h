/* core/: the system clock (internal). */
#ifndef DDB_CORE_CLOCK_H
#define DDB_CORE_CLOCK_H

#include <stdint.h>

/* CLOCK_REALTIME in milliseconds since the epoch. */
int64_t ddbi_clock_system_ms(void);

#endif
