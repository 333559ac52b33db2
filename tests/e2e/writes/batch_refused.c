/* batch_refused.c — compiled (never linked) by the e2e_typed_writes_batch_refused_*
 * tests: without a -D it must compile; each REFUSE_* must not, because the
 * generated module has no batch form the runtime would refuse (Owner has a
 * unique field, Device a version, Visit a created-at stamp) and the table's
 * mixed batch takes only its entity's struct. */
#include "typed_writes_ddb.h"

int batch_use(ddb *db, fleet_batch *b, struct owner *o, struct device *d, struct visit *v, struct memo *m);
int batch_use(ddb *db, fleet_batch *b, struct owner *o, struct device *d, struct visit *v, struct memo *m)
{
#if defined(REFUSE_OWNER_BATCH_DELETE)
    return owner_batch_delete(db, o, 1, NULL, NULL, NULL);
#elif defined(REFUSE_BATCH_PUT_DEVICE)
    return fleet_batch_put_device(b, d, NULL);
#elif defined(REFUSE_DEVICE_BATCH_PUT)
    return device_batch_put(db, d, 1, NULL, NULL, NULL);
#elif defined(REFUSE_OWNER_BATCH_PUT)
    return owner_batch_put(db, o, 1, NULL, NULL, NULL);
#elif defined(REFUSE_VISIT_BATCH_PUT)
    return visit_batch_put(db, v, 1, NULL, NULL, NULL);
#elif defined(REFUSE_BATCH_PUT_VISIT)
    return fleet_batch_put_visit(b, v, NULL);
#elif defined(REFUSE_WRONG_STRUCT)
    return fleet_batch_delete_memo(b, d, NULL);
#else
    (void)o;
    return device_batch_delete(db, d, 1, NULL, NULL, NULL) + fleet_batch_put_memo(b, m, NULL) +
           fleet_batch_delete_device(b, d, NULL) + memo_batch_put(db, m, 1, NULL, NULL, NULL) +
           visit_batch_delete(db, v, 1, NULL, NULL, NULL) + fleet_batch_delete_visit(b, v, NULL);
#endif
}
