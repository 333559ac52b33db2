/* libFuzzer target: PartiQL's parser and lowering (tools/ddb/serve/
 * partiql_parse.c, partiql_lower.c) on any bytes as a statement, with two
 * parameters, lowered for both a table and an index, as ExecuteStatement
 * and as a transaction's statement.  Whatever the input, the result is a
 * plan or a DDB_EVALIDATION / DDB_ELIMIT with a message, never a crash
 * (ASan + UBSan).  Calls the parser sources and libddb's public values. */
#include "partiql.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const pq_keys keys[] = {{.table = {.pk = "pk", .pk_type = DDB_TS, .sk = "sk", .sk_type = DDB_TN}, .target = {.pk = "pk", .pk_type = DDB_TS, .sk = "sk", .sk_type = DDB_TN}},
                                   {.table = {.pk = "pk", .pk_type = DDB_TS, .sk = NULL, .sk_type = DDB_TNONE}, .target = {.pk = "g", .pk_type = DDB_TN, .sk = "h", .sk_type = DDB_TS}}};
    ddb_arena *a = ddb_arena_new();
    if (!a)
        return 0;
    const ddb_value *params[] = {ddb_v_str(a, "p"), ddb_v_i64(a, 7)};
    for (int k = 0; k < 2; k++)
        for (int single = 0; single < 2; single++) {
            ddb_error err;
            pq_stmt *s = NULL;
            pq_plan p;
            int rc = pq_parse((const char *)data, size, params, 2, a, &s, &err);
            if (!rc)
                rc = pq_lower(s, &keys[k], single, a, &p, &err);
            if (rc != DDB_OK && rc != DDB_EVALIDATION && rc != DDB_ELIMIT)
                abort();
            if (rc && !err.message[0])
                abort();
        }
    ddb_arena_free(a);
    return 0;
}
