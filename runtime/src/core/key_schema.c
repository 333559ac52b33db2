/* core/: the attributes of a key schema in declared order (key_schema.h).
 * Calls nothing. */
#include "core/key_schema.h"

size_t ddbi_key_schema_attrs(const ddb_key_schema *k, const char **names, ddb_type *types, size_t *n_pk)
{
    size_t n = 0;
    names[n] = k->pk;
    types[n++] = k->pk_type;
    for (size_t i = 0; k->pk_more && i < k->n_pk_more && i < DDB_MAX_KEY_ATTRS - 1; i++) {
        names[n] = k->pk_more[i].name;
        types[n++] = k->pk_more[i].type;
    }
    if (n_pk)
        *n_pk = n;
    if (!k->sk)
        return n;
    names[n] = k->sk;
    types[n++] = k->sk_type;
    for (size_t i = 0; k->sk_more && i < k->n_sk_more && i < DDB_MAX_KEY_ATTRS - 1; i++) {
        names[n] = k->sk_more[i].name;
        types[n++] = k->sk_more[i].type;
    }
    return n;
}
