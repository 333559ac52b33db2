/* LD_PRELOAD shim for test_check_child: LMDB's mdb_env_info aborts, as
 * LMDB's own assertions do on some damaged pages (ddb_open calls it). */
#include <lmdb.h>
#include <stdlib.h>

int mdb_env_info(MDB_env *env, MDB_envinfo *info)
{
    (void)env;
    (void)info;
    abort();
}
