/* Item commands: get, put, update, delete, query, scan. */
#include "cli.h"

#include <ddb/json.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The table (pos[0]) described, the item's key (--pk/--sk or --key), and
 * --values/--names, in a (a NULL: out of memory); 1 after printing the error. */
static int keyed(cli *c, ddb_arena *a, ddb_table_desc **d, ddb_item **key, ddb_item **values, ddb_item **names)
{
    int rc = !a ? cli_failf(c, "out of memory") : cli_describe(c, c->o.pos[0], a, d);
    if (!rc)
        rc = cli_key_item(c, a, *d, key);
    if (!rc)
        rc = cli_values(c, a, values, names);
    return rc;
}

/* Print item it of table d as DynamoDB JSON (or as -o asks). */
static int print_item(cli *c, const ddb_table_desc *d, const ddb_item *it)
{
    item_printer p;
    printer_init(&p, c, stdout, d, FMT_JSON);
    int rc = printer_item(&p, it);
    return rc ? rc : printer_end(&p);
}

int cmd_get(cli *c)
{
    if (cli_open(c))
        return 1;
    ddb_arena *a = ddb_arena_new();
    ddb_table_desc *d;
    ddb_item *key = NULL, *values = NULL, *names = NULL, *it = NULL;
    ddb_expr *proj = NULL;
    int rc = keyed(c, a, &d, &key, &values, &names);
    if (!rc)
        rc = cli_expr(c, "projection", DDB_EXPR_PROJECTION, names, &proj);
    if (!rc) {
        ddb_get_opts o = {.consistent = opt_count(c, "consistent") > 0, .projection = proj};
        ddb_error e = {0};
        int g = ddb_get_item(c->db, d->def.name, key, &o, a, &it, NULL, &e);
        if (g == DDB_ENOTFOUND)
            rc = cli_failf(c, "no item with that key in table %s", d->def.name);
        else if (g)
            rc = cli_fail(c, &e, NULL);
    }
    if (!rc)
        rc = print_item(c, d, it);
    ddb_expr_free(proj);
    ddb_arena_free(a);
    return rc;
}

static int put_one(cli *c, const char *table, const char *text, size_t len, const ddb_write_opts *o, ddb_arena *a,
                   const char *where)
{
    ddb_item *it;
    ddb_error e = {0};
    const char *nul = memchr(text, '\0', len);
    if (nul)
        return cli_failf(c, "%s: a NUL byte at column %zu: not a line of JSON", where, (size_t)(nul - text) + 1);
    if (ddb_json_parse_item(text, len, a, &it, &e))
        return cli_failf(c, "%s: %s", where, e.message);
    if (ddb_put_item(c->db, table, it, o, NULL, NULL, &e))
        return cli_fail(c, &e, "%s", where);
    return 0;
}

int cmd_put(cli *c)
{
    if (cli_open(c))
        return 1;
    const char *table = c->o.pos[0];
    ddb_arena *a = ddb_arena_new();
    ddb_item *values = NULL, *names = NULL;
    ddb_expr *cond = NULL;
    int rc = a ? cli_values(c, a, &values, &names) : cli_failf(c, "out of memory");
    if (!rc)
        rc = cli_expr(c, "condition", DDB_EXPR_CONDITION, names, &cond);
    ddb_write_opts o = {.condition = cond, .values = values};
    if (!rc && c->o.npos == 2 && strcmp(c->o.pos[1], "-") != 0) {
        rc = put_one(c, table, c->o.pos[1], strlen(c->o.pos[1]), &o, a, "the item");
    } else if (!rc) {
        /* each line's item in an arena of its own: a holds --values and --names for every line */
        ddb_arena *la = ddb_arena_new();
        line_reader lr = {0};
        char *line;
        size_t len;
        int got = 0;
        if (!la)
            rc = cli_failf(c, "out of memory");
        else if (lr_open(&lr, "-"))
            rc = cli_failf(c, "%s", lr.error);
        while (!rc && (got = lr_next(&lr, &line, &len)) == 1) {
            if (len == strspn(line, " \t")) /* a blank line holds no item */
                continue;
            char where[64];
            snprintf(where, sizeof where, "line %lu", lr.no);
            rc = put_one(c, table, line, len, &o, la, where);
            ddb_arena_reset(la);
        }
        if (!rc && got < 0)
            rc = cli_failf(c, "%s", lr.error);
        lr_close(&lr);
        ddb_arena_free(la);
    }
    ddb_expr_free(cond);
    ddb_arena_free(a);
    return rc;
}

int cmd_delete(cli *c)
{
    if (cli_open(c))
        return 1;
    ddb_arena *a = ddb_arena_new();
    ddb_table_desc *d;
    ddb_item *key = NULL, *values = NULL, *names = NULL;
    ddb_expr *cond = NULL;
    int rc = keyed(c, a, &d, &key, &values, &names);
    if (!rc)
        rc = cli_expr(c, "condition", DDB_EXPR_CONDITION, names, &cond);
    if (!rc) {
        ddb_write_opts o = {.condition = cond, .values = values};
        ddb_error e = {0};
        if (ddb_delete_item(c->db, d->def.name, key, &o, NULL, NULL, &e))
            rc = cli_fail(c, &e, NULL);
    }
    ddb_expr_free(cond);
    ddb_arena_free(a);
    return rc;
}

/* UpdateItem by key (--pk/--sk or --key) with --update EXPR (and
 * --condition, --names, --values); prints the item as it is after. */
int cmd_update(cli *c)
{
    if (!opt_get(c, "update"))
        return usage_error(c, "--update EXPR is required (an UpdateExpression: 'SET #n = :v')");
    if (cli_open(c))
        return 1;
    ddb_arena *a = ddb_arena_new();
    ddb_table_desc *d;
    ddb_item *key = NULL, *values = NULL, *names = NULL;
    ddb_expr *up = NULL, *cond = NULL;
    int rc = keyed(c, a, &d, &key, &values, &names);
    if (!rc)
        rc = cli_expr(c, "update", DDB_EXPR_UPDATE, names, &up);
    if (!rc)
        rc = cli_expr(c, "condition", DDB_EXPR_CONDITION, names, &cond);
    ddb_write_result res = {0};
    if (!rc) {
        ddb_write_opts o = {.condition = cond, .values = values, .return_values = DDB_RETURN_ALL_NEW};
        ddb_error e = {0};
        if (ddb_update_item(c->db, d->def.name, key, up, &o, a, &res, &e))
            rc = cli_fail(c, &e, NULL);
    }
    if (!rc && res.attributes)
        rc = print_item(c, d, res.attributes);
    ddb_expr_free(up);
    ddb_expr_free(cond);
    ddb_arena_free(a);
    return rc;
}

/* ---- query and scan ---- */

/* Read every page (pages alternate between two arenas: a page's
 * LastEvaluatedKey must outlive it) and print up to limit items. */
typedef int (*page_fn)(cli *c, void *params, const ddb_item *start, ddb_arena *a, ddb_page *out, ddb_error *err);

static int all_pages(cli *c, page_fn fn, void *params, const ddb_table_desc *d)
{
    uint64_t limit = 0;
    if (opt_get(c, "limit") && (parse_u64(opt_get(c, "limit"), &limit) || !limit))
        return usage_error(c, "--limit takes a positive whole number");
    ddb_arena *ar[2] = {ddb_arena_new(), ddb_arena_new()};
    item_printer p;
    printer_init(&p, c, stdout, d, FMT_JSON);
    int rc = ar[0] && ar[1] ? 0 : cli_failf(c, "out of memory");
    const ddb_item *start = NULL;
    uint64_t printed = 0;
    for (int page = 0; !rc; page++) {
        ddb_arena *a = ar[page & 1];
        ddb_arena_reset(a);
        ddb_page pg;
        ddb_error e = {0};
        if (fn(c, params, start, a, &pg, &e)) {
            rc = cli_fail(c, &e, NULL);
            break;
        }
        for (size_t i = 0; i < pg.count && !rc && (!limit || printed < limit); i++, printed++)
            rc = printer_item(&p, pg.items[i]);
        if (!pg.last_key || (limit && printed >= limit))
            break;
        start = pg.last_key;
    }
    if (!rc)
        rc = printer_end(&p);
    else
        printer_discard(&p);
    ddb_arena_free(ar[0]);
    ddb_arena_free(ar[1]);
    return rc;
}

static int query_page(cli *c, void *params, const ddb_item *start, ddb_arena *a, ddb_page *out, ddb_error *err)
{
    ddb_query_params *q = params;
    q->start_key = start;
    return ddb_query(c->db, q, a, out, err);
}

static int scan_page(cli *c, void *params, const ddb_item *start, ddb_arena *a, ddb_page *out, ddb_error *err)
{
    ddb_scan_params *s = params;
    s->start_key = start;
    return ddb_scan(c->db, s, a, out, err);
}

int cmd_query(cli *c)
{
    if (cli_open(c))
        return 1;
    ddb_arena *a = ddb_arena_new();
    ddb_table_desc *d;
    ddb_item *values = NULL, *names = NULL;
    ddb_expr *filter = NULL, *proj = NULL, *keycond = NULL;
    int rc = !a ? cli_failf(c, "out of memory") : cli_describe(c, c->o.pos[0], a, &d);
    if (!rc)
        rc = cli_values(c, a, &values, &names);
    if (!rc)
        rc = cli_expr(c, "filter", DDB_EXPR_FILTER, names, &filter);
    if (!rc)
        rc = cli_expr(c, "projection", DDB_EXPR_PROJECTION, names, &proj);
    if (!rc)
        rc = cli_expr(c, "key-condition", DDB_EXPR_KEY_CONDITION, names, &keycond);
    if (!rc && keycond && opt_get(c, "pk"))
        rc = usage_error(c, "give --key-condition or --pk, not both");
    const ddb_key_schema *ks = rc ? NULL : &d->def.key;
    const char *index = opt_get(c, "index");
    for (size_t i = 0; !rc && index && i < d->def.n_indexes; i++)
        if (strcmp(d->def.indexes[i].name, index) == 0)
            ks = &d->def.indexes[i].key;
    if (!rc && index && ks == &d->def.key)
        rc = cli_failf(c, "table %s has no index %s", d->def.name, index);
    if (!rc && !keycond && (ks->n_pk_more || ks->n_sk_more))
        rc = usage_error(c, "index %s has a multi-attribute key: query it with --key-condition EXPR", index);
    if (!rc && !opt_get(c, "pk") && !keycond)
        rc = usage_error(c, "give the partition key value: --pk VALUE (or --key-condition EXPR)");
    ddb_query_params q = {.table = rc ? NULL : d->def.name, .index = index, .backward = opt_count(c, "desc") > 0,
                          .consistent = opt_count(c, "consistent") > 0, .filter = filter, .projection = proj,
                          .values = values, .key_condition = keycond};
    ddb_value *pk = NULL;
    if (!rc && !keycond)
        rc = cli_key_value(c, a, ks->pk, ks->pk_type, opt_get(c, "pk"), &pk);
    q.pk = pk;
    static const struct {
        const char *opt;
        ddb_key_op op;
    } ops[] = {{"sk-eq", DDB_SK_EQ}, {"sk-lt", DDB_SK_LT}, {"sk-le", DDB_SK_LE}, {"sk-gt", DDB_SK_GT},
               {"sk-ge", DDB_SK_GE}, {"sk-begins", DDB_SK_BEGINS_WITH}, {"sk-between", DDB_SK_BETWEEN}};
    for (size_t i = 0; !rc && i < sizeof ops / sizeof *ops; i++) {
        const char *v = opt_get(c, ops[i].opt);
        if (!v)
            continue;
        if (keycond) {
            rc = usage_error(c, "give --key-condition or the --sk-* options, not both");
            break;
        }
        if (q.sk_op != DDB_SK_ANY) {
            rc = usage_error(c, "give at most one sort key condition");
            break;
        }
        if (!ks->sk) {
            rc = usage_error(c, "%s %s has no sort key", index ? "index" : "table", index ? index : d->def.name);
            break;
        }
        ddb_value *v1 = NULL, *v2 = NULL;
        /* begins_with takes text (or bytes) even where the sort key is S/B; N has no prefix */
        if ((rc = cli_key_value(c, a, ks->sk, ks->sk_type, v, &v1)))
            break;
        if (ops[i].op == DDB_SK_BETWEEN && (rc = cli_key_value(c, a, ks->sk, ks->sk_type, opt_get2(c, ops[i].opt), &v2)))
            break;
        q.sk_op = ops[i].op;
        q.sk1 = v1;
        q.sk2 = v2;
    }
    if (!rc)
        rc = all_pages(c, query_page, &q, d);
    ddb_expr_free(keycond);
    ddb_expr_free(filter);
    ddb_expr_free(proj);
    ddb_arena_free(a);
    return rc;
}

int cmd_scan(cli *c)
{
    if (cli_open(c))
        return 1;
    ddb_arena *a = ddb_arena_new();
    ddb_table_desc *d;
    ddb_item *values = NULL, *names = NULL;
    ddb_expr *filter = NULL, *proj = NULL;
    int rc = !a ? cli_failf(c, "out of memory") : cli_describe(c, c->o.pos[0], a, &d);
    if (!rc)
        rc = cli_values(c, a, &values, &names);
    if (!rc)
        rc = cli_expr(c, "filter", DDB_EXPR_FILTER, names, &filter);
    if (!rc)
        rc = cli_expr(c, "projection", DDB_EXPR_PROJECTION, names, &proj);
    uint64_t seg = 0, total = 0;
    if (!rc && opt_get(c, "segment") &&
        (parse_u64(opt_get(c, "segment"), &seg) || parse_u64(opt_get2(c, "segment"), &total) || !total ||
         seg >= total || total > 1000000))
        rc = usage_error(c, "--segment I TOTAL: 0 <= I < TOTAL <= 1000000");
    if (!rc) {
        ddb_scan_params s = {.table = d->def.name, .index = opt_get(c, "index"),
                             .consistent = opt_count(c, "consistent") > 0, .segment = (uint32_t)seg,
                             .total_segments = (uint32_t)total, .filter = filter, .projection = proj,
                             .values = values};
        rc = all_pages(c, scan_page, &s, d);
    }
    ddb_expr_free(filter);
    ddb_expr_free(proj);
    ddb_arena_free(a);
    return rc;
}
