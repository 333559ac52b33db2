/* Crash safety: a writer process is killed with SIGKILL at random moments;
 * after each kill the database is reopened and must hold every
 * acknowledged write, and every index must agree with its table.
 *
 * The writer (a forked child) runs WRITER_THREADS threads on one handle, so
 * group commit batches their writes into shared transactions.  Each thread
 * owns a disjoint set of keys and, per operation, sends the parent over a
 * pipe an INTENT record, performs the put or delete, and once the call has
 * returned DDB_OK sends an ACK.  Records are smaller than PIPE_BUF, so
 * each write() is atomic and records never interleave.
 *
 * After the kill the parent knows, per key, the state after the last
 * acknowledged operation, and for each thread at most one operation in
 * flight (INTENT without ACK: it may or may not have committed).  So:
 *   - a key without an operation in flight holds exactly its last
 *     acknowledged state (the acknowledged item, attribute for attribute,
 *     or no item after an acknowledged delete);
 *   - a key with an operation in flight holds either that state or the
 *     in-flight operation's result, nothing else (atomicity);
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
 * simulates and all three are tested.  Only DDB_SYNC_FULL also survives an
 * OS crash or power loss; that needs a machine reset (or a VM snapshot, or
 * a fault-injecting block device) and is not simulated here.
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

#define TABLE "Crash"
#define WRITER_THREADS 4
#define KEYS_PER_THREAD 48
#define DEFAULT_ROUNDS 40
#define DEFAULT_SEED 0x5eed2024u
#define MAP_SIZE ((uint64_t)1 << 30)
#define SPLIT_BYTES (48u * 1024u)

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

static void create_table(ddb *db)
{
    static const char *const inc[] = {"ver"};
    ddb_index_def ix[] = {
        {.name = "GSI1", .key = {"GSI1PK", DDB_TS, "GSI1SK", DDB_TN}},
        {.name = "LSI1", .local = true, .key = {"PK", DDB_TS, "LSI1SK", DDB_TS}, .projection = DDB_PROJ_INCLUDE,
         .include = inc, .n_include = 1},
    };
    ddb_table_def def = {.name = TABLE, .key = {"PK", DDB_TS, "SK", DDB_TS}, .indexes = ix, .n_indexes = 2};
    ddb_error err = {0};
    int rc = ddb_create_table(db, &def, &err);
    if (rc)
        fail_msg("create table: %s", err.message);
}

/* ---- the writer process ---- */

enum { REC_READY = 1, REC_INTENT, REC_ACK, REC_FAIL };
enum { OP_PUT = 1, OP_DELETE };

typedef struct rec {
    uint8_t kind, op, thread, pad;
    int32_t rc;  /* REC_FAIL */
    uint32_t key;
    uint32_t pad2;
    uint64_t ver;
} rec;
_Static_assert(sizeof(rec) <= PIPE_BUF, "records must be written atomically");

typedef struct writer {
    ddb *db;
    int fd;
    int thread;
    unsigned round;
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

static void *writer_thread(void *arg)
{
    writer *w = arg;
    uint64_t r = mix(g_seed, w->round, (uint64_t)w->thread, 0xabcdef);
    ddb_arena *a = ddb_arena_new();
    for (uint32_t n = 1;; n++) {
        int k = (int)(splitmix(&r) % KEYS_PER_THREAD);
        int op = splitmix(&r) % 10 < 7 ? OP_PUT : OP_DELETE;
        uint64_t ver = ((uint64_t)w->round << 32) | n;
        rec x = {REC_INTENT, (uint8_t)op, (uint8_t)w->thread, 0, 0, (uint32_t)k, 0, ver};
        send_rec(w->fd, &x);
        ddb_error err = {0};
        int rc = op == OP_PUT ? ddb_put_item(w->db, TABLE, make_item(a, w->thread, k, ver), NULL, NULL, NULL, &err)
                              : ddb_delete_item(w->db, TABLE, make_key(a, w->thread, k), NULL, NULL, NULL, &err);
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

static ddb_options writer_options(ddb_sync_mode mode)
{
    return (ddb_options){.sync = mode, .map_size = MAP_SIZE, .partition_split_bytes = SPLIT_BYTES};
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
    ddb_options o = writer_options(mode);
    ddb *db = NULL;
    ddb_error err = {0};
    if (ddb_open(dir, &o, &db, &err)) {
        fprintf(stderr, "writer: ddb_open: %s\n", err.message);
        rec x = {REC_FAIL, 0, 0, 0, DDB_EIO, 0, 0, 0};
        send_rec(fd, &x);
        _exit(3);
    }
    rec ready = {REC_READY, 0, 0, 0, 0, 0, 0, 0};
    send_rec(fd, &ready);
    writer w[WRITER_THREADS];
    pthread_t th[WRITER_THREADS];
    for (int i = 0; i < WRITER_THREADS; i++) {
        w[i] = (writer){db, fd, i, round};
        if (pthread_create(&th[i], NULL, writer_thread, &w[i]) != 0)
            _exit(5);
    }
    for (int i = 0; i < WRITER_THREADS; i++)
        pthread_join(th[i], NULL);
    _exit(6);
}

/* ---- the parent: expected state ---- */

typedef struct kstate {
    bool present;
    uint64_t ver;
} kstate;

typedef struct pending {
    bool active;
    int op;
    int key;
    uint64_t ver;
} pending;

typedef struct model {
    kstate keys[WRITER_THREADS][KEYS_PER_THREAD];
    pending inflight[WRITER_THREADS];
    bool ready;
    uint64_t acks, inflight_committed, inflight_total, kills_before_ready;
} model;

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

static void apply(model *m, const rec *x)
{
    if (x->thread >= WRITER_THREADS || x->key >= KEYS_PER_THREAD)
        FAIL("malformed record from the writer");
    pending *p = &m->inflight[x->thread];
    switch (x->kind) {
    case REC_READY:
        m->ready = true;
        break;
    case REC_INTENT:
        if (p->active)
            FAIL("thread %d announced two operations at once", x->thread);
        *p = (pending){true, x->op, (int)x->key, x->ver};
        break;
    case REC_ACK:
        if (!p->active || p->op != x->op || p->key != (int)x->key || p->ver != x->ver)
            FAIL("thread %d acknowledged an operation it did not announce", x->thread);
        m->keys[x->thread][x->key] = (kstate){x->op == OP_PUT, x->ver};
        p->active = false;
        m->acks++;
        break;
    case REC_FAIL:
        FAIL("writer thread %d failed with %d (%s)", x->thread, x->rc, ddb_strerror(x->rc));
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
    bool from_fork = splitmix(&r) % 8 == 0;
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
    reader rd = {.len = 0};
    uint64_t start = now_us(), deadline = from_fork ? start + delay : 0;
    int eof = 0;
    while (!eof) {
        uint64_t t = now_us();
        if (!deadline && m->ready)
            deadline = t + delay;
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

static bool same_item(const ddb_item *got, const ddb_item *want)
{
    return got && want && ddb_value_equal(ddb_item_map(got), ddb_item_map(want));
}

static const char *describe(ddb_arena *a, const ddb_item *it)
{
    if (!it)
        return "no item";
    const ddb_value *v = ddb_item_get(it, "ver");
    char *s = ddb_arena_alloc(a, 64);
    snprintf(s, 64, "item ver=%s", v && v->type == DDB_TN ? v->u.s : "?");
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
            seen++;
        }
        s.start_key = pg.last_key;
    } while (pg.last_key);
    if (seen != want)
        FAIL("index %s: a scan finds %" PRIu64 " items, %" PRIu64 " expected", index, seen, want);
    ddb_arena_free(a);
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
        if (p->active)
            m->inflight_total++;
        for (int k = 0; k < KEYS_PER_THREAD; k++) {
            kstate *ks = &m->keys[t][k];
            ddb_item *got = NULL;
            ddb_get_opts go = {.consistent = true};
            int rc = ddb_get_item(db, TABLE, make_key(a, t, k), &go, a, &got, NULL, &err);
            if (rc && rc != DDB_ENOTFOUND)
                FAIL("get t%d key %d: %s", t, k, err.message);
            ddb_item *acked = ks->present ? make_item(a, t, k, ks->ver) : NULL;
            bool ok = acked ? same_item(got, acked) : !got;
            if (!ok && p->active && p->key == k) {
                /* the operation in flight committed before the kill */
                ddb_item *next = p->op == OP_PUT ? make_item(a, t, k, p->ver) : NULL;
                if (next ? same_item(got, next) : !got) {
                    *ks = (kstate){p->op == OP_PUT, p->ver};
                    m->inflight_committed++;
                    ok = true;
                }
            }
            if (!ok)
                FAIL("thread %d key %d: found %s, expected %s (acknowledged)%s", t, k, describe(a, got),
                     acked ? describe(a, acked) : "no item",
                     p->active && p->key == k ? " or the operation in flight" : "");
            if (ks->present) {
                present++;
                in_gsi += ddb_item_get(got, "GSI1PK") != NULL;
                in_lsi += ddb_item_get(got, "LSI1SK") != NULL;
            }
            ddb_arena_reset(a);
        }
        p->active = false;
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
    printf("crash %s: seed=%" PRIu64 ", %u rounds in %.1f s: %" PRIu64 " acknowledged writes, %" PRIu64
           " of %" PRIu64 " in-flight writes had committed, %" PRIu64 " kills before the writer was ready; "
           "%" PRIu64 " items in %u partitions\n",
           name, g_seed, rounds, (double)(now_us() - t0) / 1e6, m->acks, m->inflight_committed, m->inflight_total,
           m->kills_before_ready, d->item_count, d->partitions);
    ddb_close(db);
    ddb_arena_free(a);
    free(m);
    if (system(cmd) != 0)
        FAIL("cannot remove %s", dir);
    g_ctx.dir = NULL;
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crash_sync_full),
        cmocka_unit_test(test_crash_sync_lazy),
        cmocka_unit_test(test_crash_sync_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
