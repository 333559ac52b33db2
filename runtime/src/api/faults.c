/* api/: injected faults (ddb_fault_inject, <ddb/ddb.h>): rules a test adds
 * to a handle so that chosen item operations fail as the service would
 * (throttled, a failed condition, a cancelled transaction with reasons, an
 * unknown outcome).  The entry points of items.c, query.c, batches.c and
 * records.c ask ddbi_fault_check before calling the backend, so a rule
 * acts the same on every backend and on every typed operation of a
 * generated module.  Rules live in the handle, behind their own mutex.
 * Calls core/ only. */
#include "api/api.h"
#include "core/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most rules one handle holds. */
#define MAX_RULES 32

typedef struct rule {
    ddb_fault f;       /* table and reasons point into the copies below */
    char *table;
    int *reasons;
    uint32_t fired;    /* operations this rule has failed */
    uint64_t rng;      /* splitmix64 state (fraction) */
} rule;

struct ddbi_faults {
    pthread_mutex_t mu;
    rule rules[MAX_RULES];
    size_t n;
    uint64_t fired;
};

/* splitmix64: a uniform double in [0, 1). */
static double next_unit(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740992.0; /* 2^53 */
}

static void rule_free(rule *r)
{
    free(r->table);
    free(r->reasons);
    memset(r, 0, sizeof *r);
}

static int check_rule(const ddb_fault *f, ddb_error *err)
{
    if (f->code >= 0 || f->code < DDB_ELAST)
        return ddbi_fail(err, DDB_EINVAL, "ddb_fault_inject: code %d is not a DDB_E* error", f->code);
    if (!f->count && !f->fraction)
        return ddbi_fail(err, DDB_EINVAL, "ddb_fault_inject: a fault needs a count or a fraction");
    if (!(f->fraction >= 0 && f->fraction <= 1))
        return ddbi_fail(err, DDB_EINVAL, "ddb_fault_inject: fraction %g is outside (0, 1]", f->fraction);
    uint32_t ops = f->ops ? f->ops : DDB_OP_READS | DDB_OP_WRITES;
    if (f->code == DDB_ECANCELED && ops != DDB_OP_TRANSACT_WRITE)
        return ddbi_fail(err, DDB_EINVAL,
                         "ddb_fault_inject: DDB_ECANCELED is TransactWriteItems' answer: set ops to "
                         "DDB_OP_TRANSACT_WRITE");
    if (f->code == DDB_EUNKNOWN && (ops & DDB_OP_READS))
        return ddbi_fail(err, DDB_EINVAL, "ddb_fault_inject: DDB_EUNKNOWN is the answer of a write: ops names reads");
    if (f->processed && (f->code != DDB_ETHROTTLED || (ops != DDB_OP_BATCH_WRITE && ops != DDB_OP_BATCH_GET)))
        return ddbi_fail(err, DDB_EINVAL,
                         "ddb_fault_inject: processed is for DDB_ETHROTTLED on DDB_OP_BATCH_WRITE or "
                         "DDB_OP_BATCH_GET (a batch left partly unprocessed)");
    if (f->n_reasons && !f->reasons)
        return ddbi_fail(err, DDB_EINVAL, "ddb_fault_inject: n_reasons is %zu but reasons is NULL", f->n_reasons);
    return DDB_OK;
}

int ddb_fault_inject(ddb *db, const ddb_fault *f, ddb_error *err)
{
    if (!db || !f)
        return ddbi_fail(err, DDB_EINVAL, "ddb_fault_inject: db and fault are required");
    int rc = check_rule(f, err);
    if (rc)
        return rc;
    pthread_mutex_lock(&db->mu);
    struct ddbi_faults *fs = __atomic_load_n(&db->faults, __ATOMIC_ACQUIRE);
    if (!fs && (fs = calloc(1, sizeof *fs)) != NULL) {
        pthread_mutex_init(&fs->mu, NULL);
        __atomic_store_n(&db->faults, fs, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&db->mu);
    if (!fs)
        return ddbi_fail_oom(err, "ddb_fault_inject");
    pthread_mutex_lock(&fs->mu);
    rule *r = fs->n < MAX_RULES ? &fs->rules[fs->n] : NULL;
    if (!r) {
        rc = ddbi_fail(err, DDB_ELIMIT, "ddb_fault_inject: a handle holds at most %d rules", MAX_RULES);
    } else {
        r->f = *f;
        r->rng = f->seed;
        r->table = f->table ? strdup(f->table) : NULL;
        r->reasons = f->n_reasons ? malloc(f->n_reasons * sizeof *r->reasons) : NULL;
        if ((f->table && !r->table) || (f->n_reasons && !r->reasons)) {
            rule_free(r);
            rc = ddbi_fail_oom(err, "ddb_fault_inject");
        } else {
            if (f->n_reasons)
                memcpy(r->reasons, f->reasons, f->n_reasons * sizeof *r->reasons);
            r->f.table = r->table;
            r->f.reasons = r->reasons;
            fs->n++;
        }
    }
    pthread_mutex_unlock(&fs->mu);
    return rc;
}

void ddb_fault_clear(ddb *db)
{
    struct ddbi_faults *fs = db ? __atomic_load_n(&db->faults, __ATOMIC_ACQUIRE) : NULL;
    if (!fs)
        return;
    pthread_mutex_lock(&fs->mu);
    for (size_t i = 0; i < fs->n; i++)
        rule_free(&fs->rules[i]);
    fs->n = 0;
    pthread_mutex_unlock(&fs->mu);
}

uint64_t ddb_fault_fired(ddb *db)
{
    struct ddbi_faults *fs = db ? __atomic_load_n(&db->faults, __ATOMIC_ACQUIRE) : NULL;
    if (!fs)
        return 0;
    pthread_mutex_lock(&fs->mu);
    uint64_t n = fs->fired;
    pthread_mutex_unlock(&fs->mu);
    return n;
}

void ddbi_faults_free(ddb *db)
{
    if (!db->faults)
        return;
    ddb_fault_clear(db);
    pthread_mutex_destroy(&db->faults->mu);
    free(db->faults);
    db->faults = NULL;
}

/* Does rule r name call c's table (any of a batch's or transaction's)? */
static bool names_table(const rule *r, const ddbi_fault_call *c)
{
    if (!r->table)
        return true;
    if (c->table)
        return !strcmp(c->table, r->table);
    for (size_t i = 0; i < c->n; i++) {
        const char *t = *(const char *const *)((const char *)c->reqs + i * c->stride + c->table_off);
        if (t && !strcmp(t, r->table))
            return true;
    }
    return false;
}

/* DynamoDB's name of a cancellation reason (CancellationReasons[i].Code). */
static const char *reason_name(int code)
{
    switch (code) {
    case DDB_OK: return "None";
    case DDB_ECONDITION: return "ConditionalCheckFailed";
    case DDB_ETHROTTLED: return "ThrottlingError";
    case DDB_EVALIDATION: return "ValidationError";
    case DDB_ELIMIT: return "ItemCollectionSizeLimitExceeded";
    default: return "TransactionConflict";
    }
}

/* A cancelled transaction: res->reasons from r (arena memory), and
 * DynamoDB's message listing them. */
static int cancel(const rule *r, const ddbi_fault_call *c, ddb_error *err)
{
    int *reasons = c->res && c->a ? ddb_arena_alloc(c->a, (c->n ? c->n : 1) * sizeof *reasons) : NULL;
    ddb_item **items = c->res && c->a ? ddb_arena_alloc(c->a, (c->n ? c->n : 1) * sizeof *items) : NULL;
    char list[200] = "";
    size_t w = 0;
    for (size_t i = 0; i < c->n; i++) {
        int code = r->f.reasons ? (i < r->f.n_reasons ? r->f.reasons[i] : DDB_OK) : (i ? DDB_OK : DDB_ECONDITION);
        if (reasons)
            reasons[i] = code;
        if (items)
            items[i] = NULL;
        if (w < sizeof list)
            w += (size_t)snprintf(list + w, sizeof list - w, "%s%s", i ? ", " : "", reason_name(code));
    }
    if (reasons && items) {
        c->res->reasons = reasons;
        c->res->items = items;
    }
    return ddbi_fail(err, DDB_ECANCELED,
                     "Transaction cancelled, please refer cancellation reasons for specific reasons [%s] (injected "
                     "fault)",
                     list);
}

/* Fail call c as rule r says (r's lock held). */
static int fail(const rule *r, const ddbi_fault_call *c, ddb_error *err)
{
    const char *t = c->table ? c->table : r->table;
    switch (r->f.code) {
    case DDB_ETHROTTLED:
        return ddbi_fail(err, DDB_ETHROTTLED,
                         "%s%s%s: The level of configured provisioned throughput for the table was exceeded. Consider "
                         "increasing your provisioning level with the UpdateTable API. (injected fault)",
                         c->what, t ? " on " : "", t ? t : "");
    case DDB_ECONDITION:
        return ddbi_fail(err, DDB_ECONDITION, "%s%s%s: The conditional request failed (injected fault)", c->what,
                         t ? " on " : "", t ? t : "");
    case DDB_ECANCELED:
        return cancel(r, c, err);
    case DDB_EUNKNOWN:
        return ddbi_fail(err, DDB_EUNKNOWN, "%s%s%s: the request was sent but its answer was lost; the outcome is "
                                            "unknown (injected fault)",
                         c->what, t ? " on " : "", t ? t : "");
    default:
        return ddbi_fail(err, r->f.code, "%s%s%s: %s (injected fault)", c->what, t ? " on " : "", t ? t : "",
                         ddb_strerror(r->f.code));
    }
}

int ddbi_fault_check(ddb *db, ddbi_fault_call *c, bool *after, ddb_error *err)
{
    *after = false;
    struct ddbi_faults *fs = __atomic_load_n(&db->faults, __ATOMIC_ACQUIRE);
    if (!fs)
        return DDB_OK;
    int rc = DDB_OK;
    pthread_mutex_lock(&fs->mu);
    for (size_t i = 0; i < fs->n; i++) {
        rule *r = &fs->rules[i];
        uint32_t ops = r->f.ops ? r->f.ops : DDB_OP_READS | DDB_OP_WRITES;
        if (!(ops & c->op) || !names_table(r, c) || (r->f.count && r->fired >= r->f.count))
            continue;
        if (r->f.fraction > 0 && next_unit(&r->rng) >= r->f.fraction)
            break; /* drawn: this operation goes through */
        r->fired++;
        fs->fired++;
        if (r->f.code == DDB_EUNKNOWN && r->f.applied)
            *after = true; /* carried out, then the answer is lost */
        else if (r->f.processed && r->f.processed < c->n)
            *after = true, c->processed = r->f.processed; /* the rest left unprocessed */
        else
            rc = fail(r, c, err);
        break;
    }
    pthread_mutex_unlock(&fs->mu);
    return rc;
}

int ddbi_fault_read_many(ddb *db, unsigned op, const char *what, const void *reqs, size_t n, size_t stride,
                         size_t table_off, ddb_error *err)
{
    ddbi_fault_call fc = {.op = op, .what = what, .reqs = reqs, .n = n, .stride = stride, .table_off = table_off};
    bool after;
    return ddbi_fault_check(db, &fc, &after, err);
}

int ddbi_fault_after(const ddbi_fault_call *c, bool after, int rc, ddb_error *err)
{
    if (!after || rc)
        return rc; /* no fault, or it failed by itself */
    if (c->processed)
        return ddbi_fail(err, DDB_ETHROTTLED, "%s: %zu of %zu requests still unprocessed (injected fault)", c->what,
                         c->n - c->processed, c->n);
    return ddbi_fail(err, DDB_EUNKNOWN,
                     "%s%s%s: the write was applied but its answer was lost; the outcome is unknown (injected fault)",
                     c->what, c->table ? " on " : "", c->table ? c->table : "");
}
