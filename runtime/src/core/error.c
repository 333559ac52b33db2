/* core/error.c — the DDB_E* code names (ddb_strerror) and filling a caller's
 * ddb_error with a formatted message (ddbi_fail, ddbi_fail_oom). Room core: calls
 * only the C library. */
#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>

static const char *const names[] = {
    "DDB_EINVAL: invalid argument",
    "DDB_EVALIDATION: validation error",
    "DDB_ELIMIT: limit exceeded",
    "DDB_ENOTFOUND: item not found",
    "DDB_ENOTABLE: table or index not found",
    "DDB_EEXISTS: table already exists",
    "DDB_ECONDITION: conditional check failed",
    "DDB_ECANCELED: transaction cancelled",
    "DDB_ETHROTTLED: throughput exceeded",
    "DDB_ENOMEM: out of memory",
    "DDB_EIO: storage error",
    "DDB_ECORRUPT: stored data is corrupt",
    "DDB_ECOLLISION: key digest collision",
    "DDB_ENOTSUP: not supported",
    "DDB_ENET: network error",
    "DDB_ETIMEOUT: timed out",
    "DDB_EMODEL: incompatible schema model",
    "DDB_ETRIMMED: stream records were trimmed",
    "DDB_EFULL: no space left on device",
    "DDB_EIDEMPOTENT: client request token reused for a different request",
    "DDB_EUNKNOWN: the outcome of the write is unknown",
};

const char *ddb_strerror(int code)
{
    if (code == DDB_OK)
        return "success";
    if (code <= DDB_EINVAL && code >= DDB_ELAST)
        return names[DDB_EINVAL - code];
    return "unknown error";
}

int ddbi_fail(ddb_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->code = code;
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return code;
}

int ddbi_fail_oom(ddb_error *err, const char *what)
{
    return ddbi_fail(err, DDB_ENOMEM, "%s: out of memory", what ? what : "ddb");
}
