/* ddb serve: the HTTP layer's interface (http.c), used by cmd_serve.c. */
#ifndef DDB_SERVE_HTTP_H
#define DDB_SERVE_HTTP_H

#include "serve.h"

struct MHD_Daemon;

typedef struct http_limits {
    unsigned threads;          /* worker threads */
    unsigned max_connections;  /* open connections at once */
    unsigned timeout_s;        /* idle or slow connection closed after */
    size_t body_memory;        /* bytes all request bodies being received may hold together */
} http_limits;

/* Serve on listen_fd (bound and listening) until http_stop(); NULL when
 * libmicrohttpd cannot start (it logged why). */
struct MHD_Daemon *http_start(server *s, int listen_fd, const http_limits *lim);
/* Stop accepting, finish the requests in flight, close everything. */
void http_stop(struct MHD_Daemon *d);

#endif
