/* Entity room: a table's migration history, kept in the table itself.
 * When a migration ends (entity_migrate.c), or a model is recorded as the
 * baseline, an entry is appended: an item of the reserved partition key
 *
 *   "DDBGEN#MIGRATION#<seq, 10 digits>"      sort key "MIGRATION" (0 when a number)
 *
 * holding the plan id, the UTC time, the libddb version, the steps and
 * counts, and the schema model the data now is in (ddbgen's model JSON):
 * its first HISTORY_PART bytes in the entry ("model"), the rest in part
 * items "DDBGEN#MIGRATION#<seq>#<part, 3 digits>", with its size, number
 * of parts and FNV-1a hash so that a reader knows it has all of it.
 * Entries are numbered from 1 without gaps: the last one is found by
 * doubling then halving (a few GetItems), and an entry is put only where
 * there is none (attribute_not_exists), after its parts.  Everything read
 * back is bounded (DDB_ENT_MODEL_MAX, the part count, each part's size)
 * before it is used.  ddb_ent_migration_status reads the last entries with
 * the migration in progress (its checkpoint) and the data's model version.
 * Calls the public item, table and metadata API, the clock, and this
 * room's checkpoints. */
#include "entity/migrate/entity_migrate.h"

#include "core/error.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define HISTORY_PREFIX "DDBGEN#MIGRATION#"
#define HISTORY_SK "MIGRATION"
#define HISTORY_TYPE "ddb:migration"
#define HISTORY_PART 350000u /* model bytes an item holds: DynamoDB's items are at most 400 KB */
#define HISTORY_PARTS_MAX ((DDB_ENT_MODEL_MAX + HISTORY_PART - 1) / HISTORY_PART)
#define HISTORY_SHOWN 10     /* entries ddb_ent_migration_status returns */
#define HISTORY_SEQ_MAX 9999999999ull
#define MODEL_LOOKBACK 1000  /* entries searched back for the last recorded model */

static uint64_t fnv1a(const char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
    return h;
}

/* The key of entry seq's part (0: the entry itself) in table t, in a. */
static int history_key(const ddb_table_def *t, uint64_t seq, uint32_t part, ddb_arena *a, ddb_item **out,
                       ddb_error *err)
{
    char text[64];
    if (part)
        snprintf(text, sizeof text, HISTORY_PREFIX "%010" PRIu64 "#%03" PRIu32, seq, part);
    else
        snprintf(text, sizeof text, HISTORY_PREFIX "%010" PRIu64, seq);
    if (t->key.pk_type == DDB_TN)
        return ddbi_fail(err, DDB_EVALIDATION,
                         "table %s: its partition key %s is a number, and the migration history is kept in items "
                         "keyed by text (\"" HISTORY_PREFIX "...\")",
                         t->name, t->key.pk);
    ddb_item *k = ddb_item_new(a);
    ddb_value *pk = t->key.pk_type == DDB_TB ? ddb_v_b(a, text, strlen(text)) : ddb_v_str(a, text);
    ddb_value *sk = !t->key.sk ? NULL
                    : t->key.sk_type == DDB_TN ? ddb_v_i64(a, 0)
                    : t->key.sk_type == DDB_TB ? ddb_v_b(a, HISTORY_SK, strlen(HISTORY_SK))
                                               : ddb_v_str(a, HISTORY_SK);
    if (!k || !pk || (t->key.sk && !sk) || ddb_item_set(k, t->key.pk, pk) || (sk && ddb_item_set(k, t->key.sk, sk)))
        return ddbi_fail_oom(err, __func__);
    *out = k;
    return DDB_OK;
}

/* Entry seq's part (0: the entry) of table t, or NULL (*out) when absent. */
static int history_get(ddb *db, const ddb_table_def *t, uint64_t seq, uint32_t part, ddb_arena *a, ddb_item **out,
                       ddb_error *err)
{
    ddb_item *k = NULL;
    *out = NULL;
    int rc = history_key(t, seq, part, a, &k, err);
    if (!rc)
        rc = ddb_get_item(db, t->name, k, &(ddb_get_opts){.consistent = true}, a, out, NULL, err);
    if (rc == DDB_ENOTFOUND) {
        *out = NULL;
        rc = DDB_OK;
    }
    return rc;
}

/* The number of the last entry of t (0: none): entries are 1..n without gaps. */
static int history_last(ddb *db, const ddb_table_def *t, ddb_arena *a, uint64_t *n, ddb_error *err)
{
    uint64_t lo = 0, hi = 1; /* entry lo exists (or lo is 0), entry hi is to be seen */
    ddb_item *it;
    int rc;
    for (;;) { /* doubling: hi absent */
        if ((rc = history_get(db, t, hi, 0, a, &it, err)))
            return rc;
        if (!it)
            break;
        lo = hi;
        if (hi > HISTORY_SEQ_MAX / 2)
            return ddbi_fail(err, DDB_ECORRUPT, "table %s: the migration history has more than %llu entries",
                             t->name, (unsigned long long)HISTORY_SEQ_MAX / 2);
        hi *= 2;
    }
    while (hi - lo > 1) { /* halving: lo present, hi absent */
        uint64_t mid = lo + (hi - lo) / 2;
        if ((rc = history_get(db, t, mid, 0, a, &it, err)))
            return rc;
        if (it)
            lo = mid;
        else
            hi = mid;
    }
    *n = lo;
    return DDB_OK;
}

static int set_u64(ddb_item *it, const char *name, uint64_t v, ddb_arena *a)
{
    ddb_value *x = ddb_v_u64(a, v);
    return x ? ddb_item_set(it, name, x) : DDB_ENOMEM;
}

/* Append an entry to t's history: id, the counts of cp (NULL: none), the
 * model (may be NULL).  type_attr (may be NULL) gets HISTORY_TYPE. */
static int history_append(ddb *db, const ddb_table_def *t, const char *type_attr, const char *id,
                          const ddbi_ent_checkpoint *cp, const char *model, size_t len, ddb_error *err)
{
    if (model && len > DDB_ENT_MODEL_MAX)
        return ddbi_fail(err, DDB_ELIMIT, "table %s: the schema model is %zu bytes, more than the %u a migration "
                                          "history entry records",
                         t->name, len, DDB_ENT_MODEL_MAX);
    ddb_arena *a = ddb_arena_new();
    if (!a)
        return ddbi_fail_oom(err, __func__);
    uint64_t n = 0;
    int rc = history_last(db, t, a, &n, err);
    uint32_t parts = model && len ? (uint32_t)((len + HISTORY_PART - 1) / HISTORY_PART) : 0;
    ddb_expr *absent = NULL;
    ddb_item *names = ddb_item_new(a);
    if (!rc && (!names || ddb_item_set_s(names, "#k", t->key.pk)))
        rc = ddbi_fail_oom(err, __func__);
    if (!rc)
        rc = ddb_expr_prepare(DDB_EXPR_CONDITION, "attribute_not_exists(#k)", names, &absent, err);
    char when[32] = "?";
    time_t now = (time_t)(ddb_clock_ms(db) / 1000);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    char hash[17];
    snprintf(hash, sizeof hash, "%016" PRIx64, model ? fnv1a(model, len) : 0);
    /* another writer may take the number: the next one then (a few tries) */
    for (int tries = 0; !rc && tries < 8; tries++) {
        uint64_t seq = ++n;
        for (uint32_t p = 1; !rc && p < parts; p++) { /* the parts first: an entry is complete when seen */
            ddb_item *it = NULL;
            size_t off = (size_t)p * HISTORY_PART, m = len - off < HISTORY_PART ? len - off : HISTORY_PART;
            if (!(rc = history_key(t, seq, p, a, &it, err)) && ddb_item_set_b(it, "model", model + off, m))
                rc = ddbi_fail_oom(err, __func__);
            if (!rc)
                rc = ddb_put_item(db, t->name, it, NULL, NULL, NULL, err);
        }
        ddb_item *e = NULL;
        if (!rc)
            rc = history_key(t, seq, 0, a, &e, err);
        if (!rc && ((type_attr && ddb_item_set_s(e, type_attr, HISTORY_TYPE)) || ddb_item_set_s(e, "plan", id) ||
                    ddb_item_set_s(e, "result", "ok") || ddb_item_set_s(e, "at", when) ||
                    ddb_item_set_s(e, "libddb", DDB_VERSION_STRING) || set_u64(e, "steps", cp ? cp->n_steps : 0, a) ||
                    set_u64(e, "scanned", cp ? cp->scanned : 0, a) || set_u64(e, "moved", cp ? cp->moved : 0, a) ||
                    set_u64(e, "rewritten", cp ? cp->rewritten : 0, a) ||
                    set_u64(e, "unchanged", cp ? cp->unchanged : 0, a) ||
                    set_u64(e, "deleted", cp ? cp->deleted : 0, a) || set_u64(e, "claimed", cp ? cp->claimed : 0, a) ||
                    set_u64(e, "model_bytes", parts ? len : 0, a) || set_u64(e, "model_parts", parts, a) ||
                    (parts && (ddb_item_set_s(e, "model_fnv", hash) ||
                               ddb_item_set_b(e, "model", model, len < HISTORY_PART ? len : HISTORY_PART)))))
            rc = ddbi_fail_oom(err, __func__);
        if (!rc)
            rc = ddb_put_item(db, t->name, e, &(ddb_write_opts){.condition = absent}, NULL, NULL, err);
        if (rc != DDB_ECONDITION)
            break;
        rc = history_last(db, t, a, &n, err);
    }
    ddb_expr_free(absent);
    ddb_arena_free(a);
    return rc;
}

int ddbi_ent_history_add(ddb *db, const ddb_schema_table *t, const ddbi_ent_checkpoint *cp, const char *model,
                         size_t len, ddb_error *err)
{
    return history_append(db, &t->def, t->type_attr, cp->id, cp, model, len, err);
}

/* Table def of table (in a). */
static int table_def(ddb *db, const char *table, ddb_arena *a, const ddb_table_def **out, ddb_error *err)
{
    ddb_table_desc *d;
    int rc = ddb_describe_table(db, table, a, &d, err);
    *out = rc ? NULL : &d->def;
    return rc;
}

int ddb_ent_migration_baseline(ddb *db, const char *table, const char *model, size_t len, ddb_error *err)
{
    if (!db || !table || !model || !len)
        return ddbi_fail(err, DDB_EINVAL, "ddb_ent_migration_baseline: db, table and a model are required");
    ddb_arena *a = ddb_arena_new();
    if (!a)
        return ddbi_fail_oom(err, __func__);
    const ddb_table_def *t;
    int rc = table_def(db, table, a, &t, err);
    if (!rc)
        rc = history_append(db, t, NULL, "baseline", NULL, model, len, err);
    ddb_arena_free(a);
    return rc;
}

/* A string attribute of it, or "?" (in it's arena). */
static const char *attr_text(const ddb_item *it, const char *name)
{
    const ddb_value *v = ddb_item_get(it, name);
    return v && v->type == DDB_TS ? v->u.s : "?";
}

static uint64_t attr_u64(const ddb_item *it, const char *name)
{
    int64_t x = 0;
    const ddb_value *v = ddb_item_get(it, name);
    return v && !ddb_value_to_i64(v, &x) && x > 0 ? (uint64_t)x : 0;
}

static void record_of(const ddb_item *it, uint64_t seq, ddb_ent_migration_record *r)
{
    *r = (ddb_ent_migration_record){.seq = seq, .id = attr_text(it, "plan"), .at = attr_text(it, "at"),
                                    .libddb = attr_text(it, "libddb"), .n_steps = (uint32_t)attr_u64(it, "steps"),
                                    .scanned = attr_u64(it, "scanned"), .moved = attr_u64(it, "moved"),
                                    .rewritten = attr_u64(it, "rewritten"), .unchanged = attr_u64(it, "unchanged"),
                                    .deleted = attr_u64(it, "deleted"), .claimed = attr_u64(it, "claimed"),
                                    .model_bytes = attr_u64(it, "model_bytes")};
}

/* The model of entry e (seq) of t, every part checked, in a. */
static int model_of(ddb *db, const ddb_table_def *t, const ddb_item *e, uint64_t seq, ddb_arena *a, char **out,
                    size_t *len, ddb_error *err)
{
    uint64_t bytes = attr_u64(e, "model_bytes"), parts = attr_u64(e, "model_parts");
    const char *hash = attr_text(e, "model_fnv");
    if (bytes > DDB_ENT_MODEL_MAX || parts != (bytes + HISTORY_PART - 1) / HISTORY_PART || parts > HISTORY_PARTS_MAX)
        return ddbi_fail(err, DDB_ECORRUPT, "table %s: migration history entry %" PRIu64 " says its model is %" PRIu64
                                            " bytes in %" PRIu64 " parts (at most %u bytes, %u to a part)",
                         t->name, seq, bytes, parts, DDB_ENT_MODEL_MAX, HISTORY_PART);
    char *m = ddb_arena_alloc(a, (size_t)bytes + 1);
    if (!m)
        return ddbi_fail_oom(err, __func__);
    int rc = DDB_OK;
    for (uint32_t p = 0; !rc && p < parts; p++) {
        const ddb_item *it = e;
        ddb_item *got = NULL;
        if (p && !(rc = history_get(db, t, seq, p, a, &got, err)))
            it = got;
        if (rc)
            break;
        const ddb_value *v = it ? ddb_item_get(it, "model") : NULL;
        size_t off = (size_t)p * HISTORY_PART, want = bytes - off < HISTORY_PART ? (size_t)bytes - off : HISTORY_PART;
        if (!v || v->type != DDB_TB || v->len != want)
            rc = ddbi_fail(err, DDB_ECORRUPT, "table %s: part %" PRIu32 " of the model of migration history entry "
                                              "%" PRIu64 " is %s (%zu bytes expected)",
                           t->name, p, seq, !it ? "missing" : !v || v->type != DDB_TB ? "not binary" : "of another size",
                           want);
        else
            memcpy(m + off, v->u.b, want);
    }
    char got[17];
    snprintf(got, sizeof got, "%016" PRIx64, fnv1a(m, (size_t)bytes));
    if (!rc && strcmp(got, hash))
        rc = ddbi_fail(err, DDB_ECORRUPT, "table %s: the model of migration history entry %" PRIu64
                                          " does not match its hash (%s recorded, %s read)",
                       t->name, seq, hash, got);
    m[bytes] = '\0';
    *out = m;
    *len = (size_t)bytes;
    return rc;
}

/* The last entry of t (numbered below from) that records a model: *seq 0 when none. */
static int last_with_model(ddb *db, const ddb_table_def *t, uint64_t from, ddb_arena *a, ddb_item **e, uint64_t *seq,
                           ddb_error *err)
{
    *seq = 0;
    for (uint64_t s = from; s >= 1 && from - s < MODEL_LOOKBACK; s--) {
        int rc = history_get(db, t, s, 0, a, e, err);
        if (rc)
            return rc;
        if (*e && attr_u64(*e, "model_bytes")) {
            *seq = s;
            return DDB_OK;
        }
    }
    return DDB_OK;
}

int ddb_ent_migration_model(ddb *db, const char *table, ddb_arena *a, const char **out, size_t *out_len,
                            ddb_ent_migration_record *out_entry, ddb_error *err)
{
    if (!db || !table || !a || !out || !out_len)
        return ddbi_fail(err, DDB_EINVAL, "ddb_ent_migration_model: db, table, arena, out and out_len are required");
    *out = NULL;
    *out_len = 0;
    const ddb_table_def *t;
    uint64_t n = 0, seq = 0;
    ddb_item *e = NULL;
    char *m = NULL;
    int rc = table_def(db, table, a, &t, err);
    if (!rc)
        rc = history_last(db, t, a, &n, err);
    if (!rc)
        rc = last_with_model(db, t, n, a, &e, &seq, err);
    if (!rc && !seq)
        rc = ddbi_fail(err, DDB_ENOTFOUND, "table %s: its migration history (%" PRIu64 " entries) records no schema "
                                           "model: record the deployed one first (ddb migrate baseline %s "
                                           "MODEL.json, from ddbgen --emit-model)",
                       table, n, table);
    if (!rc)
        rc = model_of(db, t, e, seq, a, &m, out_len, err);
    if (!rc && out_entry)
        record_of(e, seq, out_entry);
    *out = rc ? NULL : m;
    return rc;
}

/* The text of metadata key (NULL when absent or empty), in a. */
static int meta_text(ddb *db, const char *table, const char *key, ddb_arena *a, const char **out, ddb_error *err)
{
    void *v;
    size_t len;
    *out = NULL;
    int rc = ddb_table_meta_get(db, table, key, a, &v, &len, err);
    if (rc == DDB_ENOTFOUND || (!rc && !len))
        return DDB_OK;
    if (rc)
        return rc;
    char *s = ddb_arena_alloc(a, len + 1);
    if (!s)
        return ddbi_fail_oom(err, __func__);
    memcpy(s, v, len);
    s[len] = '\0';
    *out = s;
    return DDB_OK;
}

/* The last HISTORY_SHOWN entries of t into st, and the last with a model. */
static int history_read(ddb *db, const ddb_table_def *t, ddb_arena *a, ddb_ent_migration_state *st, ddb_error *err)
{
    uint64_t n = 0;
    int rc = t->key.pk_type == DDB_TN ? DDB_OK : history_last(db, t, a, &n, err);
    if (rc || !n)
        return rc;
    size_t shown = n < HISTORY_SHOWN ? (size_t)n : HISTORY_SHOWN;
    ddb_ent_migration_record *h = ddb_arena_alloc(a, (shown + 1) * sizeof *h);
    if (!h)
        return ddbi_fail_oom(err, __func__);
    for (size_t i = 0; !rc && i < shown; i++) {
        uint64_t seq = n - shown + 1 + i;
        ddb_item *it;
        if (!(rc = history_get(db, t, seq, 0, a, &it, err)) && it)
            record_of(it, seq, &h[st->n_history++]);
    }
    ddb_item *e = NULL;
    uint64_t seq = 0;
    if (!rc)
        rc = last_with_model(db, t, n, a, &e, &seq, err);
    if (!rc && seq) {
        record_of(e, seq, &h[shown]);
        st->model_entry = &h[shown];
    }
    st->n_recorded = n;
    st->history = h;
    return rc;
}

int ddb_ent_migration_status(ddb *db, const char *table, ddb_arena *a, ddb_ent_migration_state *st, ddb_error *err)
{
    if (!db || !table || !a || !st)
        return ddbi_fail(err, DDB_EINVAL, "ddb_ent_migration_status: db, table, arena and state are required");
    memset(st, 0, sizeof *st);
    ddbi_ent_checkpoint cp;
    bool found;
    const ddb_table_def *t;
    int rc = table_def(db, table, a, &t, err);
    if (!rc)
        rc = ddbi_ent_checkpoint_get(db, table, a, &cp, &found, err);
    if (!rc)
        rc = meta_text(db, table, DDB_ENT_MODEL_META, a, &st->model, err);
    if (!rc)
        rc = history_read(db, t, a, st, err);
    if (rc)
        return rc;
    if (found) {
        st->in_progress = true;
        st->id = cp.id;
        st->step = cp.step < cp.n_steps ? cp.step + 1 : cp.n_steps;
        st->n_steps = cp.n_steps;
        st->scanned = cp.scanned;
        st->moved = cp.moved;
        st->rewritten = cp.rewritten;
        st->unchanged = cp.unchanged;
        st->deleted = cp.deleted;
        st->claimed = cp.claimed;
        st->capacity = cp.capacity;
    }
    return DDB_OK;
}
