/* The transform of the third change (version 3 -> 4), written against the
 * old struct ddbgen generates from the deployed model (v4_old.h, struct
 * customer_old): the number score becomes text "123.5".  Linked into
 * migrate_v4 (app_migrate_from_old) and into the module `ddb migrate
 * --module` loads (which calls it through the generated
 * customer_transform).  With MIGRATE_KILL_AFTER=K in the environment the
 * process SIGKILLs itself at the K-th item (the test's interruption:
 * mid-page, some transactions committed, the page's checkpoint not yet
 * written). */
#include "v4_old.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int customer_from_old(void *ctx, const struct customer_old *old, struct customer *c)
{
    static long calls, kill_after = -1;
    (void)ctx;
    /* the new struct arrives with what the new schema reads: the key and the unchanged fields */
    if (c->id != old->id || strcmp(c->home.city, old->home.city) != 0)
        return DDB_EINVAL;
    snprintf(c->score, sizeof c->score, "%.1f", old->score);
    if (kill_after < 0)
        kill_after = getenv("MIGRATE_KILL_AFTER") ? atol(getenv("MIGRATE_KILL_AFTER")) : 0;
    if (kill_after > 0 && ++calls == kill_after) {
        fprintf(stderr, "transform: SIGKILL at item %ld\n", calls);
        fflush(stderr);
        raise(SIGKILL);
    }
    return DDB_OK;
}
