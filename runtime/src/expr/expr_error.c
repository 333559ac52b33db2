/* expr/: the messages of expression errors ("Invalid ConditionExpression:
 * ... at line:col"), shared by the parser, the evaluator and the update and
 * projection steps.  Calls only the C library. */
#include "expr/expr.h"

#include <stdarg.h>
#include <stdio.h>

const char *ddb_expr_kind_name(ddb_expr_kind kind)
{
    switch (kind) {
    case DDB_EXPR_CONDITION: return "ConditionExpression";
    case DDB_EXPR_FILTER: return "FilterExpression";
    case DDB_EXPR_UPDATE: return "UpdateExpression";
    case DDB_EXPR_PROJECTION: return "ProjectionExpression";
    case DDB_EXPR_KEY_CONDITION: return "KeyConditionExpression";
    }
    return "Expression";
}

void ddbi_expr_vformat(char *buf, size_t size, bool prefix, ddb_expr_kind kind, uint32_t line, uint32_t col,
                       const char *fmt, va_list ap)
{
    size_t n = 0;
    if (prefix) {
        int w = snprintf(buf, size, "Invalid %s: ", ddb_expr_kind_name(kind));
        n = w > 0 && (size_t)w < size ? (size_t)w : 0;
    }
    int w = vsnprintf(buf + n, size - n, fmt, ap);
    if (w > 0)
        n += (size_t)w < size - n ? (size_t)w : size - n - 1;
    if (line)
        snprintf(buf + n, size - n, " at %u:%u", line, col);
}

int ddbi_expr_fail(ddb_error *err, int code, ddb_expr_kind kind, uint32_t line, uint32_t col, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->code = code;
        ddbi_expr_vformat(err->message, sizeof err->message, true, kind, line, col, fmt, ap);
        va_end(ap);
    }
    return code;
}

int ddbi_expr_fail_at(ddb_error *err, int code, uint32_t line, uint32_t col, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->code = code;
        ddbi_expr_vformat(err->message, sizeof err->message, false, DDB_EXPR_CONDITION, line, col, fmt, ap);
        va_end(ap);
    }
    return code;
}
