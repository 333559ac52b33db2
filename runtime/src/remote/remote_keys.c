/* remote/: the handle's cache of key schemas (Query needs the key
 * attribute names of a table or index), filled from DescribeTable
 * (remote_describe.c) and dropped when a table changes. */
#include "remote/remote_wire.h"

#include "core/error.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

void ddbi_remote_keys_free(rkeys *k)
{
    while (k) {
        rkeys *n = k->next;
        free(k->table);
        free(k->index);
        free(k->pk);
        free(k->sk);
        free(k);
        k = n;
    }
}

static rkeys *find_keys(rkeys *k, const char *table, const char *index)
{
    for (; k; k = k->next)
        if (strcmp(k->table, table) == 0 && (index ? k->index && strcmp(k->index, index) == 0 : !k->index))
            return k;
    return NULL;
}

static bool table_cached(rkeys *k, const char *table)
{
    return find_keys(k, table, NULL) != NULL;
}

static rkeys *keys_new(const char *table, const char *index, const ddb_key_schema *ks)
{
    rkeys *k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    k->table = dup_or_null(table);
    k->index = dup_or_null(index);
    k->pk = dup_or_null(ks->pk);
    k->sk = dup_or_null(ks->sk);
    if (!k->table || (index && !k->index) || !k->pk || (ks->sk && !k->sk)) {
        ddbi_remote_keys_free(k);
        return NULL;
    }
    return k;
}

/* Describe table and (re)place its entries in the cache. */
static int load_keys(ddb_remote *r, const char *table, ddb_error *err)
{
    ddb_arena *a = ddb_arena_new();
    if (!a)
        return ddbi_fail_oom(err, __func__);
    ddb_table_desc *d;
    int rc = ddbi_remote_describe(r, table, a, &d, false, err);
    rkeys *fresh = NULL;
    if (!rc) {
        fresh = keys_new(table, NULL, &d->def.key);
        for (size_t i = 0; fresh && i < d->def.n_indexes; i++) {
            rkeys *k = keys_new(table, d->def.indexes[i].name, &d->def.indexes[i].key);
            if (!k) {
                ddbi_remote_keys_free(fresh);
                fresh = NULL;
                break;
            }
            k->next = fresh;
            fresh = k;
        }
        if (!fresh)
            rc = ddbi_fail_oom(err, __func__);
    }
    ddb_arena_free(a);
    if (rc)
        return rc;
    ddbi_remote_forget_table(r, table);
    pthread_mutex_lock(&r->mu);
    rkeys *last = fresh;
    while (last->next)
        last = last->next;
    last->next = r->keys;
    r->keys = fresh;
    pthread_mutex_unlock(&r->mu);
    return DDB_OK;
}

void ddbi_remote_forget_table(ddb_remote *r, const char *table)
{
    pthread_mutex_lock(&r->mu);
    for (rkeys **pp = &r->keys; *pp;) {
        rkeys *k = *pp;
        if (strcmp(k->table, table) == 0) {
            *pp = k->next;
            k->next = NULL;
            ddbi_remote_keys_free(k);
        } else {
            pp = &k->next;
        }
    }
    pthread_mutex_unlock(&r->mu);
}

int ddbi_remote_key_names(ddb_remote *r, const char *table, const char *index, ddb_arena *a, const char **pk,
                          const char **sk, ddb_error *err)
{
    for (int pass = 0; pass < 2; pass++) {
        pthread_mutex_lock(&r->mu);
        rkeys *k = find_keys(r->keys, table, index);
        bool known_table = table_cached(r->keys, table), found = k != NULL, ok = true;
        if (k) {
            *pk = ddb_arena_strdup(a, k->pk);
            *sk = ddb_arena_strdup(a, k->sk);
            ok = *pk && (!k->sk || *sk);
        }
        pthread_mutex_unlock(&r->mu);
        if (found)
            return ok ? DDB_OK : ddbi_fail_oom(err, __func__);
        if (pass == 1 || (known_table && !index))
            break;
        /* unknown table, or an index created since it was cached */
        int rc = load_keys(r, table, err);
        if (rc)
            return rc;
    }
    return ddbi_fail(err, DDB_EVALIDATION, "The table does not have the specified index: %s (table %s)",
                    index ? index : "", table);
}
