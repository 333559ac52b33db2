/* A local HTTP responder for the remote backend's tests: one thread, a
 * listening socket on 127.0.0.1 (port chosen by the kernel), replaying a
 * script of canned replies, one per request, and recording what it got. */
#ifndef DDB_TEST_MOCKSERVER_H
#define DDB_TEST_MOCKSERVER_H

#include <stddef.h>

typedef enum mock_action {
    MOCK_REPLY = 0, /* status + body, connection kept alive */
    MOCK_TRUNCATE,  /* headers promise more bytes than the body has, then close */
    MOCK_CLOSE,     /* close the connection without answering */
    MOCK_HANG,      /* never answer (the connection stays open) */
    MOCK_BAD_CRC    /* reply with an x-amz-crc32 header that does not match */
} mock_action;

typedef struct mock_step {
    mock_action action;
    int status;       /* MOCK_REPLY / MOCK_BAD_CRC: HTTP status (0 = 200) */
    const char *body; /* reply body (NULL = "{}") */
} mock_step;

typedef struct mock mock;

/* Start serving; request i gets steps[i] (the last step repeats).  Steps
 * are copied.  NULL on failure. */
mock *mock_start(const mock_step *steps, size_t n);
int mock_port(const mock *m);
/* "http://127.0.0.1:PORT" plus query (may be ""). */
void mock_uri(const mock *m, const char *query, char *out, size_t cap);
/* Requests fully received so far. */
size_t mock_count(mock *m);
/* Of request i: the X-Amz-Target header, the Authorization header, the
 * Host header and the body (copies owned by the mock; "" when absent). */
const char *mock_target(mock *m, size_t i);
const char *mock_auth(mock *m, size_t i);
const char *mock_host(mock *m, size_t i);
const char *mock_body(mock *m, size_t i);
void mock_stop(mock *m);

/* A TCP port on 127.0.0.1 with nobody listening (for "connection refused"). */
int mock_closed_port(void);

#endif
