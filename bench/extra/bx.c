/* Shared helpers of the bench/extra benchmarks (see bx.h). */
#include "bx.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

double bx_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double bx_cpu(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           (double)ru.ru_stime.tv_usec / 1e6;
}

uint64_t bx_rand(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1Dull;
}

void bx_machine(char *out, size_t cap)
{
    char model[256] = "unknown CPU";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) == 0) {
                const char *p = strchr(line, ':');
                if (p) {
                    p++;
                    while (*p == ' ' || *p == '\t')
                        p++;
                    snprintf(model, sizeof model, "%s", p);
                    model[strcspn(model, "\n")] = '\0';
                }
                break;
            }
        }
        fclose(f);
    }
    struct utsname u;
    const char *kernel = uname(&u) == 0 ? u.release : "?";
    snprintf(out, cap, "nproc %ld, %s, Linux %s, "
#if defined(__clang__)
             "clang %d.%d"
#elif defined(__GNUC__)
             "gcc %d.%d"
#else
             "cc %d.%d"
#endif
             ,
             sysconf(_SC_NPROCESSORS_ONLN), model, kernel,
#if defined(__GNUC__)
             __GNUC__, __GNUC_MINOR__
#else
             0, 0
#endif
    );
}

double bx_loadavg(void)
{
    double l = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1)
            l = -1;
        fclose(f);
    }
    return l;
}

void bx_print_header(const char *title, int argc, char **argv)
{
    char m[512];
    bx_machine(m, sizeof m);
    printf("## %s\n\nMachine: %s; load average (1 min) at start: %.2f\n\nCommand:", title, m, bx_loadavg());
    for (int i = 0; i < argc; i++)
        printf(" %s", argv[i]);
    printf("\n\n");
    fflush(stdout);
}

int bx_rm_rf(const char *dir)
{
    if (!dir || !dir[0] || strcmp(dir, "/") == 0 || strchr(dir, '\''))
        return -1;
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd);
}

/* ---- the runner ---- */

typedef struct run {
    const bx_job *j;
    _Atomic double deadline;
    _Atomic uint64_t next, done;
    _Atomic bool failed;
    pthread_barrier_t start, end;
} run;

typedef struct worker {
    run *r;
    int id;
} worker;

static void *work(void *vw)
{
    worker *wk = vw;
    run *r = wk->r;
    const bx_job *j = r->j;
    void *tc = j->thread_open(j->ctx, wk->id);
    if (!tc)
        atomic_store(&r->failed, true);
    uint64_t rng = 0x9E3779B97F4A7C15ull * (uint64_t)(wk->id + 1) ^ (uint64_t)time(NULL) << 20;
    if (!rng)
        rng = 1;
    pthread_barrier_wait(&r->start);
    uint64_t mine = 0;
    while (tc && !atomic_load_explicit(&r->failed, memory_order_relaxed)) {
        if (atomic_fetch_add_explicit(&r->next, 1, memory_order_relaxed) >= j->budget)
            break;
        if ((mine & 7) == 0 && bx_now() > atomic_load_explicit(&r->deadline, memory_order_relaxed))
            break;
        if (j->op(tc, &rng) != 0) {
            atomic_store(&r->failed, true);
            break;
        }
        mine++;
    }
    atomic_fetch_add(&r->done, mine);
    pthread_barrier_wait(&r->end);
    if (tc)
        j->thread_close(tc);
    return NULL;
}

bx_result bx_run(const bx_job *j)
{
    run r = {.j = j};
    int n = j->threads < 1 ? 1 : j->threads > 256 ? 256 : j->threads;
    atomic_store(&r.deadline, 1e300);
    pthread_barrier_init(&r.start, NULL, (unsigned)n + 1);
    pthread_barrier_init(&r.end, NULL, (unsigned)n + 1);
    pthread_t tid[256];
    worker wk[256];
    for (int i = 0; i < n; i++) {
        wk[i] = (worker){&r, i};
        pthread_create(&tid[i], NULL, work, &wk[i]);
    }
    pthread_barrier_wait(&r.start);
    double t0 = bx_now(), c0 = bx_cpu();
    atomic_store(&r.deadline, t0 + j->cap_s);
    pthread_barrier_wait(&r.end);
    double t1 = bx_now(), c1 = bx_cpu();
    for (int i = 0; i < n; i++)
        pthread_join(tid[i], NULL);
    pthread_barrier_destroy(&r.start);
    pthread_barrier_destroy(&r.end);
    return (bx_result){atomic_load(&r.done), t1 - t0, c1 - c0, atomic_load(&r.failed)};
}

double bx_rate(const bx_result *r)
{
    return r->failed || !r->ops || r->secs <= 0 ? 0 : (double)r->ops / r->secs;
}

const char *bx_fmt_rate(char *out, size_t cap, const bx_result *r)
{
    if (r->failed)
        snprintf(out, cap, "failed");
    else if (!r->ops || r->secs <= 0)
        snprintf(out, cap, "-");
    else {
        double v = (double)r->ops / r->secs;
        if (v >= 100)
            snprintf(out, cap, "%.0f", v);
        else
            snprintf(out, cap, "%.1f", v);
    }
    return out;
}

const char *bx_fmt_ratio(char *out, size_t cap, double num, double den)
{
    if (num <= 0 || den <= 0)
        snprintf(out, cap, "-");
    else
        snprintf(out, cap, "%.2fx", num / den);
    return out;
}

int bx_fresh_dir(const char *dir)
{
    if (bx_rm_rf(dir) != 0 || mkdir(dir, 0755) != 0) {
        fprintf(stderr, "cannot create %s: %s\n", dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* One option's value v into o; false with the reason on stderr. */
static bool parse_value(const bx_opt *o, const char *v)
{
    char *end = NULL;
    errno = 0;
    switch (o->kind) {
    case BX_OPT_DOUBLE: {
        double d = strtod(v, &end);
        if (end == v || *end || errno || !isfinite(d))
            break;
        *(double *)o->out = d;
        return true;
    }
    case BX_OPT_INT: {
        long l = strtol(v, &end, 10);
        if (end == v || *end || errno || l < INT_MIN || l > INT_MAX)
            break;
        *(int *)o->out = (int)l;
        return true;
    }
    case BX_OPT_U64: {
        unsigned long long u = strtoull(v, &end, 10);
        if (end == v || *end || errno || *v == '-')
            break;
        *(uint64_t *)o->out = (uint64_t)u;
        return true;
    }
    case BX_OPT_TEXT:
        if (strlen(v) >= o->cap) {
            fprintf(stderr, "%s: %zu characters at most\n", o->name, o->cap - 1);
            return false;
        }
        memcpy(o->out, v, strlen(v) + 1);
        return true;
    case BX_OPT_ARG:
        *(const char **)o->out = v;
        return true;
    case BX_OPT_FLAG:
        break;
    }
    fprintf(stderr, "%s: '%s' is not a number\n", o->name, v);
    return false;
}

bool bx_parse_args(int argc, char **argv, const bx_opt *opts, size_t n)
{
    for (int i = 1; i < argc; i++) {
        const bx_opt *o = NULL;
        for (size_t k = 0; k < n && !o; k++)
            if (!strcmp(argv[i], opts[k].name))
                o = &opts[k];
        if (!o) {
            fprintf(stderr, "unknown option '%s'\n", argv[i]);
            return false;
        }
        if (o->kind == BX_OPT_FLAG) {
            *(bool *)o->out = true;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "%s needs a value\n", o->name);
            return false;
        }
        if (!parse_value(o, argv[++i]))
            return false;
    }
    return true;
}
