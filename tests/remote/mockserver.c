/* Local HTTP responder (see mockserver.h): a poll() loop over the listening
 * socket, up to MAX_CONN connections and a wake-up pipe for mock_stop. */
#include "mockserver.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#define MAX_CONN 16
#define MAX_LOG 128

typedef struct conn {
    int fd;
    char *buf;
    size_t len, cap;
    int hung; /* MOCK_HANG: ignore whatever else comes */
} conn;

typedef struct logged {
    char *target, *auth, *host, *body;
} logged;

struct mock {
    int lfd, wake[2], port;
    pthread_t th;
    pthread_mutex_t mu;
    mock_step *steps;
    size_t nsteps;
    logged log[MAX_LOG];
    size_t nlog;
    conn c[MAX_CONN];
};

static void conn_close(conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    free(c->buf);
    memset(c, 0, sizeof *c);
    c->fd = -1;
}

static char *header(const char *head, size_t hlen, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = head; p < head + hlen;) {
        const char *eol = memchr(p, '\n', (size_t)(head + hlen - p));
        size_t ll = eol ? (size_t)(eol - p) : (size_t)(head + hlen - p);
        if (ll > n && strncasecmp(p, name, n) == 0 && p[n] == ':') {
            const char *v = p + n + 1;
            while (*v == ' ')
                v++;
            size_t vl = (size_t)(p + ll - v);
            while (vl && (v[vl - 1] == '\r' || v[vl - 1] == ' '))
                vl--;
            return strndup(v, vl);
        }
        p += ll + 1;
    }
    return strdup("");
}

static void send_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

/* A complete request in c->buf: answer it.  Returns 0 to keep the
 * connection, 1 to close it. */
static int serve(mock *m, conn *c, size_t head_len, size_t body_len)
{
    pthread_mutex_lock(&m->mu);
    size_t i = m->nlog;
    mock_step st = m->steps[i < m->nsteps ? i : m->nsteps - 1];
    if (m->nlog < MAX_LOG) {
        logged *l = &m->log[m->nlog++];
        l->target = header(c->buf, head_len, "X-Amz-Target");
        l->auth = header(c->buf, head_len, "Authorization");
        l->host = header(c->buf, head_len, "Host");
        l->body = strndup(c->buf + head_len, body_len);
    }
    pthread_mutex_unlock(&m->mu);
    const char *body = st.body ? st.body : "{}";
    size_t blen = strlen(body);
    char head[512];
    int status = st.status ? st.status : 200;
    switch (st.action) {
    case MOCK_CLOSE: return 1;
    case MOCK_HANG: c->hung = 1; return 0;
    case MOCK_TRUNCATE:
        snprintf(head, sizeof head,
                 "HTTP/1.1 %d OK\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: %zu\r\n\r\n", status,
                 blen + 100);
        send_all(c->fd, head, strlen(head));
        send_all(c->fd, body, blen);
        return 1;
    default: {
        uLong crc = crc32(crc32(0L, Z_NULL, 0), (const Bytef *)body, (uInt)blen);
        if (st.action == MOCK_BAD_CRC)
            crc ^= 1;
        snprintf(head, sizeof head,
                 "HTTP/1.1 %d Whatever\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: %zu\r\n"
                 "x-amzn-RequestId: MOCK\r\nx-amz-crc32: %lu\r\n\r\n",
                 status, blen, (unsigned long)crc);
        send_all(c->fd, head, strlen(head));
        send_all(c->fd, body, blen);
        return 0;
    }
    }
}

/* Consume complete requests from c->buf. */
static int pump(mock *m, conn *c)
{
    for (;;) {
        if (c->hung) {
            c->len = 0;
            return 0;
        }
        char *end = c->len >= 4 ? memmem(c->buf, c->len, "\r\n\r\n", 4) : NULL;
        if (!end)
            return 0;
        size_t head_len = (size_t)(end - c->buf) + 4;
        char *cl = header(c->buf, head_len, "Content-Length");
        size_t body_len = (size_t)strtoul(cl, NULL, 10);
        free(cl);
        if (c->len < head_len + body_len)
            return 0;
        int close_it = serve(m, c, head_len, body_len);
        memmove(c->buf, c->buf + head_len + body_len, c->len - head_len - body_len);
        c->len -= head_len + body_len;
        if (close_it)
            return 1;
    }
}

static void *loop(void *arg)
{
    mock *m = arg;
    for (;;) {
        struct pollfd p[MAX_CONN + 2];
        int map[MAX_CONN + 2];
        nfds_t n = 0;
        p[n] = (struct pollfd){m->wake[0], POLLIN, 0};
        map[n++] = -2;
        p[n] = (struct pollfd){m->lfd, POLLIN, 0};
        map[n++] = -1;
        for (int i = 0; i < MAX_CONN; i++)
            if (m->c[i].fd >= 0) {
                p[n] = (struct pollfd){m->c[i].fd, POLLIN, 0};
                map[n++] = i;
            }
        if (poll(p, n, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (p[0].revents)
            break;
        for (nfds_t k = 2; k < n; k++) {
            if (!p[k].revents)
                continue;
            conn *c = &m->c[map[k]];
            if (c->cap - c->len < 4096) {
                size_t nc = c->cap ? c->cap * 2 : 8192;
                char *nb = realloc(c->buf, nc);
                if (!nb) {
                    conn_close(c);
                    continue;
                }
                c->buf = nb;
                c->cap = nc;
            }
            ssize_t r = recv(c->fd, c->buf + c->len, c->cap - c->len, 0);
            if (r <= 0) {
                conn_close(c);
                continue;
            }
            c->len += (size_t)r;
            if (pump(m, c))
                conn_close(c);
        }
        if (p[1].revents) {
            int fd = accept(m->lfd, NULL, NULL);
            if (fd >= 0) {
                int i = 0;
                while (i < MAX_CONN && m->c[i].fd >= 0)
                    i++;
                if (i == MAX_CONN)
                    close(fd);
                else
                    m->c[i].fd = fd;
            }
        }
    }
    return NULL;
}

static int listen_on(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    socklen_t al = sizeof a;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) || listen(fd, 16) || getsockname(fd, (struct sockaddr *)&a, &al)) {
        close(fd);
        return -1;
    }
    *port = ntohs(a.sin_port);
    return fd;
}

mock *mock_start(const mock_step *steps, size_t n)
{
    mock *m = calloc(1, sizeof *m);
    if (!m || !n)
        return free(m), NULL;
    m->steps = malloc(n * sizeof *steps);
    memcpy(m->steps, steps, n * sizeof *steps);
    m->nsteps = n;
    for (int i = 0; i < MAX_CONN; i++)
        m->c[i].fd = -1;
    pthread_mutex_init(&m->mu, NULL);
    if ((m->lfd = listen_on(&m->port)) < 0 || pipe(m->wake) || pthread_create(&m->th, NULL, loop, m)) {
        fprintf(stderr, "mock_start: %s\n", strerror(errno));
        exit(1);
    }
    return m;
}

int mock_port(const mock *m)
{
    return m->port;
}

void mock_uri(const mock *m, const char *query, char *out, size_t cap)
{
    snprintf(out, cap, "http://127.0.0.1:%d%s%s", m->port, query && *query ? "?" : "", query ? query : "");
}

size_t mock_count(mock *m)
{
    pthread_mutex_lock(&m->mu);
    size_t n = m->nlog;
    pthread_mutex_unlock(&m->mu);
    return n;
}

static const char *field(mock *m, size_t i, int which)
{
    const char *s = "";
    pthread_mutex_lock(&m->mu);
    if (i < m->nlog) {
        logged *l = &m->log[i];
        s = which == 0 ? l->target : which == 1 ? l->auth : which == 2 ? l->host : l->body;
    }
    pthread_mutex_unlock(&m->mu);
    return s;
}

const char *mock_target(mock *m, size_t i)
{
    return field(m, i, 0);
}

const char *mock_auth(mock *m, size_t i)
{
    return field(m, i, 1);
}

const char *mock_host(mock *m, size_t i)
{
    return field(m, i, 2);
}

const char *mock_body(mock *m, size_t i)
{
    return field(m, i, 3);
}

void mock_stop(mock *m)
{
    if (!m)
        return;
    if (write(m->wake[1], "x", 1) != 1)
        perror("mock_stop");
    pthread_join(m->th, NULL);
    for (int i = 0; i < MAX_CONN; i++)
        conn_close(&m->c[i]);
    for (size_t i = 0; i < m->nlog; i++) {
        free(m->log[i].target);
        free(m->log[i].auth);
        free(m->log[i].host);
        free(m->log[i].body);
    }
    close(m->lfd);
    close(m->wake[0]);
    close(m->wake[1]);
    pthread_mutex_destroy(&m->mu);
    free(m->steps);
    free(m);
}

int mock_closed_port(void)
{
    int port = 0;
    int fd = listen_on(&port);
    if (fd >= 0)
        close(fd);
    return port;
}
