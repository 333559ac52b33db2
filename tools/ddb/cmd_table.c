/* Table commands: tables, describe, create-table, delete-table,
 * update-table, sweep. */
#include "cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int cmd_tables(cli *c)
{
    if (cli_open(c))
        return 1;
    ddb_arena *a = ddb_arena_new();
    const char **names;
    size_t n;
    ddb_error e = {0};
    if (!a || ddb_list_tables(c->db, a, &names, &n, &e)) {
        ddb_arena_free(a);
        return cli_fail(c, &e, NULL);
    }
    for (size_t i = 0; i < n; i++)
        printf("%s\n", names[i]);
    ddb_arena_free(a);
    return 0;
}

static void describe_json(const ddb_table_desc *d, const ddb_stream_desc *sd)
{
    json_t *t = table_shape(d, sd);
    json_t *root = json_pack("{s:o}", "Table", t);
    char *s = json_dumps(root, JSON_INDENT(2));
    printf("%s\n", s ? s : "{}");
    free(s);
    json_decref(root);
}

/* "pk (S), sk (N)"; a multi-attribute key's sides in parentheses:
 * "(tid (S), rgn (S)), (round (N), bracket (S))". */
static void key_text(char *buf, size_t cap, const ddb_key_schema *k)
{
    bool multi = k->n_pk_more || k->n_sk_more;
    size_t o = 0;
#define KEY_TEXT(...) (o += (size_t)snprintf(buf + o, o < cap ? cap - o : 0, __VA_ARGS__))
    KEY_TEXT("%s%s (%s)", multi ? "(" : "", k->pk, ddb_type_name(k->pk_type));
    for (size_t i = 0; i < k->n_pk_more; i++)
        KEY_TEXT(", %s (%s)", k->pk_more[i].name, ddb_type_name(k->pk_more[i].type));
    if (k->sk)
        KEY_TEXT("%s, %s%s (%s)", multi ? ")" : "", multi ? "(" : "", k->sk, ddb_type_name(k->sk_type));
    for (size_t i = 0; k->sk && i < k->n_sk_more; i++)
        KEY_TEXT(", %s (%s)", k->sk_more[i].name, ddb_type_name(k->sk_more[i].type));
    if (multi)
        KEY_TEXT(")");
#undef KEY_TEXT
}

int cmd_describe(cli *c)
{
    if (cli_open(c))
        return 1;
    ddb_arena *a = ddb_arena_new();
    ddb_table_desc *d;
    if (!a || cli_describe(c, c->o.pos[0], a, &d)) {
        ddb_arena_free(a);
        return 1;
    }
    ddb_stream_desc sd;
    ddb_error e = {0};
    bool have_stream = ddb_stream_describe(c->db, d->def.name, &sd, &e) == DDB_OK;
    if (c->format == FMT_JSON) {
        describe_json(d, have_stream ? &sd : NULL);
        ddb_arena_free(a);
        return 0;
    }
    char k[2 * DDB_MAX_KEY_ATTRS * (255 + 8) + 8]; /* every attribute of a key, named in full */
    key_text(k, sizeof k, &d->def.key);
    printf("%-11s %s\n", "table", d->def.name);
    printf("%-11s %s\n", "key", k);
    printf("%-11s %" PRIu64 " (%" PRIu64 " bytes) in %u partition%s\n", "items", d->item_count, d->size_bytes,
           d->partitions, d->partitions == 1 ? "" : "s");
    if (d->def.rcu || d->def.wcu)
        printf("%-11s %" PRIu64 " RCU, %" PRIu64 " WCU provisioned\n", "capacity", d->def.rcu, d->def.wcu);
    else
        printf("%-11s on demand\n", "capacity");
    if (d->def.stream.view)
        printf("%-11s %s, retention %" PRIu64 " s%s\n", "stream", ddb_stream_view_name(d->def.stream.view),
               d->def.stream.retention_seconds, d->def.stream.retention_bytes ? " (and a byte limit)" : "");
    else
        printf("%-11s disabled\n", "stream");
    if (have_stream && sd.last_seq)
        printf("%-11s %" PRIu64 " retained (sequence numbers %" PRIu64 "..%" PRIu64 ", %" PRIu64 " bytes)\n",
               "records", sd.records, sd.records ? sd.first_seq : 0, sd.last_seq, sd.bytes);
    printf("%-11s %s\n", "ttl", d->def.ttl_attribute ? d->def.ttl_attribute : "disabled");
    for (size_t i = 0; i < d->def.n_indexes; i++) {
        const ddb_index_def *x = &d->def.indexes[i];
        key_text(k, sizeof k, &x->key);
        printf("%-11s %s: %s, %s, projection %s", "index", x->name, x->local ? "local" : "global", k,
               projection_name(x->projection));
        for (size_t j = 0; j < x->n_include; j++)
            printf("%s%s", j ? ", " : " ", x->include[j]);
        printf("\n");
    }
    ddb_arena_free(a);
    return 0;
}

/* "NAME:TYPE" -> name (arena) and type */
static int name_type(cli *c, ddb_arena *a, const char *opt, const char *s, const char **name, ddb_type *t)
{
    const char *colon = strrchr(s, ':');
    if (!colon || colon == s)
        return usage_error(c, "--%s: expected NAME:TYPE, got '%s'", opt, s);
    const char *ty = colon + 1;
    *t = strcmp(ty, "S") == 0 ? DDB_TS : strcmp(ty, "N") == 0 ? DDB_TN : strcmp(ty, "B") == 0 ? DDB_TB : DDB_TNONE;
    if (*t == DDB_TNONE)
        return usage_error(c, "--%s: key type '%s' is not S, N or B", opt, ty);
    char *n = ddb_arena_alloc(a, (size_t)(colon - s) + 1);
    if (!n)
        return cli_failf(c, "out of memory");
    memcpy(n, s, (size_t)(colon - s));
    n[colon - s] = '\0';
    *name = n;
    return 0;
}

/* Split s at ':' into at most max parts (arena copies). */
static size_t split(ddb_arena *a, const char *s, char **parts, size_t max)
{
    size_t n = 0;
    while (n < max) {
        const char *colon = strchr(s, ':');
        size_t len = colon ? (size_t)(colon - s) : strlen(s);
        char *p = ddb_arena_alloc(a, len + 1);
        if (!p)
            return 0;
        memcpy(p, s, len);
        p[len] = '\0';
        parts[n++] = p;
        if (!colon)
            break;
        s = colon + 1;
    }
    return n;
}

static int stream_view(cli *c, const char *s, ddb_stream_view *v)
{
    if (ddb_stream_view_parse(s, v))
        return usage_error(c, "--stream: '%s' is not NONE, KEYS_ONLY, NEW_IMAGE, OLD_IMAGE or NEW_AND_OLD_IMAGES", s);
    return 0;
}

int cmd_create_table(cli *c)
{
    ddb_arena *a = ddb_arena_new();
    ddb_table_def def;
    ddb_index_def ix[DDB_MAX_GSI + DDB_MAX_LSI];
    memset(&def, 0, sizeof def);
    memset(ix, 0, sizeof ix);
    int rc = 0;
    def.name = c->o.pos[0];
    if (!a)
        return cli_failf(c, "out of memory");
    if (!opt_get(c, "pk")) {
        rc = usage_error(c, "give the partition key: --pk NAME:TYPE");
        goto out;
    }
    if ((rc = name_type(c, a, "pk", opt_get(c, "pk"), &def.key.pk, &def.key.pk_type)))
        goto out;
    if (opt_get(c, "sk") && (rc = name_type(c, a, "sk", opt_get(c, "sk"), &def.key.sk, &def.key.sk_type)))
        goto out;
    size_t n = 0;
    for (int i = 0; i < opt_count(c, "gsi") + opt_count(c, "lsi"); i++) {
        bool local = i >= opt_count(c, "gsi");
        const char *s = local ? opt_nth(c, "lsi", i - opt_count(c, "gsi")) : opt_nth(c, "gsi", i);
        char *p[5];
        size_t np = split(a, s, p, 5);
        ddb_index_def *x = &ix[n];
        if (n == sizeof ix / sizeof *ix) {
            rc = usage_error(c, "too many indexes");
            goto out;
        }
        if (!local && (np == 3 || np == 5)) {
            *x = (ddb_index_def){.name = p[0], .key = {.pk = p[1]}};
            ddb_type t[2] = {DDB_TNONE, DDB_TNONE};
            for (size_t k = 0; k < (np - 1) / 2; k++) {
                const char *ty = p[2 + 2 * k];
                t[k] = !strcmp(ty, "S") ? DDB_TS : !strcmp(ty, "N") ? DDB_TN : !strcmp(ty, "B") ? DDB_TB : DDB_TNONE;
            }
            x->key.pk_type = t[0];
            if (np == 5) {
                x->key.sk = p[3];
                x->key.sk_type = t[1];
            }
            if (t[0] == DDB_TNONE || (np == 5 && t[1] == DDB_TNONE)) {
                rc = usage_error(c, "--gsi %s: key types are S, N or B", s);
                goto out;
            }
        } else if (local && np == 3) {
            ddb_type t = !strcmp(p[2], "S") ? DDB_TS : !strcmp(p[2], "N") ? DDB_TN : !strcmp(p[2], "B") ? DDB_TB : 0;
            if (!t) {
                rc = usage_error(c, "--lsi %s: key types are S, N or B", s);
                goto out;
            }
            *x = (ddb_index_def){.name = p[0], .local = true,
                                 .key = {.pk = def.key.pk, .pk_type = def.key.pk_type, .sk = p[1], .sk_type = t}};
        } else {
            rc = usage_error(c, local ? "--lsi: expected NAME:SK:TYPE, got '%s'"
                                      : "--gsi: expected NAME:PK:TYPE or NAME:PK:TYPE:SK:TYPE, got '%s'",
                             s);
            goto out;
        }
        n++;
    }
    def.indexes = n ? ix : NULL;
    def.n_indexes = n;
    if (opt_get(c, "stream") && (rc = stream_view(c, opt_get(c, "stream"), &def.stream.view)))
        goto out;
    def.ttl_attribute = opt_get(c, "ttl");
    if ((opt_get(c, "rcu") && parse_u64(opt_get(c, "rcu"), &def.rcu)) ||
        (opt_get(c, "wcu") && parse_u64(opt_get(c, "wcu"), &def.wcu))) {
        rc = usage_error(c, "--rcu and --wcu take whole numbers");
        goto out;
    }
    if ((rc = cli_open(c)))
        goto out;
    ddb_error e = {0};
    if (ddb_create_table(c->db, &def, &e))
        rc = cli_fail(c, &e, NULL);
out:
    ddb_arena_free(a);
    return rc;
}

int cmd_delete_table(cli *c)
{
    if (cli_open(c))
        return 1;
    ddb_error e = {0};
    if (ddb_delete_table(c->db, c->o.pos[0], &e))
        return cli_fail(c, &e, NULL);
    return 0;
}

int cmd_update_table(cli *c)
{
    const char *table = c->o.pos[0], *sv = opt_get(c, "stream"), *hours = opt_get(c, "retention-hours");
    const char *bytes = opt_get(c, "retention-bytes"), *ttl = opt_get(c, "ttl");
    bool no_ttl = opt_count(c, "no-ttl") > 0;
    if (!sv && !hours && !bytes && !ttl && !no_ttl)
        return usage_error(c, "nothing to change: give --stream, --retention-hours, --retention-bytes, --ttl or --no-ttl");
    if (ttl && no_ttl)
        return usage_error(c, "--ttl and --no-ttl contradict each other");
    ddb_stream_spec spec = {0};
    uint64_t h = 0, b = 0;
    if (sv && stream_view(c, sv, &spec.view))
        return EXIT_USAGE;
    if ((hours && parse_u64(hours, &h)) || (bytes && parse_u64(bytes, &b)))
        return usage_error(c, "--retention-hours and --retention-bytes take whole numbers");
    if (cli_open(c))
        return 1;
    ddb_error e = {0};
    if (sv || hours || bytes) {
        ddb_arena *a = ddb_arena_new();
        ddb_table_desc *d;
        if (!a || cli_describe(c, table, a, &d)) {
            ddb_arena_free(a);
            return 1;
        }
        if (!sv)
            spec.view = d->def.stream.view;
        spec.retention_seconds = hours ? h * 3600 : d->def.stream.retention_seconds;
        spec.retention_bytes = bytes ? b : d->def.stream.retention_bytes;
        ddb_arena_free(a);
        if (ddb_update_table_stream(c->db, table, &spec, &e))
            return cli_fail(c, &e, NULL);
    }
    if ((ttl || no_ttl) && ddb_update_time_to_live(c->db, table, ttl, &e))
        return cli_fail(c, &e, NULL);
    return 0;
}

int cmd_sweep(cli *c)
{
    if (cli_open(c))
        return 1;
    uint64_t n = 0;
    ddb_error e = {0};
    const char *table = c->o.npos ? c->o.pos[0] : NULL;
    if (ddb_ttl_sweep(c->db, table, 0, &n, &e))
        return cli_fail(c, &e, NULL);
    printf("%" PRIu64 " expired item%s deleted\n", n, n == 1 ? "" : "s");
    return 0;
}
