/* The property test of table definitions (issue 22 section 1): seeded
 * random sequences of control-plane requests (CreateTable, DeleteTable,
 * UpdateTable adding or deleting a GSI, UpdateTimeToLive) and data-plane
 * requests (PutItem), valid and invalid, at and around every documented
 * limit: names of 0/1/2/3/255/256 bytes in ASCII and in multi-byte UTF-8,
 * characters outside [a-zA-Z0-9_.-], 20/21 GSIs, 5/6 LSIs, 100/101
 * projected attributes (20/21 in one index), duplicate index and projected
 * names, GSIs with multi-attribute keys (up to four partition-key and four
 * sort-key attributes, now and then five, or one twice, or on an LSI:
 * API_CreateGlobalSecondaryIndexAction, developer guide
 * GSI.DesignPattern.MultiAttributeKeys).  The test
 * keeps its own model of what DynamoDB accepts (the limits of
 * HowItWorks.NamingRulesDataTypes.html, ServiceQuotas.html,
 * API_Projection.html, API_KeySchemaElement.html, API_CreateTable.html) and
 * fails when the engine decides otherwise.  After every accepted request a
 * fresh handle opens the database, DescribeTable gives back the model's
 * definition, and every accepted item reads back through GetItem, Query on
 * the table and on each index holding it, Scan and the stream; every few
 * requests and at the end `ddb export` -> `ddb import` carries each table's
 * items to a scratch database unchanged.
 *
 * Embedded (DDB_TEST_URI unset), or through `ddb serve` (with_serve.py:
 * DDB_TEST_URI is the server, DDB_TEST_SERVE_DIR its database directory,
 * which the checks open as a second process would).  DDB_PROP_SEED
 * reproduces a run (printed at the start and on failure), DDB_PROP_STEPS
 * sets its length.  Calls the public API and the ddb tool (DDB_TOOL). */
#include <ddb/ddb.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_TABLES 4
#define MAX_ITEMS 24

static uint64_t seed, rng;
static int step;
static char dir[600], scratch[600];
static const char *remote; /* DDB_TEST_URI, or NULL: embedded */

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAILED at step %d (reproduce with DDB_PROP_SEED=%" PRIu64 "%s): ", step, seed,
            remote ? ", through ddb serve" : "");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static uint64_t rnd(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ull;
}

static size_t pick(size_t n)
{
    return (size_t)(rnd() % n);
}

static bool chance(int percent)
{
    return (int)pick(100) < percent;
}

/* ---- names at and around the limits ---- */

/* What the run reached, printed at the end: names of 0, 1, 2, 3, 255 and
 * 256 bytes, multi-byte and reserved characters, 20/21 GSIs, 5/6 LSIs,
 * 100/101 projected attributes. */
enum { H_LEN0, H_LEN1, H_LEN2, H_LEN3, H_LEN255, H_LEN256, H_UTF8, H_RESERVED, H_GSI20, H_GSI21, H_LSI5, H_LSI6,
       H_PROJ100, H_PROJ101, H_OK_GSI20, H_OK_LSI5, H_OK_PROJ100, H_MULTI, H_OK_MULTI, H_N };
static const char *const hit_names[H_N] = {"0-byte", "1-byte", "2-byte", "3-byte", "255-byte", "256-byte", "UTF-8",
                                           "reserved", "20 GSIs", "21 GSIs", "5 LSIs", "6 LSIs", "100 projected",
                                           "101 projected", "accepted with 20 GSIs", "accepted with 5 LSIs",
                                           "accepted with 100 projected", "multi-attribute keys",
                                           "accepted multi-attribute keys"};
static unsigned hits[H_N];
/* How often a name is at a limit's edge or holds a reserved character (in
 * percent): 0 for half the requests, so that large valid definitions are
 * accepted too. */
static int edge_pct;


typedef struct name {
    char s[300];
    bool utf8, reserved;
} name;

/* A name of a role (its first byte, keeping roles apart) and a length in
 * bytes: the limits' edges, or an ordinary length; multi-byte UTF-8 ("é")
 * or a reserved character now and then.  ord numbers ordinary names. */
static name gen_name(char role, int ord)
{
    static const size_t edges[] = {0, 1, 2, 3, 255, 256};
    name n = {{0}, false, false};
    if (!chance(edge_pct)) {
        snprintf(n.s, sizeof n.s, "%c%d", role, ord);
        if (chance(edge_pct / 3)) { /* a reserved character */
            n.reserved = true;
            hits[H_RESERVED]++;
            n.s[strlen(n.s)] = " /#:"[pick(4)];
        }
        return n;
    }
    size_t e = pick(sizeof edges / sizeof *edges), len = edges[e], i = 0;
    n.utf8 = len > 2 && chance(50);
    hits[H_LEN0 + e]++;
    hits[H_UTF8] += n.utf8;
    if (len)
        n.s[i++] = role;
    while (n.utf8 && i + 2 <= len) {
        n.s[i++] = (char)0xc3;
        n.s[i++] = (char)0xa9;
    }
    for (; i < len; i++)
        n.s[i] = (char)('a' + (ord + (int)i) % 26);
    n.s[len] = '\0';
    return n;
}

/* Table and index names: 3..255 bytes of [a-zA-Z0-9_.-]. */
static bool resource_name_ok(const name *n)
{
    size_t len = strlen(n->s);
    return len >= 3 && len <= 255 && !n->utf8 && !n->reserved;
}

/* Attribute names: 1..255 bytes, any characters. */
static bool attr_name_ok(const name *n)
{
    size_t len = strlen(n->s);
    return len >= 1 && len <= 255;
}

/* ---- the model ---- */

typedef struct m_index {
    name n, pk, sk;
    name pm[DDB_MAX_KEY_ATTRS], sm[DDB_MAX_KEY_ATTRS]; /* a multi-attribute key's further attributes */
    size_t n_pm, n_sm;
    bool local, has_sk;
    ddb_projection proj;
    name inc[110];
    size_t n_inc;
} m_index;

typedef struct m_table {
    bool live;
    name n, pk, sk;
    bool has_sk;
    m_index ix[32];
    size_t n_ix;
    char ttl[300];
    bool stream;
    ddb_arena *a;
    ddb_item *items[MAX_ITEMS];
    size_t n_items;
} m_table;

static m_table tables[MAX_TABLES];
static int ord;


static m_table *live_table(void)
{
    size_t n = 0, which[MAX_TABLES];
    for (size_t i = 0; i < MAX_TABLES; i++)
        if (tables[i].live)
            which[n++] = i;
    return n ? &tables[which[pick(n)]] : NULL;
}

static m_table *find_table(const char *s)
{
    for (size_t i = 0; i < MAX_TABLES; i++)
        if (tables[i].live && strcmp(tables[i].n.s, s) == 0)
            return &tables[i];
    return NULL;
}

static size_t projected(const m_table *t)
{
    size_t n = 0;
    for (size_t i = 0; i < t->n_ix; i++)
        n += t->ix[i].proj == DDB_PROJ_INCLUDE ? t->ix[i].n_inc : 0;
    return n;
}

/* A random index of table t (local or global). */
static void gen_index(const m_table *t, bool local, size_t inc_target, m_index *x)
{
    memset(x, 0, sizeof *x);
    x->n = gen_name('I', ord++);
    x->local = local;
    if (local) {
        x->pk = t->pk;
        x->sk = gen_name('L', ord++);
        x->has_sk = true;
    } else {
        x->pk = gen_name('G', ord++);
        x->has_sk = chance(40);
        if (x->has_sk)
            x->sk = gen_name('H', ord++);
    }
    /* a multi-attribute key: up to three further attributes a side (now
     * and then four: refused), rarely on an LSI (refused) */
    if (chance(local ? edge_pct / 10 : 30)) {
        size_t most = edge_pct && chance(10) ? DDB_MAX_KEY_ATTRS : DDB_MAX_KEY_ATTRS - 1;
        x->n_pm = pick(most + 1);
        x->n_sm = x->has_sk ? pick(most + 1) : 0;
        for (size_t j = 0; j < x->n_pm; j++)
            x->pm[j] = gen_name('Q', ord++);
        for (size_t j = 0; j < x->n_sm; j++)
            x->sm[j] = gen_name('R', ord++);
        if (x->n_sm && edge_pct && chance(5))
            x->sm[x->n_sm - 1] = x->pk; /* one attribute twice in the key */
    }
    x->proj = (ddb_projection)pick(3);
    if (inc_target)
        x->proj = DDB_PROJ_INCLUDE;
    if (x->proj == DDB_PROJ_INCLUDE) {
        x->n_inc = inc_target ? inc_target : 1 + pick(3);
        for (size_t j = 0; j < x->n_inc; j++) {
            x->inc[j] = gen_name('N', ord++);
            if (j && edge_pct && chance(3))
                x->inc[j] = x->inc[pick(j)]; /* a duplicate */
        }
    }
}

/* Every key attribute of index x, partition side first (room 2 + 2 *
 * DDB_MAX_KEY_ATTRS). */
static size_t key_names(const m_index *x, const name **out)
{
    size_t n = 0;
    out[n++] = &x->pk;
    for (size_t j = 0; j < x->n_pm; j++)
        out[n++] = &x->pm[j];
    if (x->has_sk)
        out[n++] = &x->sk;
    for (size_t j = 0; j < x->n_sm; j++)
        out[n++] = &x->sm[j];
    return n;
}

static bool index_ok(const m_index *x)
{
    if (!resource_name_ok(&x->n) || !attr_name_ok(&x->pk) || (x->has_sk && !attr_name_ok(&x->sk)))
        return false;
    /* multi-attribute keys: GSIs only, at most four a side, each attribute once */
    if ((x->local && (x->n_pm || x->n_sm)) || x->n_pm > DDB_MAX_KEY_ATTRS - 1 || x->n_sm > DDB_MAX_KEY_ATTRS - 1)
        return false;
    const name *k[2 + 2 * DDB_MAX_KEY_ATTRS];
    size_t nk = key_names(x, k);
    for (size_t i = 0; i < nk; i++) {
        if (!attr_name_ok(k[i]))
            return false;
        for (size_t j = 0; j < i; j++)
            if (strcmp(k[i]->s, k[j]->s) == 0)
                return false;
    }
    if (x->proj == DDB_PROJ_INCLUDE && (!x->n_inc || x->n_inc > 20)) /* API_Projection.html: 1..20 */
        return false;
    for (size_t j = 0; x->proj == DDB_PROJ_INCLUDE && j < x->n_inc; j++) {
        if (!attr_name_ok(&x->inc[j]))
            return false;
        for (size_t k = 0; k < j; k++)
            if (strcmp(x->inc[k].s, x->inc[j].s) == 0)
                return false;
    }
    return true;
}

/* Would DynamoDB accept table t's definition? */
static bool table_ok(const m_table *t)
{
    if (!resource_name_ok(&t->n) || !attr_name_ok(&t->pk) || (t->has_sk && !attr_name_ok(&t->sk)))
        return false;
    if (t->has_sk && strcmp(t->pk.s, t->sk.s) == 0)
        return false;
    size_t ng = 0, nl = 0;
    for (size_t i = 0; i < t->n_ix; i++) {
        const m_index *x = &t->ix[i];
        if (!index_ok(x) || (x->has_sk && strcmp(x->pk.s, x->sk.s) == 0))
            return false;
        for (size_t j = 0; j < i; j++)
            if (strcmp(t->ix[j].n.s, x->n.s) == 0)
                return false;
        if (x->local && !t->has_sk)
            return false;
        *(x->local ? &nl : &ng) += 1;
    }
    return ng <= DDB_MAX_GSI && nl <= DDB_MAX_LSI && projected(t) <= 100;
}

/* The definition of index x (its strings; inc and more: room for the
 * projected names and the further key attributes). */
static ddb_index_def index_def(const m_index *x, const char **inc, ddb_key_part *more)
{
    for (size_t j = 0; j < x->n_inc; j++)
        inc[j] = x->inc[j].s;
    for (size_t j = 0; j < x->n_pm; j++)
        more[j] = (ddb_key_part){x->pm[j].s, DDB_TS};
    for (size_t j = 0; j < x->n_sm; j++)
        more[x->n_pm + j] = (ddb_key_part){x->sm[j].s, DDB_TS};
    return (ddb_index_def){.name = x->n.s,
                           .local = x->local,
                           .key = {.pk = x->pk.s, .pk_type = DDB_TS, .sk = x->has_sk ? x->sk.s : NULL,
                                   .sk_type = DDB_TS, .pk_more = more, .n_pk_more = x->n_pm,
                                   .sk_more = more + x->n_pm, .n_sk_more = x->n_sm},
                           .projection = x->proj,
                           .include = x->proj == DDB_PROJ_INCLUDE ? inc : NULL,
                           .n_include = x->proj == DDB_PROJ_INCLUDE ? x->n_inc : 0};
}

static void to_def(const m_table *t, ddb_table_def *d, ddb_index_def *ix, const char *(*inc)[110],
                   ddb_key_part (*more)[2 * DDB_MAX_KEY_ATTRS])
{
    memset(d, 0, sizeof *d);
    d->name = t->n.s;
    d->key = (ddb_key_schema){.pk = t->pk.s, .pk_type = DDB_TS, .sk = t->has_sk ? t->sk.s : NULL, .sk_type = DDB_TS};
    for (size_t i = 0; i < t->n_ix; i++)
        ix[i] = index_def(&t->ix[i], inc[i], more[i]);
    d->indexes = ix;
    d->n_indexes = t->n_ix;
    d->stream.view = t->stream ? DDB_STREAM_NEW_IMAGE : DDB_STREAM_NONE;
}

/* ---- the outcome against the model ---- */

static bool refused(int rc)
{
    return rc == DDB_EVALIDATION || rc == DDB_ELIMIT || rc == DDB_EINVAL;
}

static void expect(const char *what, bool ok, int rc, const ddb_error *err)
{
    if (ok && rc)
        die("%s: DynamoDB accepts it, the engine refused it: %d %s", what, rc, err->message);
    if (!ok && !refused(rc))
        die("%s: DynamoDB refuses it, the engine answered %d %s", what, rc, rc ? err->message : "(accepted)");
}

/* ---- the requests ---- */

static void req_create(ddb *db)
{
    m_table *slot = NULL;
    for (size_t i = 0; i < MAX_TABLES && !slot; i++)
        if (!tables[i].live)
            slot = &tables[i];
    if (!slot)
        return;
    static m_table t;
    memset(&t, 0, sizeof t);
    t.n = gen_name('T', ord++);
    t.pk = gen_name('P', ord++);
    t.has_sk = chance(60);
    if (t.has_sk)
        t.sk = edge_pct && chance(5) ? t.pk : gen_name('S', ord++);
    t.stream = chance(50);
    static const size_t gsis[] = {0, 0, 1, 2, 3, 19, 20, 21}, lsis[] = {0, 1, 2, 4, 5, 6};
    size_t ng = gsis[pick(sizeof gsis / sizeof *gsis)], nl = chance(40) ? lsis[pick(sizeof lsis / sizeof *lsis)] : 0;
    /* now and then, INCLUDE projections summing to 99, 100 or 101 */
    /* INCLUDE projections of at most 20 each (now and then 21), summing to
     * 99, 100 or 101 now and then (over 5 or 6 GSIs, or more) */
    bool wide = chance(15);
    if (wide && ng < 5)
        ng = 5 + pick(2);
    size_t total = wide || (ng + nl && chance(35)) ? 99 + pick(3) : 0, per = edge_pct && chance(20) ? 21 : 20;
    for (size_t i = 0; i < ng + nl; i++) {
        size_t share = total > i * per ? (total - i * per < per ? total - i * per : per) : 0;
        gen_index(&t, i >= ng, share, &t.ix[t.n_ix++]);
        if (i && edge_pct && chance(3))
            t.ix[t.n_ix - 1].n = t.ix[pick(i)].n; /* a duplicate index name */
    }
    hits[H_GSI20] += ng == 20;
    hits[H_GSI21] += ng == 21;
    hits[H_LSI5] += nl == 5;
    hits[H_LSI6] += nl == 6;
    hits[H_PROJ100] += projected(&t) == 100;
    hits[H_PROJ101] += projected(&t) == 101;
    for (size_t i = 0; i < t.n_ix; i++)
        hits[H_MULTI] += t.ix[i].n_pm || t.ix[i].n_sm;
    ddb_table_def d;
    ddb_index_def ix[32];
    static const char *inc[32][110];
    static ddb_key_part more[32][2 * DDB_MAX_KEY_ATTRS];
    to_def(&t, &d, ix, inc, more);
    ddb_error err = {0};
    int rc = ddb_create_table(db, &d, &err);
    bool ok = table_ok(&t);
    if (ok && find_table(t.n.s)) {
        if (rc != DDB_EEXISTS)
            die("CreateTable %s: exists, answered %d %s", t.n.s, rc, err.message);
        return;
    }
    expect("CreateTable", ok, rc, &err);
    if (rc)
        return;
    hits[H_OK_GSI20] += ng == 20;
    hits[H_OK_LSI5] += nl == 5;
    hits[H_OK_PROJ100] += projected(&t) == 100;
    for (size_t i = 0; i < t.n_ix; i++)
        hits[H_OK_MULTI] += t.ix[i].n_pm || t.ix[i].n_sm;
    *slot = t;
    slot->live = true;
    slot->a = ddb_arena_new();
}

static void drop_model(m_table *t)
{
    ddb_arena_free(t->a);
    memset(t, 0, sizeof *t);
}

static void check_export_import_of(const m_table *t);

/* DeleteTable; the table's items go through `ddb export` -> `ddb import`
 * first (each table's items take that path at least once). */
static void req_delete(ddb *db)
{
    m_table *t = live_table();
    if (!t)
        return;
    check_export_import_of(t);
    ddb_error err = {0};
    int rc = ddb_delete_table(db, t->n.s, &err);
    if (rc)
        die("DeleteTable %s: %d %s", t->n.s, rc, err.message);
    drop_model(t);
}

static void req_add_index(ddb *db)
{
    m_table *t = live_table();
    if (!t)
        return;
    m_index x;
    size_t room = 100 - projected(t);
    gen_index(t, false, chance(30) ? (room > 20 ? 19 + pick(3) : room + pick(2)) : 0, &x);
    if (x.proj == DDB_PROJ_INCLUDE && x.n_inc == 0)
        x.proj = DDB_PROJ_ALL;
    const char *inc[110];
    ddb_key_part more[2 * DDB_MAX_KEY_ATTRS];
    ddb_index_def d = index_def(&x, inc, more);
    hits[H_PROJ100] += projected(t) + d.n_include == 100;
    hits[H_PROJ101] += projected(t) + d.n_include == 101;
    ddb_error err = {0};
    int rc = ddb_add_index(db, t->n.s, &d, NULL, NULL, &err);
    t->ix[t->n_ix++] = x;
    bool ok = table_ok(t);
    t->n_ix--;
    expect("UpdateTable (GSI Create)", ok, rc, &err);
    hits[H_MULTI] += x.n_pm || x.n_sm;
    hits[H_OK_MULTI] += !rc && (x.n_pm || x.n_sm);
    if (!rc)
        t->ix[t->n_ix++] = x;
}

static void req_delete_index(ddb *db)
{
    m_table *t = live_table();
    if (!t || !t->n_ix)
        return;
    size_t i = pick(t->n_ix);
    ddb_error err = {0};
    int rc = ddb_delete_index(db, t->n.s, t->ix[i].n.s, &err);
    if (t->ix[i].local) {
        if (!refused(rc))
            die("UpdateTable (GSI Delete) of LSI %s: %d", t->ix[i].n.s, rc);
        return;
    }
    if (rc)
        die("UpdateTable (GSI Delete) %s: %d %s", t->ix[i].n.s, rc, err.message);
    memmove(&t->ix[i], &t->ix[i + 1], (t->n_ix - i - 1) * sizeof *t->ix);
    t->n_ix--;
}

static void req_ttl(ddb *db)
{
    m_table *t = live_table();
    if (!t || t->ttl[0])
        return;
    name n = gen_name('E', ord++);
    if (!n.s[0]) /* "" turns TTL off */
        return;
    ddb_error err = {0};
    int rc = ddb_update_time_to_live(db, t->n.s, n.s, &err);
    expect("UpdateTimeToLive", attr_name_ok(&n), rc, &err);
    if (!rc)
        snprintf(t->ttl, sizeof t->ttl, "%s", n.s);
}

/* A put of a new item: the keys, some index keys, some projected
 * attributes; now and then without its partition key (refused). */
static void req_put(ddb *db)
{
    m_table *t = live_table();
    if (!t || t->n_items == MAX_ITEMS)
        return;
    ddb_item *it = ddb_item_new(t->a);
    char v[64];
    snprintf(v, sizeof v, "k%d", ord++);
    bool missing = edge_pct && chance(10);
    if (!missing)
        ddb_item_set_s(it, t->pk.s, v);
    if (t->has_sk)
        ddb_item_set_s(it, t->sk.s, "s");
    for (size_t i = 0; i < t->n_ix; i++) {
        const m_index *x = &t->ix[i];
        if (chance(60)) {
            const name *k[2 + 2 * DDB_MAX_KEY_ATTRS];
            size_t nk = key_names(x, k);
            /* an LSI's partition key is the table's; now and then one
             * attribute of a multi-attribute key is left out (sparse) */
            size_t skip = nk > 2 && chance(20) ? 1 + pick(nk - 1) : nk;
            for (size_t j = x->local ? 1 : 0; j < nk; j++)
                if (j != skip)
                    ddb_item_set_s(it, k[j]->s, j == 0 ? "g" : v);
        }
        if (x->n_inc && chance(50))
            ddb_item_set_s(it, x->inc[pick(x->n_inc)].s, "p");
    }
    ddb_item_set_s(it, "payload", v);
    ddb_error err = {0};
    ddb_arena *a = ddb_arena_new();
    int rc = ddb_put_item(db, t->n.s, it, NULL, a, NULL, &err);
    ddb_arena_free(a);
    expect("PutItem", !missing, rc, &err);
    if (!rc)
        t->items[t->n_items++] = it;
}

/* ---- the checks, in a fresh handle ---- */

static bool same_item(const ddb_item *x, const ddb_item *y)
{
    return x && y && ddb_value_equal(ddb_item_map(x), ddb_item_map(y));
}

static ddb_item *key_of(ddb_arena *a, const m_table *t, const ddb_item *it)
{
    ddb_item *k = ddb_item_new(a);
    ddb_item_set(k, t->pk.s, (ddb_value *)ddb_item_get(it, t->pk.s));
    if (t->has_sk)
        ddb_item_set(k, t->sk.s, (ddb_value *)ddb_item_get(it, t->sk.s));
    return k;
}

static void check_definition(ddb *db, const m_table *t, ddb_arena *a)
{
    ddb_table_desc *d;
    ddb_error err = {0};
    int rc = ddb_describe_table(db, t->n.s, a, &d, &err);
    if (rc)
        die("DescribeTable %s: %d %s", t->n.s, rc, err.message);
    const ddb_table_def *g = &d->def;
    if (strcmp(g->key.pk, t->pk.s) || !g->key.sk != !t->has_sk || (t->has_sk && strcmp(g->key.sk, t->sk.s)))
        die("DescribeTable %s: key schema differs", t->n.s);
    if (g->n_indexes != t->n_ix)
        die("DescribeTable %s: %zu indexes, %zu expected", t->n.s, g->n_indexes, t->n_ix);
    if (strcmp(g->ttl_attribute ? g->ttl_attribute : "", t->ttl))
        die("DescribeTable %s: TTL attribute differs", t->n.s);
    for (size_t i = 0; i < t->n_ix; i++) {
        const m_index *x = &t->ix[i];
        const ddb_index_def *y = NULL;
        for (size_t j = 0; j < g->n_indexes && !y; j++)
            if (!strcmp(g->indexes[j].name, x->n.s))
                y = &g->indexes[j];
        if (!y || y->local != x->local || strcmp(y->key.pk, x->pk.s) || !y->key.sk != !x->has_sk ||
            (x->has_sk && strcmp(y->key.sk, x->sk.s)) || y->projection != x->proj ||
            y->key.n_pk_more != x->n_pm || y->key.n_sk_more != x->n_sm)
            die("DescribeTable %s: index %s differs", t->n.s, x->n.s);
        for (size_t j = 0; j < x->n_pm; j++)
            if (strcmp(y->key.pk_more[j].name, x->pm[j].s) || y->key.pk_more[j].type != DDB_TS)
                die("DescribeTable %s: index %s partition-key attribute %zu differs", t->n.s, x->n.s, j + 2);
        for (size_t j = 0; j < x->n_sm; j++)
            if (strcmp(y->key.sk_more[j].name, x->sm[j].s) || y->key.sk_more[j].type != DDB_TS)
                die("DescribeTable %s: index %s sort-key attribute %zu differs", t->n.s, x->n.s, j + 2);
        size_t n = x->proj == DDB_PROJ_INCLUDE ? x->n_inc : 0;
        if (y->n_include != n)
            die("DescribeTable %s: index %s projects %zu, %zu expected", t->n.s, x->n.s, y->n_include, n);
        for (size_t j = 0; j < n; j++)
            if (strcmp(y->include[j], x->inc[j].s))
                die("DescribeTable %s: index %s projected name %zu differs", t->n.s, x->n.s, j);
    }
}

/* Does a query of index x (or the table: x NULL) for the partition of it
 * find it (by its table key)? */
/* The KeyConditionExpression of a multi-attribute index x's partition of
 * it: "#k0 = :k0 AND #k1 = :k1 ..." (names and values into a). */
static ddb_expr *partition_condition(const m_index *x, const ddb_item *it, ddb_arena *a, ddb_item **values)
{
    ddb_item *names = ddb_item_new(a);
    *values = ddb_item_new(a);
    char text[256] = "", ref[16];
    size_t o = 0;
    for (size_t j = 0; j <= x->n_pm; j++) {
        const char *attr = j ? x->pm[j - 1].s : x->pk.s;
        o += (size_t)snprintf(text + o, sizeof text - o, "%s#k%zu = :k%zu", j ? " AND " : "", j, j);
        snprintf(ref, sizeof ref, "#k%zu", j);
        ddb_item_set(names, ref, ddb_v_str(a, attr));
        ref[0] = ':';
        ddb_item_set(*values, ref, (ddb_value *)ddb_item_get(it, attr));
    }
    ddb_expr *e;
    ddb_error err = {0};
    if (ddb_expr_prepare(DDB_EXPR_KEY_CONDITION, text, names, &e, &err))
        die("KeyConditionExpression %s: %s", text, err.message);
    return e;
}

static bool query_finds(ddb *db, const m_table *t, const m_index *x, const ddb_item *it, ddb_arena *a)
{
    ddb_query_params q = {.table = t->n.s, .index = x ? x->n.s : NULL,
                          .pk = ddb_item_get(it, x ? x->pk.s : t->pk.s)};
    ddb_expr *kc = NULL;
    if (x && (x->n_pm || x->n_sm)) { /* a multi-attribute key: only a key condition names it */
        ddb_item *values;
        kc = partition_condition(x, it, a, &values);
        q = (ddb_query_params){.table = t->n.s, .index = x->n.s, .key_condition = kc, .values = values};
    }
    ddb_page page;
    ddb_error err = {0};
    bool found = false;
    do {
        int rc = ddb_query(db, &q, a, &page, &err);
        if (rc)
            die("Query %s%s%s: %d %s", t->n.s, x ? " index " : "", x ? x->n.s : "", rc, err.message);
        for (size_t i = 0; i < page.count; i++) {
            const ddb_value *p = ddb_item_get(page.items[i], t->pk.s);
            found |= p && ddb_value_equal(p, ddb_item_get(it, t->pk.s));
        }
        q.start_key = page.last_key;
    } while (page.last_key && !found);
    ddb_expr_free(kc);
    return found;
}

static void check_items(ddb *db, const m_table *t, ddb_arena *a)
{
    ddb_error err = {0};
    for (size_t i = 0; i < t->n_items; i++) {
        const ddb_item *it = t->items[i];
        ddb_item *got = NULL;
        int rc = ddb_get_item(db, t->n.s, key_of(a, t, it), NULL, a, &got, NULL, &err);
        if (rc || !same_item(got, it))
            die("GetItem %s item %zu: %d %s", t->n.s, i, rc, rc ? err.message : "differs");
        if (!query_finds(db, t, NULL, it, a))
            die("Query %s: item %zu missing", t->n.s, i);
        for (size_t j = 0; j < t->n_ix; j++) {
            const m_index *x = &t->ix[j];
            const name *k[2 + 2 * DDB_MAX_KEY_ATTRS];
            size_t nk = key_names(x, k), have = 0;
            for (size_t j = 0; j < nk; j++)
                have += ddb_item_get(it, k[j]->s) != NULL;
            if (have == nk && !query_finds(db, t, x, it, a))
                die("Query %s index %s: item %zu missing", t->n.s, x->n.s, i);
        }
    }
    size_t seen = 0;
    ddb_scan_params s = {.table = t->n.s};
    ddb_page page;
    do {
        int rc = ddb_scan(db, &s, a, &page, &err);
        if (rc)
            die("Scan %s: %d %s", t->n.s, rc, err.message);
        seen += page.count;
        s.start_key = page.last_key;
    } while (page.last_key);
    if (seen != t->n_items)
        die("Scan %s: %zu items, %zu expected", t->n.s, seen, t->n_items);
    if (!t->stream)
        return;
    /* the stream: a NEW_IMAGE of every item put */
    ddb_stream_iter *si;
    int rc = ddb_stream_iter_open(db, t->n.s, DDB_STREAM_TRIM_HORIZON, 0, &si, &err);
    if (rc)
        die("stream of %s: %d %s", t->n.s, rc, err.message);
    size_t found = 0, n;
    ddb_stream_record recs[64];
    do {
        if ((rc = ddb_stream_read(si, 64, a, recs, &n, &err)))
            die("stream of %s: %d %s", t->n.s, rc, err.message);
        for (size_t r = 0; r < n; r++)
            for (size_t i = 0; i < t->n_items; i++)
                found += same_item(recs[r].new_image, t->items[i]);
    } while (n);
    ddb_stream_iter_close(si);
    if (found != t->n_items)
        die("stream of %s: %zu of %zu items", t->n.s, found, t->n_items);
}

/* A fresh handle on the database directory (unsynced commits: durability
 * is not what this test is about, and syncs are most of its time). */
static ddb *open_dir(const char *d)
{
    char uri[700];
    snprintf(uri, sizeof uri, "file:%s", d);
    ddb *db = NULL;
    ddb_error err = {0};
    ddb_options o = {.sync = DDB_SYNC_NONE};
    if (ddb_open(uri, &o, &db, &err))
        die("ddb_open %s: %s", d, err.message);
    return db;
}

static void check_all(ddb *db)
{
    ddb_arena *a = ddb_arena_new();
    const char **names;
    size_t n, live = 0;
    ddb_error err = {0};
    if (ddb_list_tables(db, a, &names, &n, &err))
        die("ListTables: %s", err.message);
    for (size_t i = 0; i < MAX_TABLES; i++) {
        if (!tables[i].live)
            continue;
        live++;
        check_definition(db, &tables[i], a);
        check_items(db, &tables[i], a);
        ddb_arena_reset(a);
    }
    if (n != live)
        die("ListTables: %zu tables, %zu expected", n, live);
    ddb_arena_free(a);
}

static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    return system(cmd);
}

/* `ddb export` of table t, `ddb import` into a scratch database: the same
 * items come back. */
static void check_export_import_of(const m_table *t)
{
    run("rm -rf '%s'", scratch);
    char file[700], keys[700];
    snprintf(file, sizeof file, "%s.jsonl", scratch);
    snprintf(keys, sizeof keys, "%s:S%s%s%s", t->pk.s, t->has_sk ? "," : "", t->has_sk ? t->sk.s : "",
             t->has_sk ? ":S" : "");
    if (run("'%s' --db '%s' export '%s' '%s'", DDB_TOOL, dir, t->n.s, file) ||
        run("'%s' --db '%s' import '%s' '%s' --create '%s' >/dev/null", DDB_TOOL, scratch, t->n.s, file, keys))
        die("ddb export / ddb import of %s failed", t->n.s);
    ddb *db = open_dir(scratch);
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    for (size_t j = 0; j < t->n_items; j++) {
        ddb_item *got = NULL;
        if (ddb_get_item(db, t->n.s, key_of(a, t, t->items[j]), NULL, a, &got, NULL, &err) ||
            !same_item(got, t->items[j]))
            die("ddb export -> ddb import of %s: item %zu differs", t->n.s, j);
    }
    ddb_table_desc *d;
    if (ddb_describe_table(db, t->n.s, a, &d, &err) || d->item_count != t->n_items)
        die("ddb export -> ddb import of %s: %s items", t->n.s, err.message[0] ? err.message : "other");
    ddb_arena_free(a);
    ddb_close(db);
    unlink(file);
}

static void check_export_import(void)
{
    for (size_t i = 0; i < MAX_TABLES; i++)
        if (tables[i].live)
            check_export_import_of(&tables[i]);
}

/* What an accepted request changes: tables, indexes, items, TTL. */
static uint64_t model_sig(void)
{
    uint64_t sig = 0;
    for (size_t i = 0; i < MAX_TABLES; i++) {
        const m_table *t = &tables[i];
        sig = sig * 1000003u + (t->live ? 1 + t->n_ix * 7 + t->n_items * 131 + strlen(t->ttl) * 8191 : 0);
    }
    return sig;
}

/* The live tables' names, hashed (a table deleted and another created). */
static uint64_t live_names(void)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < MAX_TABLES; i++)
        for (const char *c = tables[i].live ? tables[i].n.s : ""; *c; c++)
            h = (h ^ (unsigned char)*c) * 1099511628211ull;
    return h;
}

int main(void)
{
    const char *s = getenv("DDB_PROP_SEED"), *st = getenv("DDB_PROP_STEPS");
    seed = s && *s ? strtoull(s, NULL, 10) : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    rng = seed ? seed : 1;
    int steps = st && *st ? atoi(st) : 400;
    remote = getenv("DDB_TEST_URI");
    const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    if (remote) {
        const char *sd = getenv("DDB_TEST_SERVE_DIR");
        if (!sd)
            die("DDB_TEST_SERVE_DIR (the server's database directory) is not set");
        snprintf(dir, sizeof dir, "%s", sd);
    } else {
        snprintf(dir, sizeof dir, "%s/ddbprop-%d", base, (int)getpid());
        run("rm -rf '%s'", dir);
    }
    snprintf(scratch, sizeof scratch, "%s/ddbprop-scratch-%d", base, (int)getpid());
    printf("table definition property test: seed %" PRIu64 ", %d steps, %s\n", seed, steps,
           remote ? remote : "embedded");
    ddb *db = NULL;
    ddb_error err = {0};
    if (remote && ddb_open(remote, NULL, &db, &err))
        die("ddb_open %s: %s", remote, err.message);
    if (!remote)
        db = open_dir(dir);
    int accepted = 0;
    for (step = 0; step < steps; step++) {
        size_t r = pick(100);
        edge_pct = chance(50) ? 0 : 30;
        int lived = 0;
        for (size_t i = 0; i < MAX_TABLES; i++)
            lived += tables[i].live;
        uint64_t sig = model_sig(), sig_tables = live_names();
        if (r < 30 || !lived)
            req_create(db);
        else if (r < 42)
            req_delete(db);
        else if (r < 52)
            req_add_index(db);
        else if (r < 57)
            req_delete_index(db);
        else if (r < 62)
            req_ttl(db);
        else
            req_put(db);
        if (sig == model_sig() && sig_tables == live_names())
            continue; /* refused (as the model expected): nothing to check */
        accepted++;
        if (!remote) {
            ddb_close(db);
            db = open_dir(dir);
            check_all(db);
        } else {
            ddb *fresh = open_dir(dir);
            check_all(fresh);
            ddb_close(fresh);
        }
        if (accepted % 25 == 0)
            check_export_import();
    }
    check_export_import();
    ddb_close(db);
    for (size_t i = 0; i < MAX_TABLES; i++)
        if (tables[i].live)
            drop_model(&tables[i]);
    if (!remote)
        run("rm -rf '%s'", dir);
    run("rm -rf '%s'", scratch);
    printf("ok: %d requests, %d accepted, each checked in a fresh handle; reached:", steps, accepted);
    for (int i = 0; i < H_N; i++)
        printf(" %s %u%s", hit_names[i], hits[i], i + 1 < H_N ? "," : "\n");
    return 0;
}
