/* Shared helpers of the commands: opening the database, errors, keys and
 * expression values from the command line. */
#include "cli.h"

#include <ddb/json.h>
#include <ddb/remote.h>

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int64_t fixed_clock(void *ctx)
{
    return ((const cli *)ctx)->now_ms;
}

/* --verbose: one line per remote request. */
static void print_request(const ddb_request_metrics *m, void *ctx)
{
    (void)ctx;
    fprintf(stderr, "ddb: %s table=%s status=%ld attempts=%u throttles=%u latency=%.1fms capacity=%g%s%s\n",
            m->operation, m->table ? m->table : "-", m->http_status, m->attempts, m->throttles,
            (double)m->latency_us / 1000.0, m->consumed_capacity, m->result ? " error=" : "",
            m->result ? ddb_strerror(m->result) : "");
}

int cli_open(cli *c)
{
    if (c->db)
        return 0;
    if (!c->uri || !*c->uri)
        return usage_error(c, "no database: give --db URI (file:DIR or DIR) or set DDB_URI");
    bool file = strncmp(c->uri, "file:", 5) == 0, remote = !file && strstr(c->uri, "://");
    const char *path = file ? c->uri + 5 : c->uri;
    int path_len = (int)(file && strchr(path, '?') ? (size_t)(strchr(path, '?') - path) : strlen(path));
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", path_len, path);
    bool may_create = strcmp(c->cmd->name, "create-table") == 0 || strcmp(c->cmd->name, "import") == 0;
    struct stat st;
    if (!remote && !may_create && stat(dir, &st) != 0)
        return cli_failf(c, "no database at %s (%s)", dir, strerror(errno));
    /* reads never write, and a read-only directory can be read */
    ddb_options o = {.read_only = c->cmd->reads_only && !remote};
    if (c->have_now) {
        o.clock_ms = fixed_clock;
        o.clock_ctx = c;
    }
    ddb_error e = {0};
    /* DynamoDB and compatible endpoints: with --verbose's callback */
    bool dynamodb = strncmp(c->uri, "http://", 7) == 0 || strncmp(c->uri, "https://", 8) == 0 ||
                    strncmp(c->uri, "dynamodb://", 11) == 0;
    ddb_remote_options ro = {0};
    ro.on_request = c->verbose ? print_request : NULL;
    if (dynamodb ? ddb_open_remote(c->uri, &ro, &c->db, &e) : ddb_open(c->uri, &o, &c->db, &e))
        return cli_fail(c, &e, "cannot open %s", c->uri);
    return 0;
}

int cli_fail(const cli *c, const ddb_error *e, const char *fmt, ...)
{
    char what[512] = "";
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof what, fmt, ap);
        va_end(ap);
    }
    fprintf(stderr, "ddb %s: %s%s%s\n", c->cmd->name, what, *what ? ": " : "",
            e && e->message[0] ? e->message : e ? ddb_strerror(e->code) : "failed");
    return 1;
}

int cli_failf(const cli *c, const char *fmt, ...)
{
    fprintf(stderr, "ddb %s: ", c->cmd->name);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 1;
}

int parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

int cli_key_value(cli *c, ddb_arena *a, const char *attr, ddb_type t, const char *text, ddb_value **out)
{
    ddb_error e = {0};
    switch (t) {
    case DDB_TN:
        if (ddb_v_n(a, text, out, &e))
            return usage_error(c, "%s: %s", attr, e.message);
        return 0;
    case DDB_TB: {
        size_t n = strlen(text), len = 0, bad = 0;
        uint8_t *b = ddb_arena_alloc(a, n / 4 * 3 + 1);
        if (!b || ddb_json_base64_decode(text, n, b, &len, &bad))
            return usage_error(c, "%s: binary key values are base64; '%s' is not (offset %zu)", attr, text, bad);
        *out = ddb_v_b(a, b, len);
        return *out ? 0 : cli_failf(c, "out of memory");
    }
    default:
        *out = ddb_v_str(a, text);
        return *out ? 0 : cli_failf(c, "out of memory");
    }
}

int cli_key_item(cli *c, ddb_arena *a, const ddb_table_desc *d, ddb_item **out)
{
    const char *json = opt_get(c, "key"), *pk = opt_get(c, "pk"), *sk = opt_get(c, "sk");
    ddb_error e = {0};
    if (json) {
        if (pk || sk)
            return usage_error(c, "give the key either as --key JSON or as --pk/--sk, not both");
        if (ddb_json_parse_item(json, strlen(json), a, out, &e))
            return usage_error(c, "--key: %s", e.message);
        return 0;
    }
    if (!pk)
        return usage_error(c, "which item? give --pk VALUE%s or --key JSON", d->def.key.sk ? " --sk VALUE" : "");
    if (d->def.key.sk && !sk)
        return usage_error(c, "table %s has the sort key %s: give --sk VALUE", d->def.name, d->def.key.sk);
    if (!d->def.key.sk && sk)
        return usage_error(c, "table %s has no sort key", d->def.name);
    ddb_item *k = ddb_item_new(a);
    ddb_value *v;
    if (!k)
        return cli_failf(c, "out of memory");
    int rc = cli_key_value(c, a, d->def.key.pk, d->def.key.pk_type, pk, &v);
    if (rc || ddb_item_set(k, d->def.key.pk, v))
        return rc ? rc : cli_failf(c, "out of memory");
    if (sk) {
        if ((rc = cli_key_value(c, a, d->def.key.sk, d->def.key.sk_type, sk, &v)) || ddb_item_set(k, d->def.key.sk, v))
            return rc ? rc : cli_failf(c, "out of memory");
    }
    *out = k;
    return 0;
}

int cli_values(cli *c, ddb_arena *a, ddb_item **values, ddb_item **names)
{
    *values = *names = NULL;
    ddb_error e = {0};
    const char *v = opt_get(c, "values"), *n = opt_get(c, "names");
    if (v && ddb_json_parse_item(v, strlen(v), a, values, &e))
        return usage_error(c, "--values: %s", e.message);
    if (n) {
        json_error_t je;
        json_t *j = json_loads(n, JSON_REJECT_DUPLICATES, &je);
        if (!j || !json_is_object(j)) {
            json_decref(j);
            return usage_error(c, "--names: a JSON object of strings is expected, e.g. {\"#n\": \"name\"}");
        }
        ddb_item *it = ddb_item_new(a);
        const char *k;
        json_t *s;
        json_object_foreach(j, k, s) {
            if (!json_is_string(s)) {
                usage_error(c, "--names: %s is not a string", k); /* k lives in j */
                json_decref(j);
                return EXIT_USAGE;
            }
            if (!it || ddb_item_set_s(it, k, json_string_value(s))) {
                json_decref(j);
                return cli_failf(c, "out of memory");
            }
        }
        json_decref(j);
        *names = it;
    }
    return 0;
}

int cli_expr(cli *c, const char *option, ddb_expr_kind kind, const ddb_item *names, ddb_expr **out)
{
    *out = NULL;
    const char *text = opt_get(c, option);
    if (!text)
        return 0;
    ddb_error e = {0};
    if (ddb_expr_prepare(kind, text, names, out, &e))
        return usage_error(c, "--%s: %s", option, e.message);
    return 0;
}

int cli_describe(cli *c, const char *table, ddb_arena *a, ddb_table_desc **out)
{
    ddb_error e = {0};
    if (ddb_describe_table(c->db, table, a, out, &e))
        return cli_fail(c, &e, NULL);
    return 0;
}

bool cli_progress_tty(void)
{
    return isatty(STDERR_FILENO) == 1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void progress_show(progress *p, uint64_t n, bool final)
{
    if (!p->on)
        return;
    double t = now_s();
    if (!final && t - p->last < 0.2)
        return;
    p->last = t;
    fprintf(stderr, "\rddb %s: %" PRIu64 " item%s%s", p->what, n, n == 1 ? "" : "s", final ? "\n" : "");
    fflush(stderr);
}

char *cli_read_file(const char *path, size_t max, size_t *len, const char **why)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        *why = strerror(errno);
        return NULL;
    }
    char *buf = malloc(max + 1);
    size_t n = buf ? fread(buf, 1, max + 1, f) : 0;
    bool bad = ferror(f) != 0;
    fclose(f);
    *len = n; /* more than max: too large */
    *why = !buf ? "out of memory" : bad ? "cannot be read" : n > max ? "larger than this file can be" : NULL;
    if (*why) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

json_t *cli_load_json(const cli *c, const char *path, size_t max, const char *what)
{
    size_t n = 0;
    const char *why = NULL;
    char *buf = cli_read_file(path, max, &n, &why);
    json_t *doc = NULL;
    json_error_t je;
    if (!buf && n > max)
        cli_failf(c, "%s %s is larger than %zu bytes, more than one can be", what, path, max);
    else if (!buf)
        cli_failf(c, "cannot read %s %s: %s", what, path, why);
    else if (!(doc = json_loadb(buf, n, 0, &je)))
        cli_failf(c, "%s:%d:%d: %s", path, je.line, je.column, je.text);
    free(buf);
    return doc;
}

int cli_sync_mode(const cli *c, ddb_sync_mode *out)
{
    const char *sync = opt_get(c, "sync");
    if (!sync)
        return 0;
    if (strcmp(sync, "full") == 0)
        *out = DDB_SYNC_FULL;
    else if (strcmp(sync, "lazy") == 0)
        *out = DDB_SYNC_LAZY;
    else if (strcmp(sync, "none") == 0)
        *out = DDB_SYNC_NONE;
    else
        return usage_error(c, "--sync is full, lazy or none, not '%s'", sync);
    return 0;
}
