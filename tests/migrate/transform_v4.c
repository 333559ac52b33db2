/* The transform of the third change (version 3 -> 4): the stored number
 * "score" becomes text "123.5".  Linked into migrate_v4 (the library call)
 * and into the module `ddb migrate --module` loads.  With
 * MIGRATE_KILL_AFTER=K in the environment the process SIGKILLs itself at
 * the K-th item (the test's interruption: mid-page, some transactions
 * committed, the page's checkpoint not yet written). */
#include "v4_ddb.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

int customer_transform(void *ctx, const ddb_item *stored, const void *old_obj, void *new_obj, ddb_arena *a,
                       ddb_error *err);

int customer_transform(void *ctx, const ddb_item *stored, const void *old_obj, void *new_obj, ddb_arena *a,
                       ddb_error *err)
{
    static long calls, kill_after = -1;
    (void)ctx;
    (void)old_obj;
    (void)a;
    struct customer *c = new_obj;
    double v;
    const ddb_value *s = ddb_item_get(stored, "score");
    if (!s || ddb_value_to_double(s, &v)) {
        if (err)
            snprintf(err->message, sizeof err->message, "customer %lld: no numeric score", (long long)c->id);
        return DDB_EVALIDATION;
    }
    snprintf(c->score, sizeof c->score, "%.1f", v);
    if (kill_after < 0)
        kill_after = getenv("MIGRATE_KILL_AFTER") ? atol(getenv("MIGRATE_KILL_AFTER")) : 0;
    if (kill_after > 0 && ++calls == kill_after) {
        fprintf(stderr, "transform: SIGKILL at item %ld\n", calls);
        fflush(stderr);
        raise(SIGKILL);
    }
    return DDB_OK;
}
