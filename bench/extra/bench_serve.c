/* ddb-bench-serve: `ddb serve` vs dynalite, both driven by the same
 * independent keep-alive HTTP client (libcurl, one easy handle and so one
 * kept-alive connection per client thread; not libddb's remote backend).
 *
 *   ddb-bench-serve [--seconds S] [--rounds R] [--threads T] [--dir DIR]
 *                   [--baseline DDB] [--no-dynalite] [--op NAME] [--quick]
 *                   [--sync MODE] [--server-threads N]
 *
 * Both servers get one table of 20 partitions x 100 items (~200 bytes: two
 * strings, two numbers, a binary), loaded over HTTP with BatchWriteItem.
 * The request bodies are built before the clock starts, so the client only
 * sends bytes and reads the answer (status 200 checked; Query and Scan
 * answers must say "Count":100).  Operations: GetItem and PutItem of a
 * random item, a 100-item Query (one partition), a 100-item Scan page
 * (Limit 100) and a 25-item BatchWriteItem, each from 1 and from T client
 * threads (default 8), S seconds a phase (default 2).  Each phase reports
 * ops/s, p50 and p99 latency and the server's CPU per operation (utime +
 * stime of the server process from /proc/PID/stat, before and after).  R
 * rounds (default 3) run every phase of every server in turn, so a change
 * of the machine's load hits all servers alike; the table gives each
 * cell's median.  `ddb serve` is this build's (`--sync none --log-level
 * none`: dynalite keeps its tables in memory and logs nothing; --sync and
 * --server-threads change its --sync and --threads); --baseline DDB adds another `ddb` binary (e.g. the main
 * branch's) to the same rounds; --op get|put|query|scan|batch runs that
 * operation alone (e.g. under `perf record -p` of a server); dynalite is
 * started by tests/remote/dynalite.sh (npm, installed once into the build tree).
 * Client and servers share this machine's cores: the load average is
 * printed before and after.  Calls bx.c (options, the timed phases),
 * remote_work.c (dynalite's start only) and libcurl. */
#include "bx.h"
#include "remote_work.h"

#include <curl/curl.h>

#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef DYNALITE_SH
#define DYNALITE_SH "tests/remote/dynalite.sh"
#endif
#ifndef DYNALITE_DIR
#define DYNALITE_DIR "/tmp/ddb-bench-dynalite"
#endif
#ifndef DDB_TOOL
#define DDB_TOOL "ddb"
#endif

#define TABLE "serve_bench"
#define PARTS 20u
#define PER_PART 100u
#define ITEMS (PARTS * PER_PART)
#define BATCH 25u
#define LAT_CAP (1u << 18) /* latencies kept per thread and phase */
#define MAX_SERVERS 3
#define MAX_ROUNDS 15

/* ---- Request bodies, built once ---------------------------------------- */

typedef enum op_kind { OP_GET, OP_PUT, OP_QUERY, OP_SCAN, OP_BATCH, N_OPS } op_kind;
static const char *const op_names[N_OPS] = {"get", "put", "query (100 items)", "scan page (100 items)",
                                             "batch write (25 items)"};
static const char *const op_short[N_OPS] = {"get", "put", "query", "scan", "batch"};
static const char *const op_targets[N_OPS] = {"GetItem", "PutItem", "Query", "Scan", "BatchWriteItem"};

typedef struct bodies {
    char **b;
    size_t *len;
    size_t n;
} bodies;

static bodies op_bodies[N_OPS];

static char *fmt_item(char *p, unsigned i)
{
    /* ~200 bytes as DynamoDB counts them */
    static const char blob[] = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7";
    return p + sprintf(p,
                       "{\"pk\":{\"S\":\"user#%08u\"},\"sk\":{\"S\":\"order#%04u\"},\"qty\":{\"N\":\"%u\"},"
                       "\"price\":{\"N\":\"%u.%02u\"},\"note\":{\"S\":\"a note of some length, to make the item "
                       "look like an order line %u\"},\"blob\":{\"B\":\"%s\"}}",
                       i / PER_PART, i % PER_PART, i * 7 % 1000, i % 500, i % 100, i, blob);
}

static void add_body(op_kind op, const char *text)
{
    bodies *s = &op_bodies[op];
    s->b = realloc(s->b, (s->n + 1) * sizeof *s->b);
    s->len = realloc(s->len, (s->n + 1) * sizeof *s->len);
    if (!s->b || !s->len || !(s->b[s->n] = strdup(text))) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    s->len[s->n++] = strlen(text);
}

static void build_bodies(void)
{
    static char buf[16384];
    for (unsigned i = 0; i < ITEMS; i++) {
        sprintf(buf, "{\"TableName\":\"" TABLE "\",\"Key\":{\"pk\":{\"S\":\"user#%08u\"},\"sk\":{\"S\":\"order#%04u\"}}}",
                i / PER_PART, i % PER_PART);
        add_body(OP_GET, buf);
        char *p = buf + sprintf(buf, "{\"TableName\":\"" TABLE "\",\"Item\":");
        strcpy(fmt_item(p, i), "}");
        add_body(OP_PUT, buf);
    }
    for (unsigned k = 0; k < PARTS; k++) {
        sprintf(buf,
                "{\"TableName\":\"" TABLE "\",\"KeyConditionExpression\":\"pk = :p\","
                "\"ExpressionAttributeValues\":{\":p\":{\"S\":\"user#%08u\"}}}",
                k);
        add_body(OP_QUERY, buf);
    }
    add_body(OP_SCAN, "{\"TableName\":\"" TABLE "\",\"Limit\":100}");
    for (unsigned b = 0; b < ITEMS / BATCH; b++) {
        char *p = buf + sprintf(buf, "{\"RequestItems\":{\"" TABLE "\":[");
        for (unsigned i = 0; i < BATCH; i++) {
            p += sprintf(p, "%s{\"PutRequest\":{\"Item\":", i ? "," : "");
            p = fmt_item(p, b * BATCH + i);
            p += sprintf(p, "}}");
        }
        strcpy(p, "]}}");
        add_body(OP_BATCH, buf);
    }
}

/* ---- The client: one libcurl easy handle per thread --------------------- */

typedef struct client {
    CURL *h;
    struct curl_slist *headers[N_OPS + 1]; /* N_OPS: CreateTable */
    char *resp;
    size_t len, cap;
    char url[64];
} client;

static size_t on_data(char *p, size_t size, size_t n, void *ctx)
{
    client *c = ctx;
    size_t k = size * n;
    if (c->len + k + 1 > c->cap) {
        size_t cap = c->cap ? c->cap : 65536;
        while (cap < c->len + k + 1)
            cap *= 2;
        char *g = realloc(c->resp, cap);
        if (!g)
            return 0;
        c->resp = g;
        c->cap = cap;
    }
    memcpy(c->resp + c->len, p, k);
    c->len += k;
    c->resp[c->len] = '\0';
    return k;
}

static struct curl_slist *target_headers(const char *op)
{
    char t[96];
    snprintf(t, sizeof t, "X-Amz-Target: DynamoDB_20120810.%s", op);
    struct curl_slist *h = NULL;
    h = curl_slist_append(h, t);
    h = curl_slist_append(h, "Content-Type: application/x-amz-json-1.0");
    h = curl_slist_append(h, "X-Amz-Date: 20260101T000000Z");
    /* dynalite wants a well-formed (not a valid) signature; ddb serve without --auth ignores it */
    h = curl_slist_append(h, "Authorization: AWS4-HMAC-SHA256 Credential=AKIDBENCH/20260101/us-east-1/dynamodb/"
                             "aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-target, "
                             "Signature=0000000000000000000000000000000000000000000000000000000000000000");
    return curl_slist_append(h, "Expect:"); /* no 100-continue round trip for larger bodies */
}

static void client_close(client *c)
{
    if (!c)
        return;
    curl_easy_cleanup(c->h);
    for (int i = 0; i <= N_OPS; i++)
        curl_slist_free_all(c->headers[i]);
    free(c->resp);
    free(c);
}

static client *client_open(int port)
{
    client *c = calloc(1, sizeof *c);
    if (!c || !(c->h = curl_easy_init())) {
        free(c);
        return NULL;
    }
    for (int i = 0; i < N_OPS; i++)
        c->headers[i] = target_headers(op_targets[i]);
    c->headers[N_OPS] = target_headers("CreateTable");
    snprintf(c->url, sizeof c->url, "http://127.0.0.1:%d/", port);
    curl_easy_setopt(c->h, CURLOPT_URL, c->url);
    curl_easy_setopt(c->h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c->h, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(c->h, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c->h, CURLOPT_WRITEDATA, c);
    curl_easy_setopt(c->h, CURLOPT_TIMEOUT, 60L);
    return c;
}

/* One request (hdr: an index of c->headers); 0 when answered 200 (and, with
 * want, the answer holds want). */
static int client_post(client *c, int hdr, const char *body, size_t len, const char *want)
{
    c->len = 0;
    curl_easy_setopt(c->h, CURLOPT_HTTPHEADER, c->headers[hdr]);
    curl_easy_setopt(c->h, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c->h, CURLOPT_POSTFIELDSIZE, (long)len);
    CURLcode cc = curl_easy_perform(c->h);
    long status = 0;
    curl_easy_getinfo(c->h, CURLINFO_RESPONSE_CODE, &status);
    if (cc == CURLE_OK && status == 200 && (!want || (c->len && strstr(c->resp, want))))
        return 0;
    fprintf(stderr, "request %s to %s: %s, status %ld: %.300s\n", hdr < N_OPS ? op_targets[hdr] : "CreateTable",
            c->url, curl_easy_strerror(cc), status, c->resp ? c->resp : "");
    return -1;
}

/* ---- The servers --------------------------------------------------------- */

typedef struct srv {
    char name[64];
    pid_t pid;
    int port;
} srv;

/* /proc/PID/stat: utime + stime in seconds; -1 when unreadable. */
static double proc_cpu(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* the command name may hold spaces */
    unsigned long ut, st;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
        return -1;
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* ddb serve's --sync and --threads ("" : the server's default). */
static char serve_sync[16] = "none", serve_threads[16] = "";

/* `DDB --db DIR serve` on a port the kernel picks; 0 when listening. */
static int start_serve(const char *ddb, const char *dir, int idx, srv *s)
{
    char db[1100], port_file[1100];
    snprintf(db, sizeof db, "%s/serve-db-%d", dir, idx);
    snprintf(port_file, sizeof port_file, "%s/serve-%d.port", dir, idx);
    unlink(port_file);
    pid_t p = fork();
    if (p < 0)
        return -1;
    if (p == 0) {
        if (!freopen("/dev/null", "w", stdout))
            _exit(127);
        if (serve_threads[0])
            execl(ddb, ddb, "--db", db, "serve", "--listen", "127.0.0.1:0", "--port-file", port_file, "--sync",
                  serve_sync, "--log-level", "none", "--threads", serve_threads, (char *)NULL);
        else
            execl(ddb, ddb, "--db", db, "serve", "--listen", "127.0.0.1:0", "--port-file", port_file, "--sync",
                  serve_sync, "--log-level", "none", (char *)NULL);
        _exit(127);
    }
    s->pid = p;
    for (int i = 0; i < 600; i++) { /* 60 s */
        FILE *f = fopen(port_file, "r");
        if (f) {
            int ok = fscanf(f, "%d", &s->port) == 1;
            fclose(f);
            if (ok && s->port > 0)
                return 0;
        }
        int st;
        if (waitpid(p, &st, WNOHANG) == p) {
            fprintf(stderr, "%s serve exited at start (status %d)\n", ddb, st);
            s->pid = 0;
            return -1;
        }
        usleep(100 * 1000);
    }
    fprintf(stderr, "%s serve did not write %s within 60 s\n", ddb, port_file);
    return -1;
}

/* CreateTable and the items, over HTTP. */
static int load(const srv *s)
{
    static const char create[] =
        "{\"TableName\":\"" TABLE "\",\"AttributeDefinitions\":[{\"AttributeName\":\"pk\",\"AttributeType\":\"S\"},"
        "{\"AttributeName\":\"sk\",\"AttributeType\":\"S\"}],\"KeySchema\":[{\"AttributeName\":\"pk\",\"KeyType\":"
        "\"HASH\"},{\"AttributeName\":\"sk\",\"KeyType\":\"RANGE\"}],\"BillingMode\":\"PAY_PER_REQUEST\"}";
    client *c = client_open(s->port);
    int rc = c ? client_post(c, N_OPS, create, sizeof create - 1, NULL) : -1;
    for (size_t i = 0; i < op_bodies[OP_BATCH].n && !rc; i++)
        rc = client_post(c, OP_BATCH, op_bodies[OP_BATCH].b[i], op_bodies[OP_BATCH].len[i], NULL);
    client_close(c);
    if (rc)
        fprintf(stderr, "%s: loading the table failed\n", s->name);
    return rc;
}

/* ---- One timed phase ----------------------------------------------------- */

typedef struct phase {
    const srv *s;
    op_kind op;
    pthread_mutex_t mu;
    double *lat;
    size_t n;
} phase;

typedef struct thread_ctx {
    phase *ph;
    client *c;
    double *lat;
    size_t n;
} thread_ctx;

static void *thread_open(void *ctx, int id)
{
    (void)id;
    phase *ph = ctx;
    thread_ctx *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->ph = ph;
    t->lat = malloc(LAT_CAP * sizeof *t->lat);
    t->c = client_open(ph->s->port);
    if (!t->lat || !t->c) {
        client_close(t->c);
        free(t->lat);
        free(t);
        return NULL;
    }
    return t;
}

static void thread_close(void *vt)
{
    thread_ctx *t = vt;
    phase *ph = t->ph;
    pthread_mutex_lock(&ph->mu);
    double *grown = realloc(ph->lat, (ph->n + t->n + 1) * sizeof *grown);
    if (grown) {
        memcpy(grown + ph->n, t->lat, t->n * sizeof *grown);
        ph->lat = grown;
        ph->n += t->n;
    }
    pthread_mutex_unlock(&ph->mu);
    client_close(t->c);
    free(t->lat);
    free(t);
}

static int thread_op(void *vt, uint64_t *rng)
{
    thread_ctx *t = vt;
    const bodies *b = &op_bodies[t->ph->op];
    size_t k = (size_t)(bx_rand(rng) % b->n);
    bool page = t->ph->op == OP_QUERY || t->ph->op == OP_SCAN;
    double t0 = bx_now();
    int rc = client_post(t->c, (int)t->ph->op, b->b[k], b->len[k], page ? "\"Count\":100" : NULL);
    if (t->n < LAT_CAP)
        t->lat[t->n++] = bx_now() - t0;
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Percentile q (0..100) in milliseconds, nearest rank, of sorted lat. */
static double pct_ms(const double *lat, size_t n, unsigned q)
{
    if (!n)
        return 0;
    size_t k = (n * q + 99) / 100;
    return lat[k ? k - 1 : 0] * 1e3;
}

typedef struct cell {
    double rate, p50, p99, cpu_us; /* ops/s, ms, ms, server CPU µs per op */
} cell;

static int run_phase(const srv *s, op_kind op, int threads, double secs, cell *out)
{
    phase ph = {.s = s, .op = op};
    pthread_mutex_init(&ph.mu, NULL);
    bx_job j = {.threads = threads, .budget = UINT64_MAX, .cap_s = secs, .ctx = &ph,
                .thread_open = thread_open, .thread_close = thread_close, .op = thread_op};
    double cpu0 = proc_cpu(s->pid);
    bx_result r = bx_run(&j);
    double cpu1 = proc_cpu(s->pid);
    qsort(ph.lat, ph.n, sizeof *ph.lat, cmp_double);
    out->rate = bx_rate(&r);
    out->p50 = pct_ms(ph.lat, ph.n, 50);
    out->p99 = pct_ms(ph.lat, ph.n, 99);
    out->cpu_us = r.ops && cpu0 >= 0 && cpu1 >= 0 ? (cpu1 - cpu0) / (double)r.ops * 1e6 : 0;
    free(ph.lat);
    pthread_mutex_destroy(&ph.mu);
    fprintf(stderr, "  %-22s %-24s %2d clients: %8.0f ops/s  p50 %.3f ms  p99 %.3f ms  server CPU %.1f us/op%s\n",
            s->name, op_names[op], threads, out->rate, out->p50, out->p99, out->cpu_us, r.failed ? "  FAILED" : "");
    return r.failed ? -1 : 0;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: ddb-bench-serve [--seconds S] [--rounds R] [--threads T] [--dir DIR] [--baseline DDB] "
            "[--no-dynalite] [--quick]\n"
            "  --seconds S     length of each phase (default 2)\n"
            "  --rounds R      interleaved rounds, medians reported (default 3, at most %d)\n"
            "  --threads T     client threads of the multi-client phases (default 8)\n"
            "  --dir DIR       work directory (default /tmp/ddb-bench-serve-PID; emptied first, removed after)\n"
            "  --baseline DDB  another ddb binary's serve in the same rounds (before/after a change)\n"
            "  --no-dynalite   measure ddb serve alone\n"
            "  --op NAME       only get, put, query, scan or batch\n"
            "  --quick         1-second phases, 1 round\n"
            "  --sync MODE     ddb serve's --sync (default none: dynalite keeps its tables in memory)\n"
            "  --server-threads N  ddb serve's --threads (default: the server's own, one per core)\n",
            MAX_ROUNDS);
    exit(2);
}

int main(int argc, char **argv)
{
    double secs = 2;
    int rounds = 3, threads = 8;
    char dir[1024];
    snprintf(dir, sizeof dir, "/tmp/ddb-bench-serve-%d", (int)getpid());
    const char *baseline = NULL, *only = NULL;
    bool quick = false, no_dyn = false;
    const bx_opt opts[] = {
        {"--seconds", BX_OPT_DOUBLE, &secs, 0},     {"--rounds", BX_OPT_INT, &rounds, 0},
        {"--threads", BX_OPT_INT, &threads, 0},     {"--dir", BX_OPT_TEXT, dir, sizeof dir},
        {"--baseline", BX_OPT_ARG, &baseline, 0},   {"--no-dynalite", BX_OPT_FLAG, &no_dyn, 0},
        {"--op", BX_OPT_ARG, &only, 0},             {"--quick", BX_OPT_FLAG, &quick, 0},
        {"--sync", BX_OPT_TEXT, serve_sync, sizeof serve_sync},
        {"--server-threads", BX_OPT_TEXT, serve_threads, sizeof serve_threads},
    };
    if (!bx_parse_args(argc, argv, opts, sizeof opts / sizeof *opts))
        usage();
    if (quick)
        secs = 1, rounds = 1;
    int op_only = -1;
    for (int i = 0; only && i < N_OPS; i++)
        if (strcmp(only, op_short[i]) == 0)
            op_only = i;
    if ((only && op_only < 0) || secs <= 0 || threads < 1 || threads > 64 || rounds < 1 || rounds > MAX_ROUNDS)
        usage();
    bx_print_header("ddb-bench-serve: ddb serve vs dynalite, one independent keep-alive HTTP client (libcurl)", argc,
                    argv);
    fflush(stdout);
    if (bx_fresh_dir(dir) != 0 || curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        return 1;
    build_bodies();

    srv servers[MAX_SERVERS];
    memset(servers, 0, sizeof servers);
    int ns = 0, status = 0;
    snprintf(servers[ns].name, sizeof servers[ns].name, "ddb serve");
    status = start_serve(DDB_TOOL, dir, ns, &servers[ns]) ? 1 : 0;
    ns++;
    if (!status && baseline) {
        snprintf(servers[ns].name, sizeof servers[ns].name, "ddb serve (baseline)");
        status = start_serve(baseline, dir, ns, &servers[ns]) ? 1 : 0;
        ns++;
    }
    if (!status && !no_dyn) {
        snprintf(servers[ns].name, sizeof servers[ns].name, "dynalite");
        char uri[128];
        long pid = 0;
        int rc = rw_start_dynalite(DYNALITE_SH, DYNALITE_DIR, uri, sizeof uri, &pid);
        if (rc == 0 && sscanf(uri, "http://127.0.0.1:%d", &servers[ns].port) == 1) {
            servers[ns].pid = (pid_t)pid;
            ns++;
        } else if (rc != 77) /* 77: no node/npm, ddb serve alone */
            status = 1;
    }
    for (int s = 0; s < ns && !status; s++)
        status = load(&servers[s]) ? 1 : 0;
    printf("Load average (1 min) before: %.2f\n", bx_loadavg());
    fflush(stdout);

    const int tcounts[2] = {1, threads};
    static cell cells[MAX_ROUNDS][2][N_OPS][MAX_SERVERS];
    for (int r = 0; r < rounds && !status; r++) {
        fprintf(stderr, "round %d of %d (load %.2f)\n", r + 1, rounds, bx_loadavg());
        for (int tc = 0; tc < 2 && !status; tc++)
            for (int op = 0; op < N_OPS && !status; op++)
                for (int s = 0; s < ns && !status && (op_only < 0 || op == op_only); s++)
                    status = run_phase(&servers[s], (op_kind)op, tcounts[tc], secs, &cells[r][tc][op][s]) ? 1 : 0;
    }
    double load_after = bx_loadavg();
    for (int s = 0; s < ns; s++)
        if (servers[s].pid > 0) {
            kill(servers[s].pid, SIGTERM);
            if (strcmp(servers[s].name, "dynalite"))
                waitpid(servers[s].pid, NULL, 0);
        }
    bx_rm_rf(dir);
    curl_global_cleanup();
    if (status)
        return 1;

    int dyn = strcmp(servers[ns - 1].name, "dynalite") == 0 ? ns - 1 : -1;
    printf("\n%u items (%u partitions x %u, ~200 bytes); %g-second phases; medians of %d interleaved round%s.\n\n",
           ITEMS, PARTS, PER_PART, secs, rounds, rounds > 1 ? "s" : "");
    printf("| operation | clients | server | ops/s | p50 ms | p99 ms | server CPU us/op | ops/s vs dynalite | "
           "dynalite's CPU/op / this |\n|---|---:|---|---:|---:|---:|---:|---:|---:|\n");
    for (int tc = 0; tc < 2; tc++)
        for (int op = 0; op < N_OPS; op++) {
            if (op_only >= 0 && op != op_only)
                continue;
            cell m[MAX_SERVERS];
            for (int s = 0; s < ns; s++) {
                double v[4][MAX_ROUNDS];
                for (int r = 0; r < rounds; r++) {
                    const cell *c = &cells[r][tc][op][s];
                    v[0][r] = c->rate, v[1][r] = c->p50, v[2][r] = c->p99, v[3][r] = c->cpu_us;
                }
                m[s] = (cell){median(v[0], rounds), median(v[1], rounds), median(v[2], rounds),
                              median(v[3], rounds)};
            }
            for (int s = 0; s < ns; s++) {
                char q[32] = "-", qc[32] = "-";
                if (dyn >= 0 && s != dyn) {
                    bx_fmt_ratio(q, sizeof q, m[s].rate, m[dyn].rate);
                    bx_fmt_ratio(qc, sizeof qc, m[dyn].cpu_us, m[s].cpu_us);
                }
                printf("| %s | %d | %s | %.0f | %.3f | %.3f | %.0f | %s | %s |\n", op_names[op], tcounts[tc],
                       servers[s].name, m[s].rate, m[s].p50, m[s].p99, m[s].cpu_us, q, qc);
            }
        }
    printf("\nLoad average (1 min) after: %.2f. Server CPU from /proc/PID/stat (clock ticks of %ld/s).\n", load_after,
           sysconf(_SC_CLK_TCK));
    return 0;
}
