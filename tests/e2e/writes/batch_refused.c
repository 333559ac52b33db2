/* batch_refused.c — compiled (never linked) by the e2e_typed_writes_batch_refused_*
 * tests: without a -D it must compile; each REFUSE_* must not, because the
 * generated module has no batch form the runtime would refuse (Owner has a
 * unique field, Device a version) and the table's mixed batch takes only
 * its entity's struct. */
#include "typed_writes_ddb.h"

int batch_use(ddb *db, fleet_batch *b, struct owner *o, struct device *d, struct memo *m);
int batch_use(ddb *db, fleet_batch *b, struct owner *o, struct device *d, struct memo *m)
{
#if defined(REFUSE_OWNER_BATCH_DELETE)
    return owner_batch_delete(db, o, 1, NULL, NULL, NULL);
#elif defined(REFUSE_BATCH_PUT_DEVICE)
    return fleet_batch_put_device(b, d, NULL);
#elif defined(REFUSE_WRONG_STRUCT)
    return fleet_batch_delete_memo(b, d, NULL);
#else
    (void)o;
    return device_batch_delete(db, d, 1, NULL, NULL, NULL) + fleet_batch_put_memo(b, m, NULL) +
           fleet_batch_delete_device(b, d, NULL);
#endif
}
