/* ddb serve: the connection guard's interface (guard.c), used by http.c. */
#ifndef DDB_SERVE_GUARD_H
#define DDB_SERVE_GUARD_H

#include <microhttpd.h>

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#if MHD_VERSION < 0x00097002
typedef int MHD_Result_t;
#else
typedef enum MHD_Result MHD_Result_t;
#endif

typedef struct guard_limits {
    unsigned max_connections; /* open connections at once, all addresses */
    unsigned max_per_address; /* open connections from one client address (0: no limit) */
    unsigned idle_s;          /* the next request's first line within this of the previous response */
    unsigned request_s;       /* a request's line, headers and body within this of its first line */
    unsigned response_s;      /* its answer computed and read by the client within this of its arrival */
    int log_level;            /* LOG_* (serve.h): refusals and deadline closes are logged at LOG_WARN */
} guard_limits;

/* Start the watchdog thread; false when it cannot start. */
bool guard_start(const guard_limits *lim);
/* Stop the watchdog (the connections are MHD's to close). */
void guard_stop(void);

/* libmicrohttpd's accept policy: a new connection is refused (closed at
 * once) when max_connections are open. */
MHD_Result_t guard_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen);
/* libmicrohttpd's connection notifier (MHD_OPTION_NOTIFY_CONNECTION). */
void guard_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                      enum MHD_ConnectionNotificationCode toe);
/* A request's first line has arrived: its headers and body are due within request_s. */
void guard_request_begun(struct MHD_Connection *c);
/* The whole request is in: its answer is due within response_s. */
void guard_request_received(struct MHD_Connection *c);
/* The response is sent: the next request line is due within idle_s. */
void guard_request_done(struct MHD_Connection *c);

#endif
