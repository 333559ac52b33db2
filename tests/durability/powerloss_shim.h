/* The power-loss shim's control functions (powerloss_shim.c), as a test
 * finds them with dlsym(RTLD_DEFAULT, ...) once ctest has LD_PRELOADed the
 * shim. */
#ifndef DDBT_POWERLOSS_SHIM_H
#define DDBT_POWERLOSS_SHIM_H

#include <stdbool.h>
#include <stdint.h>

/* ddbt_shim_start(dir, shadow, fail_sync, file_max, atomic) */
typedef void (*ddbt_shim_start_fn)(const char *, const char *, unsigned long, uint64_t, bool);
/* ddbt_shim_fail_sync_in(n): the n-th sync from now fails with EIO */
typedef void (*ddbt_shim_fail_sync_in_fn)(unsigned long);
/* ddbt_shim_recover(shadow_file): finish or drop an interrupted atomic sync */
typedef int (*ddbt_shim_recover_fn)(const char *);

#endif
