/* ddb serve: the HTTP layer's interface (http.c), used by cmd_serve.c. */
#ifndef DDB_SERVE_HTTP_H
#define DDB_SERVE_HTTP_H

#include "serve.h"

struct MHD_Daemon;

typedef struct http_limits {
    unsigned threads;          /* worker threads */
    unsigned max_connections;  /* open connections at once */
    unsigned max_per_address;  /* open connections from one client address (0: no limit) */
    unsigned timeout_s;        /* idle connection closed after; the next request line due within */
    unsigned request_timeout_s; /* a request's headers and body due within this of its first line */
    unsigned response_timeout_s; /* its answer computed and read within this of its arrival */
    const char *tls_cert;      /* PEM text: serve HTTPS (NULL: HTTP) */
    const char *tls_key;       /* PEM text of the certificate's private key */
    size_t body_memory;        /* bytes all request bodies being received may hold together */
} http_limits;

/* Serve on listen_fd (bound and listening) until http_stop(); NULL when
 * libmicrohttpd cannot start (it logged why). */
struct MHD_Daemon *http_start(server *s, int listen_fd, const http_limits *lim);
/* Stop accepting, finish the requests in flight, close everything. */
void http_stop(struct MHD_Daemon *d);

#endif
