/* Entity room: a failure message that adds the caller's context to the
 * reason a callee already put in the ddb_error.  Calls core/error.h. */
#include "entity/core/entity_core.h"

#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int ddbi_ent_fail_within(ddb_error *err, int code, const char *fmt, ...)
{
    if (!err)
        return code;
    char reason[sizeof err->message], context[sizeof err->message];
    memcpy(reason, err->message, sizeof reason);
    reason[sizeof reason - 1] = '\0';
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(context, sizeof context, fmt, ap);
    va_end(ap);
    return ddbi_fail(err, code, "%s: %s", context, reason);
}
