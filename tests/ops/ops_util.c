/* Helpers of the engine-operation tests (tests/ops), declared in ops_util.h:
 * the fixture's tables, items written as DynamoDB JSON, prepared expressions,
 * exact comparisons. Calls the public API (<ddb/ddb.h>, <ddb/json.h>) only. */
#include "ops_util.h"

#include <ddb/json.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void create_tables(ddb *db)
{
    ddb_error err = {0};
    if (ddb_create_table(db, &(ddb_table_def){.name = T_OPS, .key = {.pk = "pk", .pk_type = DDB_TS, .sk = "sk", .sk_type = DDB_TS}}, &err) ||
        ddb_create_table(db, &(ddb_table_def){.name = T_HASH, .key = {.pk = "pk", .pk_type = DDB_TS, .sk = NULL, .sk_type = DDB_TNONE}}, &err))
        fail_msg("create table: %s", err.message);
    static const char *const inc[] = {"inc"};
    ddb_index_def ix[] = {
        {.name = "Gsi1", .key = {.pk = "gpk", .pk_type = DDB_TS, .sk = "gsk", .sk_type = DDB_TN}},
        {.name = "Gsi2", .key = {.pk = "kpk", .pk_type = DDB_TS, .sk = NULL, .sk_type = DDB_TNONE}, .projection = DDB_PROJ_KEYS_ONLY},
        {.name = "Lsi1",
         .local = true,
         .key = {.pk = "pk", .pk_type = DDB_TS, .sk = "lsk", .sk_type = DDB_TS},
         .projection = DDB_PROJ_INCLUDE,
         .include = inc,
         .n_include = 1},
    };
    ddb_table_def def = {.name = T_IDX, .key = {.pk = "pk", .pk_type = DDB_TS, .sk = "sk", .sk_type = DDB_TS}, .indexes = ix, .n_indexes = 3};
    if (ddb_create_table(db, &def, &err))
        fail_msg("create table %s: %s", T_IDX, err.message);
}

int ops_setup(void **state)
{
    static unsigned seq;
    ops_fx *fx = calloc(1, sizeof *fx);
    char name[32];
    snprintf(name, sizeof name, "ops%u", seq++);
    fx->db = tu_open(name, NULL, fx->dir, sizeof fx->dir);
    fx->a = ddb_arena_new();
    create_tables(fx->db);
    *state = fx;
    return 0;
}

int ops_teardown(void **state)
{
    ops_fx *fx = *state;
    for (size_t i = 0; i < fx->nexprs; i++)
        ddb_expr_free(fx->exprs[i]);
    ddb_close(fx->db);
    ddb_arena_free(fx->a);
    tu_rmdir(fx->dir);
    free(fx);
    return 0;
}

static char *requote(ops_fx *fx, const char *json)
{
    size_t n = strlen(json);
    char *s = ddb_arena_alloc(fx->a, n + 1);
    for (size_t i = 0; i <= n; i++)
        s[i] = json[i] == '\'' ? '"' : json[i];
    return s;
}

ddb_item *J(ops_fx *fx, const char *json)
{
    char *s = requote(fx, json);
    ddb_item *it = NULL;
    ddb_error err = {0};
    if (ddb_json_parse_item(s, strlen(s), fx->a, &it, &err))
        fail_msg("bad test item %s: %s", json, err.message);
    return it;
}

ddb_item *K(ops_fx *fx, const char *pk, const char *sk)
{
    ddb_item *k = ddb_item_new(fx->a);
    ddb_item_set_s(k, "pk", pk);
    ddb_item_set_s(k, "sk", sk);
    return k;
}

ddb_item *sized(ops_fx *fx, const char *json, size_t size)
{
    ddb_item *it = J(fx, json);
    size_t base = ddb_item_size(it) + 3; /* "pad" */
    if (size < base)
        fail_msg("sized: %s is already %zu bytes", json, base);
    char *pad = ddb_arena_alloc(fx->a, size - base + 1);
    memset(pad, 'p', size - base);
    pad[size - base] = 0;
    ddb_item_set_s(it, "pad", pad);
    if (ddb_item_size(it) != size)
        fail_msg("sized: %zu bytes, not %zu", ddb_item_size(it), size);
    return it;
}

const ddb_expr *XN(ops_fx *fx, ddb_expr_kind kind, const char *text, const char *names_json)
{
    ddb_expr *e = NULL;
    ddb_error err = {0};
    const ddb_item *names = names_json ? J(fx, names_json) : NULL;
    if (ddb_expr_prepare(kind, text, names, &e, &err))
        fail_msg("prepare %s \"%s\": %s", ddb_expr_kind_name(kind), text, err.message);
    if (fx->nexprs == sizeof fx->exprs / sizeof *fx->exprs)
        fail_msg("too many expressions in one test");
    fx->exprs[fx->nexprs++] = e;
    return e;
}

const ddb_expr *X(ops_fx *fx, ddb_expr_kind kind, const char *text)
{
    return XN(fx, kind, text, NULL);
}

static ddb_write_opts wopts(ops_fx *fx, const char *cond, const char *values, ddb_return_values rv)
{
    return (ddb_write_opts){rv, DDB_CAPACITY_INDEXES, cond ? CND(fx, cond) : NULL, values ? J(fx, values) : NULL, DDB_RETURN_NONE};
}

int put(ops_fx *fx, const char *table, const ddb_item *item, const char *cond, const char *values, ddb_return_values rv,
        ddb_write_result *res, ddb_error *err)
{
    ddb_write_opts o = wopts(fx, cond, values, rv);
    return ddb_put_item(fx->db, table, item, &o, fx->a, res, err);
}

int update(ops_fx *fx, const char *table, const ddb_item *key, const char *update, const char *cond, const char *values,
           ddb_return_values rv, ddb_write_result *res, ddb_error *err)
{
    ddb_write_opts o = wopts(fx, cond, values, rv);
    return ddb_update_item(fx->db, table, key, UPD(fx, update), &o, fx->a, res, err);
}

int del(ops_fx *fx, const char *table, const ddb_item *key, const char *cond, const char *values, ddb_return_values rv,
        ddb_write_result *res, ddb_error *err)
{
    ddb_write_opts o = wopts(fx, cond, values, rv);
    return ddb_delete_item(fx->db, table, key, &o, fx->a, res, err);
}

const char *dump(ops_fx *fx, const ddb_item *it)
{
    if (!it)
        return "(none)";
    char *s = NULL;
    ddb_error err = {0};
    if (ddb_json_dump_item(it, &s, &err))
        fail_msg("dump: %s", err.message);
    size_t n = strlen(s);
    char *c = ddb_arena_alloc(fx->a, n + 1);
    memcpy(c, s, n + 1);
    free(s);
    return c;
}

void expect_item_at(ops_fx *fx, const ddb_item *got, const char *want_json, const char *file, int line)
{
    if (!want_json) {
        if (got)
            fail_msg("%s:%d: expected no item, got %s", file, line, dump(fx, got));
        return;
    }
    ddb_item *want = J(fx, want_json);
    if (!got || !ddb_value_equal(ddb_item_map(got), ddb_item_map(want)))
        fail_msg("%s:%d:\n  got  %s\n  want %s", file, line, dump(fx, got), dump(fx, want));
}

ddb_item *get(ops_fx *fx, const char *table, const ddb_item *key)
{
    ddb_item *it = NULL;
    ddb_error err = {0};
    ddb_get_opts o = {.consistent = true};
    int rc = ddb_get_item(fx->db, table, key, &o, fx->a, &it, NULL, &err);
    if (rc && rc != DDB_ENOTFOUND)
        fail_msg("get %s: %s", dump(fx, key), err.message);
    return it;
}

void expect_units_at(double got, double want, const char *what, const char *file, int line)
{
    if (got != want)
        fail_msg("%s:%d: %s is %g, expected %g", file, line, what, got, want);
}

static const ddb_index_capacity *idx_cap(const ddb_capacity *c, const char *index)
{
    for (size_t i = 0; i < c->n_indexes; i++)
        if (strcmp(c->indexes[i].name, index) == 0)
            return &c->indexes[i];
    return NULL;
}

double idx_write(const ddb_capacity *c, const char *index)
{
    const ddb_index_capacity *x = idx_cap(c, index);
    return x ? x->write : 0;
}

double idx_read(const ddb_capacity *c, const char *index)
{
    const ddb_index_capacity *x = idx_cap(c, index);
    return x ? x->read : 0;
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Every item of a scan of the table or of one index, dumped and sorted. */
static void scan_dump(ops_fx *fx, const char *table, const char *index, char **buf, size_t *len, size_t *cap)
{
    const char *lines[4096];
    size_t n = 0;
    ddb_scan_params s = {.table = table, .index = index, .consistent = index == NULL};
    ddb_page pg;
    ddb_error err = {0};
    do {
        if (ddb_scan(fx->db, &s, fx->a, &pg, &err))
            fail_msg("scan %s %s: %s", table, index ? index : "", err.message);
        for (size_t i = 0; i < pg.count; i++) {
            if (n == sizeof lines / sizeof *lines)
                fail_msg("scan_dump: too many items");
            lines[n++] = dump(fx, pg.items[i]);
        }
        s.start_key = pg.last_key;
    } while (pg.last_key);
    qsort(lines, n, sizeof *lines, cmp_str);
    for (size_t i = 0; i <= n; i++) {
        const char *l = i == 0 ? (index ? index : table) : lines[i - 1];
        size_t ll = strlen(l);
        while (*len + ll + 3 > *cap) {
            *cap = *cap ? *cap * 2 : 4096;
            *buf = realloc(*buf, *cap);
        }
        memcpy(*buf + *len, l, ll);
        *len += ll;
        (*buf)[(*len)++] = i == 0 ? ':' : '\n';
        (*buf)[*len] = 0;
    }
}

const char *table_state(ops_fx *fx, const char *table)
{
    ddb_check_report r;
    ddb_error err = {0};
    if (ddb_check_table(fx->db, table, &r, &err))
        fail_msg("ddb_check_table %s: %s (%s)", table, err.message, r.first_problem);
    ddb_table_desc *d;
    if (ddb_describe_table(fx->db, table, fx->a, &d, &err))
        fail_msg("describe %s: %s", table, err.message);
    char *buf = NULL;
    size_t len = 0, cap = 0;
    scan_dump(fx, table, NULL, &buf, &len, &cap);
    for (size_t i = 0; i < d->def.n_indexes; i++)
        scan_dump(fx, table, d->def.indexes[i].name, &buf, &len, &cap);
    char *out = ddb_arena_alloc(fx->a, len + 1);
    memcpy(out, buf ? buf : "", len + 1);
    free(buf);
    return out;
}

void expect_clean_at(ops_fx *fx, const char *table, uint64_t items, uint64_t entries, const char *file, int line)
{
    ddb_check_report r;
    ddb_error err = {0};
    int rc = ddb_check_table(fx->db, table, &r, &err);
    if (rc)
        fail_msg("%s:%d: ddb_check_table %s: %s (%s)", file, line, table, err.message, r.first_problem);
    if (r.items != items || r.index_entries != entries)
        fail_msg("%s:%d: table %s holds %" PRIu64 " items and %" PRIu64 " index entries, expected %" PRIu64
                 " and %" PRIu64,
                 file, line, table, r.items, r.index_entries, items, entries);
}

const char *query_index(ops_fx *fx, const char *table, const char *index, const char *pk_value)
{
    ddb_query_params q = {.table = table, .index = index, .pk = ddb_v_str(fx->a, pk_value)};
    ddb_page pg;
    ddb_error err = {0};
    char *buf = NULL;
    size_t len = 0;
    do {
        if (ddb_query(fx->db, &q, fx->a, &pg, &err))
            fail_msg("query %s %s: %s", table, index ? index : "", err.message);
        for (size_t i = 0; i < pg.count; i++) {
            const char *l = dump(fx, pg.items[i]);
            size_t ll = strlen(l);
            buf = realloc(buf, len + ll + 2);
            memcpy(buf + len, l, ll);
            len += ll;
            buf[len++] = '\n';
            buf[len] = 0;
        }
        q.start_key = pg.last_key;
    } while (pg.last_key);
    char *out = ddb_arena_alloc(fx->a, len + 1);
    memcpy(out, buf ? buf : "", len + 1);
    free(buf);
    return out;
}

double table_write_units(ops_fx *fx, const char *table)
{
    ddb_partition_stats *p;
    size_t n;
    ddb_error err = {0};
    if (ddb_table_stats(fx->db, table, fx->a, &p, &n, &err))
        fail_msg("table stats %s: %s", table, err.message);
    double w = 0;
    for (size_t i = 0; i < n; i++)
        w += p[i].write_units;
    return w;
}
