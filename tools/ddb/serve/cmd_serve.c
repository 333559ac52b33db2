/* ddb serve: the command.  Parses the options, opens the database (with
 * the chosen durability and the TTL sweeper running), binds the listening
 * socket (loopback unless told otherwise: any other address needs --auth
 * or --insecure), announces the bound address (stdout and --port-file, for
 * tests that start it on port 0), then serves until SIGTERM or SIGINT and
 * shuts down cleanly: no new connections, requests in flight finish, the
 * database closes.  It raises the open-files limit to what
 * --max-connections needs, and reads --tls-cert/--tls-key (PEM).  Calls
 * http.c, auth.c, cli.c and libddb. */
#include "../cli.h"
#include "http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static int64_t fixed_clock(void *ctx)
{
    return *(const int64_t *)ctx;
}

/* "HOST:PORT", "[V6]:PORT" or "PORT" -> host and port text. */
static int split_listen(const char *s, char *host, size_t hcap, char *port, size_t pcap)
{
    const char *colon = strrchr(s, ':');
    if (!colon) {
        snprintf(host, hcap, "127.0.0.1");
        snprintf(port, pcap, "%s", s);
        return 0;
    }
    const char *h = s;
    size_t n = (size_t)(colon - s);
    if (n >= 2 && h[0] == '[' && h[n - 1] == ']')
        h++, n -= 2;
    if (n == 0 || n >= hcap)
        return -1;
    memcpy(host, h, n);
    host[n] = '\0';
    snprintf(port, pcap, "%s", colon + 1);
    return *port ? 0 : -1;
}

static bool is_loopback(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
    if (sa->sa_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
        return IN6_IS_ADDR_LOOPBACK(a) ||
               (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
    }
    return false;
}

/* Bind and listen; *loopback tells whether the address is a loopback one. */
static int open_listener(cli *c, const char *listen_at, bool *loopback, char *bound, size_t bcap)
{
    char host[256], port[32];
    if (split_listen(listen_at, host, sizeof host, port, sizeof port))
        return usage_error(c, "--listen takes HOST:PORT, [IPV6]:PORT or PORT, not '%s'", listen_at), -1;
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE}, *res;
    int gai = getaddrinfo(host, port, &hints, &res);
    if (gai) {
        cli_failf(c, "cannot resolve %s: %s", listen_at, gai_strerror(gai));
        return -1;
    }
    int fd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC, res->ai_protocol);
    int one = 1;
    *loopback = is_loopback(res->ai_addr);
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
        bind(fd, res->ai_addr, res->ai_addrlen) || /* a burst of connections up to --max-connections waits in the
                                                        * accept queue (512 dropped and reset the rest of 1,000) */
        listen(fd, SOMAXCONN)) {
        cli_failf(c, "cannot listen on %s: %s", listen_at, strerror(errno));
        if (fd >= 0)
            close(fd);
        freeaddrinfo(res);
        return -1;
    }
    freeaddrinfo(res);
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    char addr[INET6_ADDRSTRLEN] = "?";
    unsigned p = 0;
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0) {
        if (ss.ss_family == AF_INET) {
            inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, addr, sizeof addr);
            p = ntohs(((struct sockaddr_in *)&ss)->sin_port);
            snprintf(bound, bcap, "%s:%u", addr, p);
        } else {
            inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, addr, sizeof addr);
            p = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
            snprintf(bound, bcap, "[%s]:%u", addr, p);
        }
    }
    return fd;
}

/* Write the bound port to path atomically (write, rename). */
static int write_port_file(const char *path, const char *bound)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return -1;
    const char *colon = strrchr(bound, ':');
    fprintf(f, "%s\n", colon ? colon + 1 : bound);
    if (fclose(f) != 0)
        return -1;
    return rename(tmp, path);
}

static int parse_level(const char *s)
{
    static const char *const names[] = {"none", "error", "warn", "info", "debug"};
    for (int i = 0; i < 5; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

static int parse_uint_opt(cli *c, const char *name, unsigned min, unsigned max, unsigned *out)
{
    const char *v = opt_get(c, name);
    uint64_t x;
    if (!v)
        return 0;
    if (parse_u64(v, &x) || x < min || x > max)
        return usage_error(c, "--%s takes a number from %u to %u, not '%s'", name, min, max, v);
    *out = (unsigned)x;
    return 0;
}

/* Descriptors the server holds besides its connections: the database,
 * the listening socket, each worker's epoll and wake-up descriptors,
 * stdio, the logs. */
#define FD_RESERVE 64

/* Open files for max_connections connections: raise the soft limit up to
 * the hard one if need be; -1 (after a message) when the hard limit is lower. */
static int ensure_fd_limit(cli *c, unsigned max_connections, unsigned threads)
{
    struct rlimit rl;
    rlim_t need = (rlim_t)max_connections + FD_RESERVE + 2 * (rlim_t)threads;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= need)
        return 0;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need)
        return usage_error(c, "--max-connections %u needs %llu open files, and this process may open %llu (ulimit -Hn): "
                              "give a lower --max-connections or raise the limit",
                           max_connections, (unsigned long long)need, (unsigned long long)rl.rlim_max), -1;
    rl.rlim_cur = need;
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
        cli_failf(c, "cannot raise the open-files limit to %llu for --max-connections %u: %s",
                  (unsigned long long)need, max_connections, strerror(errno));
        return -1;
    }
    return 0;
}

/* A PEM file (--tls-cert, --tls-key), at most 1 MB, as text; NULL after a message. */
static char *read_pem(cli *c, const char *option, const char *path)
{
    enum { PEM_MAX = 1 << 20 };
    FILE *f = fopen(path, "rb");
    if (!f) {
        cli_failf(c, "--%s %s: %s", option, path, strerror(errno));
        return NULL;
    }
    char *buf = malloc(PEM_MAX + 1);
    size_t n = buf ? fread(buf, 1, PEM_MAX + 1, f) : 0;
    bool bad = ferror(f) != 0;
    fclose(f);
    if (!buf || bad || n > PEM_MAX || n == 0 || memchr(buf, '\0', n) || !strstr((buf[n] = '\0', buf), "-----BEGIN ")) {
        cli_failf(c, "--%s %s: %s", option, path,
                  !buf ? "out of memory" : bad ? "cannot be read" : n > PEM_MAX ? "larger than 1 MB" : "not a PEM file");
        free(buf);
        return NULL;
    }
    return buf;
}

/* --NAME FRACTION: a number in (0, 1]; absent leaves *out alone. */
static int parse_fraction_opt(cli *c, const char *name, double *out)
{
    const char *v = opt_get(c, name);
    if (!v)
        return 0;
    char *end;
    double d = strtod(v, &end);
    if (end == v || *end || !(d > 0 && d <= 1))
        return usage_error(c, "--%s is a fraction in (0, 1], not '%s'", name, v), -1;
    *out = d;
    return 0;
}

/* The default worker pool: one thread per core, and at least 8.  A worker
 * handles its connections' requests one at a time and waits in a durable
 * commit (--sync full): 8 workers let 8 clients' writes share one sync
 * (the engine's group commit) even on 2 cores. */
static unsigned default_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 256 ? 256u : n > 8 ? (unsigned)n : 8u;
}

int cmd_serve(cli *c)
{
    const char *listen_at = opt_get(c, "listen") ? opt_get(c, "listen") : "127.0.0.1:8000";
    server s = {.region = opt_get(c, "region") ? opt_get(c, "region") : "us-east-1",
                .account = "000000000000",
                .log_level = LOG_INFO};
    http_limits lim = {.threads = default_threads(), .max_connections = 1024, .max_per_address = 0, .timeout_s = 60,
                       .request_timeout_s = 30, .response_timeout_s = 60};
    unsigned sweep_ms = 1000, body_mb = 512;
    if (parse_uint_opt(c, "threads", 1, 256, &lim.threads) ||
        parse_uint_opt(c, "max-connections", 1, 100000, &lim.max_connections) ||
        parse_uint_opt(c, "max-per-address", 0, 100000, &lim.max_per_address) ||
        parse_uint_opt(c, "timeout", 1, 3600, &lim.timeout_s) ||
        parse_uint_opt(c, "request-timeout", 1, 3600, &lim.request_timeout_s) ||
        parse_uint_opt(c, "response-timeout", 1, 3600, &lim.response_timeout_s) ||
        parse_uint_opt(c, "sweep-ms", 0, 86400000, &sweep_ms) ||
        parse_uint_opt(c, "body-memory", 16, 1u << 20, &body_mb))
        return EXIT_USAGE;
    double unprocessed = 0;
    unsigned fault_seed = 1;
    if (parse_fraction_opt(c, "unprocessed", &unprocessed) || parse_uint_opt(c, "fault-seed", 0, UINT32_MAX, &fault_seed))
        return EXIT_USAGE;
    if (opt_get(c, "log-level") && (s.log_level = parse_level(opt_get(c, "log-level"))) < 0)
        return usage_error(c, "--log-level is none, error, warn, info or debug, not '%s'", opt_get(c, "log-level"));
    lim.body_memory = (size_t)body_mb << 20;
    /* verified first: a damaged file is refused with the command to run,
     * instead of the TTL sweeper reaching a page LMDB aborts on; reads
     * return expired items until the sweeper deletes them, as DynamoDB's do
     * (developer guide, "Time to Live": expired items not yet deleted still
     * appear in reads); --ttl-hide-expired hides them at once */
    ddb_options o = {.ttl_sweep_ms = sweep_ms,
                     .verify = !opt_count(c, "no-verify"),
                     .ttl_reads = opt_count(c, "ttl-hide-expired") ? DDB_TTL_READS_HIDE : DDB_TTL_READS_SHOW};
    const char *sync = opt_get(c, "sync");
    if (sync) {
        if (strcmp(sync, "full") == 0)
            o.sync = DDB_SYNC_FULL;
        else if (strcmp(sync, "lazy") == 0)
            o.sync = DDB_SYNC_LAZY;
        else if (strcmp(sync, "none") == 0)
            o.sync = DDB_SYNC_NONE;
        else
            return usage_error(c, "--sync is full, lazy or none, not '%s'", sync);
    }
    if (c->have_now) {
        o.clock_ms = fixed_clock;
        o.clock_ctx = &c->now_ms;
    }
    if (!c->uri || !*c->uri)
        return usage_error(c, "no database: give --db DIR");
    if (strstr(c->uri, "://"))
        return usage_error(c, "ddb serve serves an embedded database directory, not %s", c->uri);
    if (!opt_get(c, "tls-cert") != !opt_get(c, "tls-key"))
        return usage_error(c, "--tls-cert and --tls-key go together (the certificate and its private key, PEM)");
    if (ensure_fd_limit(c, lim.max_connections, lim.threads))
        return EXIT_USAGE;
    char *tls_cert = NULL, *tls_key = NULL;
    if (opt_get(c, "tls-cert") && (!(tls_cert = read_pem(c, "tls-cert", opt_get(c, "tls-cert"))) ||
                                   !(tls_key = read_pem(c, "tls-key", opt_get(c, "tls-key"))))) {
        free(tls_cert);
        return 1;
    }
    lim.tls_cert = tls_cert;
    lim.tls_key = tls_key;
    if (opt_get(c, "auth") && !(s.keys = auth_load(opt_get(c, "auth")))) {
        free(tls_cert);
        free(tls_key);
        return 1;
    }
    bool loopback;
    char bound[300] = "";
    int fd = open_listener(c, listen_at, &loopback, bound, sizeof bound);
    if (fd < 0) {
        auth_free(s.keys);
        free(tls_cert);
        free(tls_key);
        return fd == -1 ? 1 : EXIT_USAGE;
    }
    if (!loopback && !s.keys && !opt_count(c, "insecure")) {
        close(fd);
        return usage_error(c, "%s is not a loopback address: give --auth FILE (the access keys to accept) or "
                              "--insecure (anyone who reaches it may read and change every table)",
                           listen_at);
    }
    /* SIGTERM / SIGINT are taken by sigwait below: block them in every
     * thread, before any starts (ddb_open starts the TTL sweeper) */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    ddb_error e = {0};
    if (ddb_open(c->uri, &o, &c->db, &e)) {
        close(fd);
        auth_free(s.keys);
        free(tls_cert);
        free(tls_key);
        return cli_fail(c, &e, "cannot open %s", c->uri);
    }
    s.db = c->db;
    serve_unprocessed_init(&s.unprocessed, unprocessed, fault_seed);
    struct MHD_Daemon *d = http_start(&s, fd, &lim);
    if (!d) {
        close(fd);
        auth_free(s.keys);
        serve_unprocessed_free(&s.unprocessed);
        free(tls_cert);
        free(tls_key);
        return cli_failf(c, "cannot start the HTTP server on %s", bound);
    }
    if (opt_get(c, "port-file") && write_port_file(opt_get(c, "port-file"), bound)) {
        http_stop(d);
        auth_free(s.keys);
        serve_unprocessed_free(&s.unprocessed);
        free(tls_cert);
        free(tls_key);
        return cli_failf(c, "cannot write %s: %s", opt_get(c, "port-file"), strerror(errno));
    }
    printf("ddb serve: listening on %s://%s (database %s%s)\n", tls_cert ? "https" : "http", bound, c->uri,
           s.keys ? ", SigV4 required" : "");
    fflush(stdout);
    int sig = 0;
    sigwait(&set, &sig);
    if (s.log_level >= LOG_INFO)
        fprintf(stderr, "ddb serve: %s: finishing the requests in flight, closing the database\n",
                sig == SIGINT ? "SIGINT" : "SIGTERM");
    http_stop(d);
    auth_free(s.keys);
    serve_unprocessed_free(&s.unprocessed);
    free(tls_cert);
    free(tls_key);
    return 0; /* main() closes the database */
}
