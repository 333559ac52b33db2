/* Crash safety: a writer process is killed with SIGKILL at random moments;
 * after each kill the database is reopened and must hold every
 * acknowledged write, and every index must agree with its table.
 *
 * The writer (a forked child) runs WRITER_THREADS threads on one handle, so
 * group commit batches their writes into shared transactions.  Each thread
 * owns a disjoint set of keys and, per operation, sends the parent over a
 * pipe an INTENT record, performs the operation, and once the call has
 * returned DDB_OK sends an ACK.  An operation is a put or a delete, or, one
 * time in four, a ddb_transact_write of 2 to 5 puts, deletes and updates on
 * distinct keys of the thread (one record lists them all).  Records are
 * smaller than PIPE_BUF, so each write() is atomic and records never
 * interleave.
 *
 * After the kill the parent knows, per key, the state after the last
 * acknowledged operation, and for each thread at most one operation in
 * flight (INTENT without ACK: it may or may not have committed).  So:
 *   - a key without an operation in flight holds exactly its last
 *     acknowledged state (the acknowledged item, attribute for attribute,
 *     or no item after an acknowledged delete); an acknowledged
 *     transaction's effects are all there;
 *   - the keys of the operation in flight hold either all their previous
 *     states or all the operation's results, nothing else (a transaction is
 *     all or nothing; a key whose result equals its previous state fits
 *     both);
 *   - the table holds no other items, ddb_check_table() is clean (every
 *     record decodes, per-partition statistics match, every GSI/LSI has
 *     exactly the entries its items call for), and the index entry count
 *     equals what the expected items call for;
 *   - a scan of each index returns exactly the expected items.
 * The state carries over from round to round, so older data is re-verified
 * after every later crash.
 *
 * Sync modes: DDB_SYNC_FULL, DDB_SYNC_LAZY and DDB_SYNC_NONE all promise
 * that an acknowledged write survives a *process* crash (the committed pages
 * are in the OS page cache when the call returns), which is what SIGKILL
 * simulates and all three are tested.
 *
 * Power loss (run as "test_crash power", ctest test_power_loss): the
 * writer runs under the power-loss shim (tests/durability/powerloss_shim.c,
 * LD_PRELOADed), which keeps a copy of each database file as of its last
 * successful sync, and of its name only once the directory was synced.
 * After the kill that copy, the disk as a power loss would leave it, is
 * verified and the next round starts from it.  The first round creates the
 * database under the shim (so its files and directory must have been
 * synced).  What each mode promises after a power loss (ddb.h), per
 * writer thread, whose operations reach the disk in order:
 *   - DDB_SYNC_FULL: every acknowledged operation (as for a process crash);
 *   - the same with one injected failed sync (the shim fails the n-th sync
 *     with EIO and drops its pages, as Linux does): the operation that gets
 *     DDB_EUNKNOWN ("the outcome of this commit is unknown": it was
 *     written when the sync failed) counts as in flight, one that gets
 *     DDB_EIO (its commit failed first) must be absent, and the thread's
 *     next write must be refused ("a sync failed; reopen the database");
 *   - DDB_SYNC_LAZY: "the last committed transactions may be lost": a
 *     batch's meta page is synced by the next commit that writes anything,
 *     and a thread has at most one operation per batch, so its last
 *     acknowledged operation that wrote something may be missing (with the
 *     ones after it, which wrote nothing), nothing before it;
 *   - DDB_SYNC_NONE: only what ddb_sync() made durable: a thread of the
 *     writer calls it in a loop, and every operation acknowledged before a
 *     ddb_sync() that then returned DDB_OK must be there.  A power loss
 *     during ddb_sync() may corrupt the file (ddb.h): each sync of the
 *     shim is all or nothing in this mode (in the others a kill during a
 *     sync leaves part of it on the disk, which FULL and LAZY survive).
 * In every case a thread's keys show the state after some prefix of its
 * operations (a transaction is all or nothing), ddb_check_table() is clean
 * and the indexes agree.
 *
 * The table splits partitions early (small partition_split_bytes), so
 * splits happen under group commit and are interrupted too.
 *
 * Environment: DDB_CRASH_ROUNDS (default 40 per sync mode), DDB_CRASH_SEED
 * (default fixed; every failure message names seed, mode and round).  The
 * seed fixes each thread's operations, the items' contents and the kill
 * delays; thread interleaving and so the exact kill point stay
 * timing-dependent, so to chase a failure rerun its seed with more rounds. */
#include <ddb/ddb.h>

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <dlfcn.h>
#include <sys/stat.h>

#include "../durability/powerloss_shim.h"

#define TABLE "Crash"
#define WRITER_THREADS 4
#define KEYS_PER_THREAD 48
#define DEFAULT_ROUNDS 40
#define DEFAULT_SEED 0x5eed2024u
#define MAP_SIZE ((uint64_t)1 << 30)
#define SPLIT_BYTES (48u * 1024u)
#define TX_OPS_MAX 5 /* actions of one transaction */

/* ---- deterministic randomness ---- */

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static uint64_t mix(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    uint64_t s = a;
    splitmix(&s);
    s ^= b * 0x100000001b3u;
    splitmix(&s);
    s ^= c * 0xff51afd7ed558ccdu;
    splitmix(&s);
    s ^= d;
    return splitmix(&s);
}

/* ---- the data ---- */

static uint64_t g_seed;

/* The item with key (thread, k) at version ver: every attribute follows
 * from (seed, thread, k, ver), so the parent can rebuild what was written. */
static ddb_item *make_item(ddb_arena *a, int thread, int k, uint64_t ver)
{
    uint64_t r = mix(g_seed, (uint64_t)thread, (uint64_t)k, ver);
    char s[64];
    ddb_item *it = ddb_item_new(a);
    snprintf(s, sizeof s, "t%d/c%d", thread, k / 4);
    ddb_item_set_s(it, "PK", s);
    snprintf(s, sizeof s, "s%d", k % 4);
    ddb_item_set_s(it, "SK", s);
    ddb_item_set(it, "ver", ddb_v_u64(a, ver));
    uint64_t x = splitmix(&r);
    if (x % 4 != 0) { /* in GSI1 under one of 5 keys; moves between them */
        snprintf(s, sizeof s, "g%d", (int)(x / 4 % 5));
        ddb_item_set_s(it, "GSI1PK", s);
        ddb_item_set_i64(it, "GSI1SK", (int64_t)(splitmix(&r) % 100000) - 50000);
    }
    x = splitmix(&r);
    if (x % 2) { /* in LSI1 */
        snprintf(s, sizeof s, "l%d", (int)(x / 2 % 7));
        ddb_item_set_s(it, "LSI1SK", s);
    }
    x = splitmix(&r);
    size_t len = x % 16 == 0 ? 8000 + (size_t)(x / 16 % 32000) : (size_t)(x / 16 % 600);
    char *data = ddb_arena_alloc(a, len + 1);
    for (size_t i = 0; i < len; i++)
        data[i] = (char)('a' + (int)(((x >> (i % 48)) + i) % 26));
    data[len] = '\0';
    ddb_item_set_s(it, "data", data);
    if (splitmix(&r) % 3 == 0) {
        ddb_value *tags = ddb_v_set(a, DDB_TSS);
        int n = 1 + (int)(splitmix(&r) % 4);
        for (int i = 0; i < n; i++) {
            snprintf(s, sizeof s, "tag%d", (int)(splitmix(&r) % 10));
            ddb_set_add(a, tags, ddb_v_str(a, s), NULL);
        }
        ddb_item_set(it, "tags", tags);
    }
    return it;
}

static ddb_item *make_key(ddb_arena *a, int thread, int k)
{
    char s[64];
    ddb_item *it = ddb_item_new(a);
    snprintf(s, sizeof s, "t%d/c%d", thread, k / 4);
    ddb_item_set_s(it, "PK", s);
    snprintf(s, sizeof s, "s%d", k % 4);
    ddb_item_set_s(it, "SK", s);
    return it;
}

/* A transaction's update of a key at version uver: "SET uver = :u,
 * GSI1SK = :g" (creating the item from its key when absent; the GSI1 entry
 * moves when the item has GSI1PK). */
#define UPDATE_EXPR "SET uver = :u, GSI1SK = :g"

static int64_t update_gsi1sk(uint64_t uver)
{
    return (int64_t)(uver % 100000) - 50000;
}

static ddb_item *update_values(ddb_arena *a, uint64_t uver)
{
    ddb_item *v = ddb_item_new(a);
    ddb_item_set(v, ":u", ddb_v_u64(a, uver));
    ddb_item_set_i64(v, ":g", update_gsi1sk(uver));
    return v;
}

static int try_create_table(ddb *db, ddb_error *err)
{
    static const char *const inc[] = {"ver"};
    ddb_index_def ix[] = {
        {.name = "GSI1", .key = {.pk = "GSI1PK", .pk_type = DDB_TS, .sk = "GSI1SK", .sk_type = DDB_TN}},
        {.name = "LSI1", .local = true, .key = {.pk = "PK", .pk_type = DDB_TS, .sk = "LSI1SK", .sk_type = DDB_TS}, .projection = DDB_PROJ_INCLUDE,
         .include = inc, .n_include = 1},
    };
    ddb_table_def def = {.name = TABLE, .key = {.pk = "PK", .pk_type = DDB_TS, .sk = "SK", .sk_type = DDB_TS}, .indexes = ix, .n_indexes = 2};
    return ddb_create_table(db, &def, err);
}

static void create_table(ddb *db)
{
    ddb_error err = {0};
    if (try_create_table(db, &err))
        fail_msg("create table: %s", err.message);
}

/* ---- the writer process ---- */

enum { REC_READY = 1, REC_INTENT, REC_ACK, REC_FAIL, REC_SYNC_BEGIN, REC_SYNC_DONE };
enum { OP_PUT = 1, OP_DELETE, OP_UPDATE };

/* One operation: n = 1 (a put or a delete) or a transaction of n actions
 * on distinct keys, all at version ver. */
typedef struct rec {
    uint8_t kind, n, thread, pad;
    int32_t rc;  /* REC_FAIL */
    uint64_t ver;
    uint8_t op[TX_OPS_MAX];
    uint8_t pad2[3];
    uint32_t key[TX_OPS_MAX];
} rec;
_Static_assert(sizeof(rec) <= PIPE_BUF, "records must be written atomically");

/* ---- power loss (see the top) ---- */

typedef enum power_kind { POWER_OFF, POWER_ON, POWER_FAIL_SYNC } power_kind;

static power_kind g_power;
static char g_shadow[512]; /* where the shim keeps the synced copy this round */
static unsigned long g_fail_sync; /* POWER_FAIL_SYNC: the n-th sync of the round fails */
static ddbt_shim_start_fn g_shim_start; /* the shim's control functions */
static ddbt_shim_recover_fn g_shim_recover;
/* rec.rc of a REC_FAIL: a write after the failed sync was not refused */
#define RC_NOT_REFUSED 1

typedef struct writer {
    ddb *db;
    int fd;
    int thread;
    unsigned round;
    const ddb_expr *update;
} writer;

static void send_rec(int fd, const rec *r)
{
    const char *p = (const char *)r;
    size_t left = sizeof *r;
    while (left) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            _exit(4);
        p += n;
        left -= (size_t)n;
    }
}

/* The next operation of a thread: mostly one put or delete, one time in
 * four a transaction of 2..5 puts, deletes and updates on distinct keys. */
static void next_op(uint64_t *r, rec *x)
{
    x->n = splitmix(r) % 4 == 0 ? (uint8_t)(2 + splitmix(r) % (TX_OPS_MAX - 1)) : 1;
    for (int i = 0; i < x->n; i++) {
        int k;
        bool dup;
        do {
            k = (int)(splitmix(r) % KEYS_PER_THREAD);
            dup = false;
            for (int j = 0; j < i; j++)
                dup |= x->key[j] == (uint32_t)k;
        } while (dup);
        x->key[i] = (uint32_t)k;
        uint64_t c = splitmix(r) % 10;
        if (x->n == 1)
            x->op[i] = c < 7 ? OP_PUT : OP_DELETE;
        else
            x->op[i] = c < 5 ? OP_PUT : c < 7 ? OP_DELETE : OP_UPDATE;
    }
}

static int run_op(writer *w, ddb_arena *a, const rec *x, ddb_error *err)
{
    if (x->n == 1)
        return x->op[0] == OP_PUT
                   ? ddb_put_item(w->db, TABLE, make_item(a, w->thread, (int)x->key[0], x->ver), NULL, NULL, NULL, err)
                   : ddb_delete_item(w->db, TABLE, make_key(a, w->thread, (int)x->key[0]), NULL, NULL, NULL, err);
    ddb_tx_op ops[TX_OPS_MAX];
    for (int i = 0; i < x->n; i++) {
        int k = (int)x->key[i];
        switch (x->op[i]) {
        case OP_PUT:
            ops[i] = (ddb_tx_op){DDB_TX_PUT, TABLE, make_item(a, w->thread, k, x->ver), NULL, NULL, NULL, DDB_RETURN_NONE};
            break;
        case OP_DELETE:
            ops[i] = (ddb_tx_op){DDB_TX_DELETE, TABLE, make_key(a, w->thread, k), NULL, NULL, NULL, DDB_RETURN_NONE};
            break;
        default:
            ops[i] = (ddb_tx_op){DDB_TX_UPDATE, TABLE, make_key(a, w->thread, k), w->update, NULL,
                                 update_values(a, x->ver), DDB_RETURN_NONE};
        }
    }
    ddb_tx_result res;
    return ddb_transact_write(w->db, ops, x->n, DDB_CAPACITY_NONE, a, &res, err);
}

static void *writer_thread(void *arg)
{
    writer *w = arg;
    uint64_t r = mix(g_seed, w->round, (uint64_t)w->thread, 0xabcdef);
    ddb_arena *a = ddb_arena_new();
    for (uint32_t n = 1;; n++) {
        rec x = {.kind = REC_INTENT, .thread = (uint8_t)w->thread, .ver = ((uint64_t)w->round << 32) | n};
        next_op(&r, &x);
        send_rec(w->fd, &x);
        ddb_error err = {0};
        int rc = run_op(w, a, &x, &err);
        if (rc && g_power == POWER_FAIL_SYNC && (rc == DDB_EIO || rc == DDB_EUNKNOWN)) {
            /* the injected failure: report it, check that the handle now
             * refuses writes, and stop */
            x.kind = REC_FAIL;
            x.rc = rc;
            send_rec(w->fd, &x);
            ddb_arena_reset(a);
            rc = run_op(w, a, &x, &err);
            if (rc != DDB_EIO || !strstr(err.message, "a sync failed; reopen the database")) {
                fprintf(stderr, "writer thread %d: a write after the failed sync: %d %s\n", w->thread, rc,
                        rc ? err.message : "");
                x.rc = RC_NOT_REFUSED;
                send_rec(w->fd, &x);
            }
            for (;;)
                pause();
        }
        if (rc) {
            fprintf(stderr, "writer thread %d: %s\n", w->thread, err.message);
            x.kind = REC_FAIL;
            x.rc = rc;
            send_rec(w->fd, &x);
            _exit(3);
        }
        x.kind = REC_ACK;
        send_rec(w->fd, &x);
        ddb_arena_reset(a);
    }
    return NULL;
}

/* DDB_SYNC_NONE under power loss: ddb_sync() in a loop, each bracketed
 * by records, so the parent knows which acknowledgements it covers. */
static void *syncer_thread(void *arg)
{
    writer *w = arg;
    for (;;) {
        rec x = {.kind = REC_SYNC_BEGIN};
        send_rec(w->fd, &x);
        ddb_error err = {0};
        if (ddb_sync(w->db, &err)) {
            fprintf(stderr, "writer: ddb_sync: %s\n", err.message);
            x = (rec){.kind = REC_FAIL, .rc = err.code};
            send_rec(w->fd, &x);
            _exit(3);
        }
        x.kind = REC_SYNC_DONE;
        send_rec(w->fd, &x);
        struct timespec ts = {0, 15 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

/* A control function of the power-loss shim. */
static void *shim_fn(const char *name)
{
    void *f = dlsym(RTLD_DEFAULT, name);
    if (!f)
        fail_msg("the power-loss tests need LD_PRELOAD=<the powerloss shim> (%s not found)", name);
    return f;
}

/* The commit log (ddb_options.commit_log) in the writer and the reopens:
 * "test_crash log" and "test_crash power-log". */
static bool g_commit_log;

static ddb_options writer_options(ddb_sync_mode mode)
{
    return (ddb_options){
        .sync = mode, .map_size = MAP_SIZE, .partition_split_bytes = SPLIT_BYTES, .commit_log = g_commit_log};
}

/* After a power loss, what a completed ddb_sync() covered is all a mode
 * promises: DDB_SYNC_NONE, and DDB_SYNC_LAZY with a commit log (its log is
 * synced by ddb_sync and at checkpoints, not by a commit). */
static bool promises_only_ddb_sync(ddb_sync_mode mode)
{
    return mode == DDB_SYNC_NONE || (mode == DDB_SYNC_LAZY && g_commit_log);
}

/* The child: never returns (killed by the parent, or _exit on failure). */
static void run_writer(const char *dir, ddb_sync_mode mode, unsigned round, int fd)
{
    /* a crash must end this process (the parent sees the signal), not land
     * in the test framework's handlers inherited from the parent */
    const int fatal[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
    for (size_t i = 0; i < sizeof fatal / sizeof *fatal; i++)
        signal(fatal[i], SIG_DFL);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    alarm(60); /* never outlive a stuck parent */
    if (g_power != POWER_OFF)
        /* DDB_SYNC_NONE promises nothing about a power loss during
         * ddb_sync(): the shim's syncs are atomic there (see the top) */
        g_shim_start(dir, g_shadow, g_fail_sync, 0, mode == DDB_SYNC_NONE);
    ddb_options o = writer_options(mode);
    ddb *db = NULL;
    ddb_error err = {0};
    if (ddb_open(dir, &o, &db, &err)) {
        fprintf(stderr, "writer: ddb_open: %s\n", err.message);
        rec x = {.kind = REC_FAIL, .rc = DDB_EIO};
        send_rec(fd, &x);
        _exit(3);
    }
    if (g_power != POWER_OFF && round == 1) {
        /* the first round creates the database under the shim; ddb_sync
         * makes the table durable in every mode, the files' directory
         * entries are ddb_open's to sync */
        if (try_create_table(db, &err) || ddb_sync(db, &err)) {
            fprintf(stderr, "writer: creating the table: %s\n", err.message);
            _exit(3);
        }
    }
    ddb_expr *update = NULL;
    if (ddb_expr_prepare(DDB_EXPR_UPDATE, UPDATE_EXPR, NULL, &update, &err)) {
        fprintf(stderr, "writer: prepare: %s\n", err.message);
        _exit(3);
    }
    rec ready = {.kind = REC_READY};
    send_rec(fd, &ready);
    writer w[WRITER_THREADS];
    pthread_t th[WRITER_THREADS];
    for (int i = 0; i < WRITER_THREADS; i++) {
        w[i] = (writer){db, fd, i, round, update};
        if (pthread_create(&th[i], NULL, writer_thread, &w[i]) != 0)
            _exit(5);
    }
    writer sw = {db, fd, -1, round, update};
    pthread_t st;
    if (g_power != POWER_OFF && promises_only_ddb_sync(mode) && pthread_create(&st, NULL, syncer_thread, &sw) != 0)
        _exit(5);
    for (int i = 0; i < WRITER_THREADS; i++)
        pthread_join(th[i], NULL);
    _exit(6);
}

/* ---- the parent: expected state ---- */

/* A key's state: no item, or make_item(ver) (ver 0: just the key) with,
 * when uver is set, a transaction's update applied on top. */
typedef struct kstate {
    bool present;
    uint64_t ver, uver;
} kstate;

typedef struct pending {
    bool active;
    rec op; /* the INTENT record */
} pending;

typedef struct model {
    kstate keys[WRITER_THREADS][KEYS_PER_THREAD]; /* after every acknowledged operation */
    pending inflight[WRITER_THREADS];
    /* this round: the state it started from, the operations acknowledged
     * since, and (DDB_SYNC_NONE under power loss) how many of them the
     * last completed ddb_sync() covers */
    kstate base[WRITER_THREADS][KEYS_PER_THREAD];
    rec *hist[WRITER_THREADS];
    size_t nhist[WRITER_THREADS], cap_hist[WRITER_THREADS];
    size_t synced[WRITER_THREADS], sync_mark[WRITER_THREADS];
    bool sync_running;
    uint64_t sync_failures; /* POWER_FAIL_SYNC: writes that got the injected DDB_EIO */
    bool ready;
    uint64_t acks, tx_acks, inflight_committed, inflight_total, kills_before_ready;
} model;

static void model_free(model *m)
{
    for (int t = 0; t < WRITER_THREADS; t++)
        free(m->hist[t]);
    free(m);
}

/* The state of a key after one action at version ver. */
static kstate after(kstate ks, int op, uint64_t ver)
{
    switch (op) {
    case OP_PUT: return (kstate){true, ver, 0};
    case OP_DELETE: return (kstate){false, 0, 0};
    default: return (kstate){true, ks.present ? ks.ver : 0, ver};
    }
}

typedef struct ctx {
    const char *mode_name;
    unsigned round;
    const char *dir; /* kept after a failure, for inspection */
} ctx;

static ctx g_ctx;
static pid_t g_child; /* the running writer, killed before any failure is reported */
static int g_pipe = -1;

static void stop_writer(void)
{
    if (g_child > 0) {
        kill(g_child, SIGKILL);
        while (waitpid(g_child, NULL, 0) < 0 && errno == EINTR)
            ;
        g_child = 0;
    }
    if (g_pipe >= 0) {
        close(g_pipe);
        g_pipe = -1;
    }
}

#define FAIL(...)                                                                                                     \
    do {                                                                                                              \
        char m_[700];                                                                                                 \
        snprintf(m_, sizeof m_, __VA_ARGS__);                                                                         \
        stop_writer();                                                                                                \
        fail_msg("crash test seed=%" PRIu64 " mode=%s round=%u: %s (database left in %s)", g_seed, g_ctx.mode_name, \
                 g_ctx.round, m_, g_ctx.dir ? g_ctx.dir : "-");                                                        \
    } while (0)

static bool same_op(const rec *a, const rec *b)
{
    if (a->n != b->n || a->ver != b->ver)
        return false;
    for (int i = 0; i < a->n; i++)
        if (a->op[i] != b->op[i] || a->key[i] != b->key[i])
            return false;
    return true;
}

static void apply(model *m, const rec *x)
{
    if (x->thread >= WRITER_THREADS)
        FAIL("malformed record from the writer");
    pending *p = &m->inflight[x->thread];
    if ((x->kind == REC_INTENT || x->kind == REC_ACK) && (x->n < 1 || x->n > TX_OPS_MAX))
        FAIL("malformed record from the writer");
    for (int i = 0; i < x->n && x->kind != REC_FAIL; i++)
        if (x->key[i] >= KEYS_PER_THREAD || x->op[i] < OP_PUT || x->op[i] > OP_UPDATE)
            FAIL("malformed record from the writer");
    switch (x->kind) {
    case REC_READY:
        m->ready = true;
        break;
    case REC_INTENT:
        if (p->active)
            FAIL("thread %d announced two operations at once", x->thread);
        *p = (pending){true, *x};
        break;
    case REC_ACK:
        if (!p->active || !same_op(&p->op, x))
            FAIL("thread %d acknowledged an operation it did not announce", x->thread);
        for (int i = 0; i < x->n; i++) {
            kstate *ks = &m->keys[x->thread][x->key[i]];
            *ks = after(*ks, x->op[i], x->ver);
        }
        p->active = false;
        m->acks++;
        m->tx_acks += x->n > 1;
        if (m->nhist[x->thread] == m->cap_hist[x->thread]) {
            size_t cap = m->cap_hist[x->thread] ? 2 * m->cap_hist[x->thread] : 256;
            rec *h = realloc(m->hist[x->thread], cap * sizeof *h);
            if (!h)
                FAIL("out of memory");
            m->hist[x->thread] = h;
            m->cap_hist[x->thread] = cap;
        }
        m->hist[x->thread][m->nhist[x->thread]++] = *x;
        break;
    case REC_FAIL:
        if (x->rc == RC_NOT_REFUSED)
            FAIL("thread %d: a write after the failed sync was not refused with DDB_EIO", x->thread);
        /* the injected failed sync: DDB_EUNKNOWN, the operation may or may
         * not be on disk, as if in flight; DDB_EIO, it is not applied */
        if (g_power == POWER_FAIL_SYNC && (x->rc == DDB_EIO || x->rc == DDB_EUNKNOWN) && p->active &&
            same_op(&p->op, x)) {
            m->sync_failures++;
            p->active = x->rc == DDB_EUNKNOWN;
            break;
        }
        FAIL("writer thread %d failed with %d (%s)", x->thread, x->rc, ddb_strerror(x->rc));
        break;
    case REC_SYNC_BEGIN:
        memcpy(m->sync_mark, m->nhist, sizeof m->sync_mark);
        m->sync_running = true;
        break;
    case REC_SYNC_DONE:
        if (!m->sync_running)
            FAIL("a ddb_sync() ended that did not begin");
        memcpy(m->synced, m->sync_mark, sizeof m->synced);
        m->sync_running = false;
        break;
    default:
        FAIL("unknown record kind %d", x->kind);
    }
}

static uint64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* Read whole records from fd into the model; partial data stays in buf. */
typedef struct reader {
    uint8_t buf[sizeof(rec) * 256];
    size_t len;
} reader;

static int read_some(int fd, reader *rd, model *m)
{
    ssize_t n = read(fd, rd->buf + rd->len, sizeof rd->buf - rd->len);
    if (n < 0)
        return errno == EINTR ? 1 : -1;
    if (n == 0)
        return 0;
    rd->len += (size_t)n;
    size_t off = 0;
    while (rd->len - off >= sizeof(rec)) {
        rec x;
        memcpy(&x, rd->buf + off, sizeof x);
        apply(m, &x);
        off += sizeof x;
    }
    memmove(rd->buf, rd->buf + off, rd->len - off);
    rd->len -= off;
    return 1;
}

/* One round: start a writer, let it run for a random time, kill it. */
static void crash_round(const char *dir, ddb_sync_mode mode, unsigned round, model *m)
{
    uint64_t r = mix(g_seed, (uint64_t)mode, round, 0x7157);
    /* mostly 1..100 ms after the writer is ready; one round in eight
     * 0..3 ms after the fork, to land in ddb_open itself */
    bool from_fork = splitmix(&r) % 8 == 0 && !(g_power != POWER_OFF && round == 1); /* round 1 creates it */
    uint64_t delay = from_fork ? splitmix(&r) % 3000 : 1000 + splitmix(&r) % 99000;
    int p[2];
    if (pipe(p) != 0)
        FAIL("pipe: %s", strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        FAIL("fork: %s", strerror(errno));
    if (pid == 0) {
        close(p[0]);
        run_writer(dir, mode, round, p[1]);
    }
    close(p[1]);
    g_child = pid;
    g_pipe = p[0];
    m->ready = false;
    memcpy(m->base, m->keys, sizeof m->base);
    memset(m->nhist, 0, sizeof m->nhist);
    memset(m->synced, 0, sizeof m->synced);
    m->sync_running = false;
    reader rd = {.len = 0};
    uint64_t start = now_us(), deadline = from_fork ? start + delay : 0, ready_at = 0;
    uint64_t failures = m->sync_failures;
    int eof = 0;
    while (!eof) {
        uint64_t t = now_us();
        if (!deadline && m->ready) {
            deadline = t + delay;
            ready_at = t;
        }
        /* POWER_FAIL_SYNC: the kill waits for the injected failure (up to
         * 10 s: a slow machine may not reach that sync in the delay) */
        if (deadline && t >= deadline && g_power == POWER_FAIL_SYNC && ready_at && m->sync_failures == failures &&
            t - ready_at < 10000000u)
            deadline = t + 2000;
        if (deadline && t >= deadline)
            break;
        if (t - start > 20000000u)
            FAIL("the writer did not get ready in 20 s");
        int wait_ms = deadline ? (int)((deadline - t + 999) / 1000) : 50;
        struct pollfd pf = {p[0], POLLIN, 0};
        int pr = poll(&pf, 1, wait_ms);
        if (pr > 0) {
            int rr = read_some(p[0], &rd, m);
            if (rr < 0)
                FAIL("read: %s", strerror(errno));
            eof = rr == 0;
        }
    }
    kill(pid, SIGKILL);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    g_child = 0;
    /* the acknowledgements sent before death */
    int rr;
    while ((rr = read_some(p[0], &rd, m)) > 0)
        ;
    if (rr < 0)
        FAIL("read: %s", strerror(errno));
    close(p[0]);
    g_pipe = -1;
    if (WIFEXITED(status))
        FAIL("the writer exited on its own with status %d", WEXITSTATUS(status));
    if (WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL)
        FAIL("the writer died of signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    if (rd.len)
        FAIL("a torn record (%zu bytes) in the pipe", rd.len);
    if (!m->ready)
        m->kills_before_ready++;
}

/* ---- the parent: verification ---- */

/* The item a key in state ks holds (NULL: none). */
static ddb_item *expected(ddb_arena *a, int thread, int k, kstate ks)
{
    if (!ks.present)
        return NULL;
    ddb_item *it = ks.ver ? make_item(a, thread, k, ks.ver) : make_key(a, thread, k);
    if (ks.uver) {
        ddb_item_set(it, "uver", ddb_v_u64(a, ks.uver));
        ddb_item_set_i64(it, "GSI1SK", update_gsi1sk(ks.uver));
    }
    return it;
}

static bool holds(const ddb_item *got, const ddb_item *want)
{
    return want ? got && ddb_value_equal(ddb_item_map(got), ddb_item_map(want)) : !got;
}

static const char *describe(ddb_arena *a, const ddb_item *it)
{
    if (!it)
        return "no item";
    const ddb_value *v = ddb_item_get(it, "ver"), *u = ddb_item_get(it, "uver");
    char *s = ddb_arena_alloc(a, 96);
    snprintf(s, 96, "item ver=%s uver=%s", v && v->type == DDB_TN ? v->u.s : "-",
             u && u->type == DDB_TN ? u->u.s : "-");
    return s;
}

/* Scan an index: every returned item is expected there, and the count
 * matches. */
static void verify_index_scan(ddb *db, const char *index, const model *m, uint64_t want)
{
    ddb_arena *a = ddb_arena_new();
    ddb_scan_params s = {.table = TABLE, .index = index};
    ddb_page pg;
    ddb_error err = {0};
    uint64_t seen = 0;
    do {
        if (ddb_scan(db, &s, a, &pg, &err))
            FAIL("scan %s: %s", index, err.message);
        for (size_t i = 0; i < pg.count; i++) {
            const ddb_value *pk = ddb_item_get(pg.items[i], "PK"), *sk = ddb_item_get(pg.items[i], "SK");
            const ddb_value *ver = ddb_item_get(pg.items[i], "ver");
            int t = -1, c = 0, kk = 0;
            if (!pk || !sk || !ver || sscanf(pk->u.s, "t%d/c%d", &t, &c) != 2 || sscanf(sk->u.s, "s%d", &kk) != 1 ||
                t < 0 || t >= WRITER_THREADS || c * 4 + kk >= KEYS_PER_THREAD)
                FAIL("index %s returned an unexpected item", index);
            const kstate *ks = &m->keys[t][c * 4 + kk];
            char vb[32];
            snprintf(vb, sizeof vb, "%" PRIu64, ks->ver);
            if (!ks->present || strcmp(ver->u.s, vb) != 0)
                FAIL("index %s returned %s/%s ver=%s, expected %s ver=%s", index, pk->u.s, sk->u.s, ver->u.s,
                     ks->present ? "" : "no item", vb);
            /* GSI1 projects everything: also the update on top */
            const ddb_value *uver = ddb_item_get(pg.items[i], "uver");
            if (strcmp(index, "GSI1") == 0 && (uver != NULL) != (ks->uver != 0))
                FAIL("index %s returned %s/%s %s uver, expected uver=%" PRIu64, index, pk->u.s, sk->u.s,
                     uver ? "with" : "without", ks->uver);
            seen++;
        }
        s.start_key = pg.last_key;
    } while (pg.last_key);
    if (seen != want)
        FAIL("index %s: a scan finds %" PRIu64 " items, %" PRIu64 " expected", index, seen, want);
    ddb_arena_free(a);
}

/* Does got show state ks (by presence and versions; holds() then compares
 * every attribute)? */
static bool shows(const ddb_item *got, kstate ks)
{
    if (!ks.present || !got)
        return !ks.present && !got;
    const ddb_value *v = ddb_item_get(got, "ver"), *u = ddb_item_get(got, "uver");
    char b[32];
    snprintf(b, sizeof b, "%" PRIu64, ks.ver);
    if (ks.ver ? !v || v->type != DDB_TN || strcmp(v->u.s, b) != 0 : v != NULL)
        return false;
    snprintf(b, sizeof b, "%" PRIu64, ks.uver);
    return ks.uver ? u && u->type == DDB_TN && strcmp(u->u.s, b) == 0 : u == NULL;
}

static void apply_op(kstate *keys, const rec *x)
{
    for (int i = 0; i < x->n; i++)
        keys[x->key[i]] = after(keys[x->key[i]], x->op[i], x->ver);
}

/* The fewest of this round's acknowledged operations of a thread that the
 * disk must hold: all of them after a process crash; after a power loss
 * what the mode promises (see the top). */
static size_t must_hold(const model *m, ddb_sync_mode mode, int t)
{
    size_t n = m->nhist[t];
    if (g_power == POWER_OFF || mode == DDB_SYNC_FULL)
        return n;
    if (promises_only_ddb_sync(mode))
        return m->synced[t];
    /* LAZY: all but the last operation that wrote something (a put, an
     * update, a delete of a present item): a later one that writes nothing
     * (deletes of absent items) commits an empty transaction, which syncs
     * nothing, so it does not make the one before durable */
    kstate st[KEYS_PER_THREAD];
    memcpy(st, m->base[t], sizeof st);
    size_t last_write = 0;
    for (size_t j = 0; j < n; j++) {
        const rec *x = &m->hist[t][j];
        for (int i = 0; i < x->n; i++)
            if (x->op[i] != OP_DELETE || st[x->key[i]].present)
                last_write = j;
        apply_op(st, x);
    }
    return last_write;
}

/* Thread t's keys (got) must show the state after some prefix of its
 * operations: at least must_hold() of those acknowledged this round, at
 * most all of them and the one in flight (all of its actions or none).
 * Sets the model to that state; returns the prefix's length. */
static size_t settle_thread(ddb_arena *a, model *m, ddb_sync_mode mode, int t, ddb_item *const *got)
{
    size_t lo = must_hold(m, mode, t), n = m->nhist[t];
    const pending *p = &m->inflight[t];
    kstate st[KEYS_PER_THREAD];
    memcpy(st, m->base[t], sizeof st);
    for (size_t j = 0;; j++) {
        if (j >= lo) {
            bool all = true;
            for (int k = 0; k < KEYS_PER_THREAD && all; k++)
                all = shows(got[k], st[k]);
            if (all) {
                memcpy(m->keys[t], st, sizeof st);
                return j;
            }
        }
        if (j < n)
            apply_op(st, &m->hist[t][j]);
        else if (j == n && p->active)
            apply_op(st, &p->op);
        else
            break;
    }
    /* no prefix fits: name a key that differs from the acknowledged state */
    for (int k = 0; k < KEYS_PER_THREAD; k++)
        if (!shows(got[k], m->keys[t][k]))
            FAIL("thread %d: its keys show no state between its first %zu and all %zu acknowledged operations "
                 "of this round%s (all or nothing); key %d: found %s, expected %s",
                 t, lo, n, p->active ? " and the one in flight" : "", k, describe(a, got[k]),
                 describe(a, expected(a, t, k, m->keys[t][k])));
    FAIL("thread %d: its keys show no state between its first %zu and all %zu acknowledged operations of this "
         "round and the one in flight (%d actions, ver %" PRIu64 "): it is neither wholly applied nor wholly absent",
         t, lo, n, p->op.n, p->op.ver);
    return 0;
}

static void verify(const char *dir, ddb_sync_mode mode, model *m)
{
    ddb_options o = writer_options(mode);
    ddb *db = NULL;
    ddb_error err = {0};
    if (ddb_open(dir, &o, &db, &err))
        FAIL("reopen: %s", err.message);
    ddb_arena *a = ddb_arena_new();
    uint64_t present = 0, in_gsi = 0, in_lsi = 0;
    for (int t = 0; t < WRITER_THREADS; t++) {
        pending *p = &m->inflight[t];
        ddb_item *got[KEYS_PER_THREAD];
        for (int k = 0; k < KEYS_PER_THREAD; k++) {
            ddb_get_opts go = {.consistent = true};
            int rc = ddb_get_item(db, TABLE, make_key(a, t, k), &go, a, &got[k], NULL, &err);
            if (rc && rc != DDB_ENOTFOUND)
                FAIL("get t%d key %d: %s", t, k, err.message);
        }
        if (p->active)
            m->inflight_total++;
        size_t j = settle_thread(a, m, mode, t, got);
        if (p->active && j > m->nhist[t])
            m->inflight_committed++;
        p->active = false;
        for (int k = 0; k < KEYS_PER_THREAD; k++) {
            kstate *ks = &m->keys[t][k];
            ddb_item *want = expected(a, t, k, *ks);
            if (!holds(got[k], want))
                FAIL("thread %d key %d: found %s, expected %s", t, k, describe(a, got[k]), describe(a, want));
            if (ks->present) {
                present++;
                in_gsi += ddb_item_get(got[k], "GSI1PK") && ddb_item_get(got[k], "GSI1SK");
                in_lsi += ddb_item_get(got[k], "LSI1SK") != NULL;
            }
        }
        ddb_arena_reset(a);
    }
    ddb_check_report r;
    int rc = ddb_check_table(db, TABLE, &r, &err);
    if (rc)
        FAIL("ddb_check_table: %s (%" PRIu64 " problems)", err.message, r.problems);
    if (r.items != present)
        FAIL("the table holds %" PRIu64 " items, %" PRIu64 " expected", r.items, present);
    if (r.index_entries != in_gsi + in_lsi)
        FAIL("the indexes hold %" PRIu64 " entries, %" PRIu64 " expected", r.index_entries, in_gsi + in_lsi);
    verify_index_scan(db, "GSI1", m, in_gsi);
    verify_index_scan(db, "LSI1", m, in_lsi);
    ddb_arena_free(a);
    ddb_close(db);
}

/* ---- the tests ---- */

static unsigned env_uint(const char *name, unsigned dflt)
{
    const char *s = getenv(name);
    return s && *s ? (unsigned)strtoul(s, NULL, 0) : dflt;
}

static void crash_test(ddb_sync_mode mode, const char *name)
{
    g_seed = env_uint("DDB_CRASH_SEED", DEFAULT_SEED);
    unsigned rounds = env_uint("DDB_CRASH_ROUNDS", DEFAULT_ROUNDS);
    g_ctx = (ctx){name, 0, NULL};
    char dir[512];
    const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, sizeof dir, "%s/ddbcrash-%s-%d", base, name, (int)getpid());
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        FAIL("cannot remove %s", dir);
    g_ctx.dir = dir;

    ddb_options o = writer_options(mode);
    ddb *db = NULL;
    ddb_error err = {0};
    if (ddb_open(dir, &o, &db, &err))
        FAIL("open: %s", err.message);
    create_table(db);
    ddb_close(db);

    model *m = calloc(1, sizeof *m);
    if (!m)
        FAIL("out of memory");
    uint64_t t0 = now_us();
    for (unsigned round = 1; round <= rounds; round++) {
        g_ctx.round = round;
        crash_round(dir, mode, round, m);
        verify(dir, mode, m);
    }
    ddb_arena *a = ddb_arena_new();
    ddb_table_desc *d = NULL;
    if (ddb_open(dir, &o, &db, &err) || ddb_describe_table(db, TABLE, a, &d, &err) || !d)
        FAIL("describe: %s", err.message);
    printf("crash %s: seed=%" PRIu64 ", %u rounds in %.1f s: %" PRIu64 " acknowledged writes (%" PRIu64
           " transactions), %" PRIu64 " of %" PRIu64 " in-flight writes had committed, %" PRIu64
           " kills before the writer was ready; %" PRIu64 " items in %u partitions\n",
           name, g_seed, rounds, (double)(now_us() - t0) / 1e6, m->acks, m->tx_acks, m->inflight_committed,
           m->inflight_total, m->kills_before_ready, d->item_count, d->partitions);
    ddb_close(db);
    ddb_arena_free(a);
    model_free(m);
    if (system(cmd) != 0)
        FAIL("cannot remove %s", dir);
    g_ctx.dir = NULL;
}

/* Power loss: each round's writer runs in dir[round % 2] and the shim
 * keeps its synced image in the other one, which is verified and is where
 * the next round starts. */
static void power_test(ddb_sync_mode mode, power_kind kind, const char *name)
{
    g_seed = env_uint("DDB_CRASH_SEED", DEFAULT_SEED);
    unsigned rounds = env_uint("DDB_POWER_ROUNDS", kind == POWER_FAIL_SYNC ? 30 : 20);
    g_ctx = (ctx){name, 0, NULL};
    g_power = kind;
    g_shim_start = (ddbt_shim_start_fn)shim_fn("ddbt_shim_start");
    g_shim_recover = (ddbt_shim_recover_fn)shim_fn("ddbt_shim_recover");
    char dir[2][512], cmd[2400];
    const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    for (int i = 0; i < 2; i++)
        snprintf(dir[i], sizeof dir[i], "%s/ddbpower-%s-%d-%d", base, name, (int)getpid(), i);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", dir[0], dir[1]);
    if (system(cmd) != 0)
        FAIL("cannot remove %s", dir[0]);
    model *m = calloc(1, sizeof *m);
    if (!m)
        FAIL("out of memory");
    uint64_t t0 = now_us();
    for (unsigned round = 1; round <= rounds; round++) {
        const char *cur = dir[round % 2], *img = dir[(round + 1) % 2];
        g_ctx.round = round;
        g_ctx.dir = cur;
        /* the disk starts as the last image left it (a kill may come
         * before the shim could copy it) */
        snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s' && { [ %u = 1 ] || cp '%s/data.mdb' '%s/'; }", img, img,
                 round, cur, img);
        if (system(cmd) != 0)
            FAIL("cannot prepare %s", img);
        snprintf(g_shadow, sizeof g_shadow, "%s", img);
        uint64_t r = mix(g_seed, (uint64_t)mode, round, 0xfa11);
        /* past the syncs of round 1's ddb_open, create table and ddb_sync */
        g_fail_sync = kind == POWER_FAIL_SYNC ? 6 + splitmix(&r) % 30 : 0;
        crash_round(cur, mode, round, m);
        /* the disk as the power loss left it: only data.mdb matters (LMDB
         * rebuilds a lock file nobody holds), and only under its name if
         * that name was synced */
        g_ctx.dir = img;
        char f[600];
        const char *junk[] = {"lock.mdb", "lock.mdb.unlinked", "lock.mdb.journal", "lock.mdb.unlinked.journal",
                              "data.mdb.unlinked", "data.mdb.unlinked.journal", "commit.log.unlinked",
                              "commit.log.unlinked.journal", "commit.ckpt.unlinked", "commit.ckpt.unlinked.journal"};
        for (size_t i = 0; i < sizeof junk / sizeof *junk; i++) {
            snprintf(f, sizeof f, "%s/%s", img, junk[i]);
            unlink(f);
        }
        struct stat st;
        const char *kept[] = {"commit.log", "commit.ckpt"}; /* the commit log's files, when their names were synced */
        for (size_t i = 0; i < sizeof kept / sizeof *kept; i++) {
            snprintf(f, sizeof f, "%s/%s", img, kept[i]);
            if (stat(f, &st) == 0 && g_shim_recover(f) != 0)
                FAIL("cannot finish the interrupted sync of %s", f);
        }
        snprintf(f, sizeof f, "%s/data.mdb", img);
        if (g_shim_recover(f) != 0)
            FAIL("cannot finish the interrupted sync of %s", f);
        if (stat(f, &st) != 0)
            FAIL("after the power loss there is no %s (its directory entry was never synced)", f);
        verify(img, mode, m);
    }
    printf("power loss %s: seed=%" PRIu64 ", %u rounds in %.1f s: %" PRIu64 " acknowledged writes (%" PRIu64
           " transactions), %" PRIu64 " of %" PRIu64 " in-flight writes had reached the disk, %" PRIu64
           " writes failed by the injected sync failure\n",
           name, g_seed, rounds, (double)(now_us() - t0) / 1e6, m->acks, m->tx_acks, m->inflight_committed,
           m->inflight_total, m->sync_failures);
    if (kind == POWER_FAIL_SYNC && !m->sync_failures)
        FAIL("no write ever met the injected sync failure");
    model_free(m);
    if (system(cmd) != 0 || (snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", dir[0], dir[1]), system(cmd)) != 0)
        FAIL("cannot remove %s", dir[0]);
    g_ctx.dir = NULL;
    g_power = POWER_OFF;
}

static void test_power_loss_full(void **state)
{
    (void)state;
    power_test(DDB_SYNC_FULL, POWER_ON, "full");
}

static void test_power_loss_failed_sync(void **state)
{
    (void)state;
    power_test(DDB_SYNC_FULL, POWER_FAIL_SYNC, "full-failed-sync");
}

static void test_power_loss_lazy(void **state)
{
    (void)state;
    power_test(DDB_SYNC_LAZY, POWER_ON, "lazy");
}

static void test_power_loss_none(void **state)
{
    (void)state;
    power_test(DDB_SYNC_NONE, POWER_ON, "none");
}

static void test_crash_sync_full(void **state)
{
    (void)state;
    crash_test(DDB_SYNC_FULL, "full");
}

static void test_crash_sync_lazy(void **state)
{
    (void)state;
    crash_test(DDB_SYNC_LAZY, "lazy");
}

static void test_crash_sync_none(void **state)
{
    (void)state;
    crash_test(DDB_SYNC_NONE, "none");
}

/* The same with the commit log (ddb_options.commit_log). */
static void test_power_loss_full_log(void **state)
{
    (void)state;
    g_commit_log = true;
    power_test(DDB_SYNC_FULL, POWER_ON, "full-log");
}

static void test_power_loss_failed_sync_log(void **state)
{
    (void)state;
    g_commit_log = true;
    power_test(DDB_SYNC_FULL, POWER_FAIL_SYNC, "full-log-failed-sync");
}

static void test_power_loss_lazy_log(void **state)
{
    (void)state;
    g_commit_log = true;
    power_test(DDB_SYNC_LAZY, POWER_ON, "lazy-log");
}

static void test_crash_sync_full_log(void **state)
{
    (void)state;
    g_commit_log = true;
    crash_test(DDB_SYNC_FULL, "full-log");
}

static void test_crash_sync_lazy_log(void **state)
{
    (void)state;
    g_commit_log = true;
    crash_test(DDB_SYNC_LAZY, "lazy-log");
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "power-log") == 0) {
        const struct CMUnitTest power[] = {
            cmocka_unit_test(test_power_loss_full_log),
            cmocka_unit_test(test_power_loss_failed_sync_log),
            cmocka_unit_test(test_power_loss_lazy_log),
        };
        return cmocka_run_group_tests(power, NULL, NULL);
    }
    if (argc > 1 && strcmp(argv[1], "log") == 0) {
        const struct CMUnitTest crash[] = {
            cmocka_unit_test(test_crash_sync_full_log),
            cmocka_unit_test(test_crash_sync_lazy_log),
        };
        return cmocka_run_group_tests(crash, NULL, NULL);
    }
    if (argc > 1 && strcmp(argv[1], "power") == 0) {
        const struct CMUnitTest power[] = {
            cmocka_unit_test(test_power_loss_full),
            cmocka_unit_test(test_power_loss_failed_sync),
            cmocka_unit_test(test_power_loss_lazy),
            cmocka_unit_test(test_power_loss_none),
        };
        return cmocka_run_group_tests(power, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crash_sync_full),
        cmocka_unit_test(test_crash_sync_lazy),
        cmocka_unit_test(test_crash_sync_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
