/* ddb serve: the connection guard.  libmicrohttpd's --timeout is an idle
 * timer that every byte resets, so a client trickling a byte at a time
 * could hold a connection (and, with many, the server) for ever.  The
 * guard gives each connection a deadline: its next request's first line
 * must arrive within the idle time of the connection's opening or of the
 * previous response, and the request's headers and body within
 * --request-timeout of that first line, and its answer must be computed
 * and read by the client within --response-timeout of the request's
 * arrival (a client reading a byte at a time also resets the idle timer).
 * A watchdog thread resets the connections past their deadline (SO_LINGER
 * 0 and shutdown(2): what is still queued is dropped), which
 * libmicrohttpd then sees as closed by the client.  It also bounds the connections open at once: past
 * --max-connections, or --max-per-address from one client address, a new
 * connection is closed at once (libmicrohttpd's own limits count per
 * worker thread, and at them connections wait in the kernel's queue).
 * Calls libmicrohttpd and POSIX only. */
#include "guard.h"

#include "serve.h"

#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* One connection, on the list the watchdog scans. */
typedef struct guard_conn {
    struct guard_conn *prev, *next;
    int fd;
    int64_t deadline_ms; /* monotonic */
    bool closing;        /* shut down by the watchdog */
} guard_conn;

/* Open connections from one client address (IPv4 or IPv6, port left out). */
typedef struct addr_count {
    struct addr_count *next;
    unsigned char key[17]; /* family byte + up to 16 address bytes */
    unsigned n;
} addr_count;

#define ADDR_BUCKETS 1024

static guard_limits limits;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static guard_conn *head;          /* under lock */
static addr_count *by_addr[ADDR_BUCKETS]; /* under lock */
static atomic_uint open_conns;    /* reserved by guard_accept, released when closed */
static atomic_uint refused;       /* since the watchdog last logged */
static pthread_t watchdog;
static bool running;              /* under lock */
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;

static int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* The address's key (family + bytes); false for another family. */
static bool addr_key(const struct sockaddr *sa, socklen_t len, unsigned char key[17])
{
    memset(key, 0, 17);
    if (sa && sa->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
        key[0] = 4;
        memcpy(key + 1, &((const struct sockaddr_in *)sa)->sin_addr, 4);
        return true;
    }
    if (sa && sa->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
        key[0] = 6;
        memcpy(key + 1, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
        return true;
    }
    return false;
}

/* The link holding the address's counter, or the empty link where it would go.  Under lock. */
static addr_count **addr_slot(const unsigned char key[17])
{
    uint32_t h = 2166136261u;
    for (int i = 0; i < 17; i++)
        h = (h ^ key[i]) * 16777619u;
    addr_count **p = &by_addr[h % ADDR_BUCKETS];
    while (*p && memcmp((*p)->key, key, 17) != 0)
        p = &(*p)->next;
    return p;
}

MHD_Result_t guard_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
    (void)cls;
    unsigned char key[17];
    bool keyed = limits.max_per_address && addr_key(addr, addrlen, key);
    bool ok = false;
    pthread_mutex_lock(&lock);
    if (atomic_load(&open_conns) < limits.max_connections) {
        ok = true;
        if (keyed) {
            addr_count **slot = addr_slot(key);
            if (!*slot && (*slot = calloc(1, sizeof **slot)))
                memcpy((*slot)->key, key, 17);
            ok = *slot && (*slot)->n < limits.max_per_address;
            if (ok)
                (*slot)->n++;
        }
        if (ok)
            atomic_fetch_add(&open_conns, 1);
    }
    pthread_mutex_unlock(&lock);
    if (!ok)
        atomic_fetch_add(&refused, 1);
    return ok ? MHD_YES : MHD_NO;
}

/* A connection from addr is gone: its reservations are released.  Under lock. */
static void release(const struct sockaddr *addr, socklen_t addrlen)
{
    unsigned char key[17];
    if (limits.max_per_address && addr_key(addr, addrlen, key)) {
        addr_count **slot = addr_slot(key);
        if (*slot && --(*slot)->n == 0) {
            addr_count *gone = *slot;
            *slot = gone->next;
            free(gone);
        }
    }
    atomic_fetch_sub(&open_conns, 1);
}

static void set_deadline(struct MHD_Connection *c, unsigned seconds)
{
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    guard_conn *g = ci ? ci->socket_context : NULL;
    if (!g)
        return;
    pthread_mutex_lock(&lock);
    g->deadline_ms = seconds ? now_ms() + (int64_t)seconds * 1000 : 0;
    pthread_mutex_unlock(&lock);
}

void guard_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                      enum MHD_ConnectionNotificationCode toe)
{
    (void)cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        guard_conn *g = ci ? calloc(1, sizeof *g) : NULL;
        if (!g)
            return; /* unguarded: only the idle timer applies */
        g->fd = ci->connect_fd;
        g->deadline_ms = now_ms() + (int64_t)limits.idle_s * 1000;
        pthread_mutex_lock(&lock);
        g->next = head;
        if (head)
            head->prev = g;
        head = g;
        pthread_mutex_unlock(&lock);
        *socket_context = g;
        return;
    }
    /* closed: libmicrohttpd closes the socket after this returns, so the
     * watchdog (under the same lock) never touches a reused descriptor */
    guard_conn *g = *socket_context;
    const union MHD_ConnectionInfo *ai = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    pthread_mutex_lock(&lock);
    if (g) {
        if (g->prev)
            g->prev->next = g->next;
        else
            head = g->next;
        if (g->next)
            g->next->prev = g->prev;
    }
    const struct sockaddr *sa = ai ? ai->client_addr : NULL;
    release(sa, !sa ? 0 : sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in));
    pthread_mutex_unlock(&lock);
    free(g);
    *socket_context = NULL;
}

void guard_request_begun(struct MHD_Connection *c)
{
    set_deadline(c, limits.request_s);
}

void guard_request_received(struct MHD_Connection *c)
{
    set_deadline(c, limits.response_s);
}

void guard_request_done(struct MHD_Connection *c)
{
    set_deadline(c, limits.idle_s);
}

static void *watch(void *arg)
{
    (void)arg;
    /* a quarter of the shorter deadline, at most a second */
    unsigned least = limits.request_s < limits.idle_s ? limits.request_s : limits.idle_s;
    least = limits.response_s < least ? limits.response_s : least;
    int64_t step_ms = least * 250 < 1000 ? least * 250 : 1000;
    pthread_mutex_lock(&lock);
    while (running) {
        int64_t now = now_ms();
        unsigned closed = 0;
        for (guard_conn *g = head; g; g = g->next)
            if (g->deadline_ms && now >= g->deadline_ms && !g->closing) {
                struct linger reset = {.l_onoff = 1, .l_linger = 0};
                setsockopt(g->fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
                shutdown(g->fd, SHUT_RDWR);
                g->closing = true;
                closed++;
            }
        unsigned n_refused = atomic_exchange(&refused, 0);
        if (limits.log_level >= LOG_WARN && (closed || n_refused)) {
            if (closed)
                fprintf(stderr, "ddb serve: closed %u connection%s past their deadline (a request line within "
                                "--timeout %u s, its headers and body within --request-timeout %u s, its answer "
                                "read within --response-timeout %u s)\n",
                        closed, closed == 1 ? "" : "s", limits.idle_s, limits.request_s, limits.response_s);
            if (n_refused)
                fprintf(stderr, "ddb serve: refused %u connection%s: --max-connections %u in all, --max-per-address "
                                "%u\n",
                        n_refused, n_refused == 1 ? "" : "s", limits.max_connections, limits.max_per_address);
        }
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += (long)(step_ms % 1000) * 1000000L;
        until.tv_sec += step_ms / 1000 + until.tv_nsec / 1000000000L;
        until.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&wake, &lock, &until);
    }
    pthread_mutex_unlock(&lock);
    return NULL;
}

bool guard_start(const guard_limits *lim)
{
    limits = *lim;
    running = true;
    if (pthread_create(&watchdog, NULL, watch, NULL)) {
        running = false;
        return false;
    }
    return true;
}

void guard_stop(void)
{
    pthread_mutex_lock(&lock);
    if (!running) {
        pthread_mutex_unlock(&lock);
        return;
    }
    running = false;
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&lock);
    pthread_join(watchdog, NULL);
}
