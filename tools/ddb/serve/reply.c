/* ddb serve: error responses.  A libddb code becomes DynamoDB's HTTP status
 * and exception (the engine's messages already use DynamoDB's words, see
 * docs/CONFORMANCE.md); the body is {"__type": "<namespace>#<name>",
 * "message": "..."} as DynamoDB sends it (API_Operations "Common Errors",
 * Programming.Errors "Error components").  Calls libddb and jansson only. */
#include "serve.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The namespace DynamoDB puts before each exception name: the request
 * layer's (coral.service), the validator's (coral.validate), DynamoDB's own. */
static const char *namespace_of(const char *type)
{
    static const char *const service[] = {"SerializationException",        "UnknownOperationException",
                                          "UnrecognizedClientException",   "InvalidSignatureException",
                                          "IncompleteSignatureException",  "MissingAuthenticationTokenException",
                                          "AccessDeniedException",         "RequestEntityTooLargeException"};
    for (size_t i = 0; i < sizeof service / sizeof *service; i++)
        if (strcmp(type, service[i]) == 0)
            return "com.amazon.coral.service";
    if (strcmp(type, "ValidationException") == 0)
        return "com.amazon.coral.validate";
    return "com.amazonaws.dynamodb.v20120810";
}

void serve_error_reply(serve_reply *out, unsigned status, const char *type, const char *message, json_t *extra)
{
    char full[256];
    snprintf(full, sizeof full, "%s#%s", namespace_of(type), type);
    json_t *o = extra ? json_incref(extra) : json_object();
    json_object_set_new(o, "__type", json_string(full));
    /* TransactionCanceledException spells it "Message" (API_TransactWriteItems). */
    const char *key = strcmp(type, "TransactionCanceledException") == 0 ? "Message" : "message";
    json_t *m = json_string(message ? message : "");
    json_object_set_new(o, key, m ? m : json_string("(message not UTF-8)"));
    out->status = status;
    out->error_type = type;
    out->body = json_dumps(o, JSON_COMPACT);
    out->len = out->body ? strlen(out->body) : 0;
    json_decref(o);
}

int serve_fail_code(serve_req *r, int code)
{
    const char *type = "InternalServerError";
    unsigned status = 500;
    switch (code) {
    case DDB_EVALIDATION:
    case DDB_ELIMIT:
    case DDB_EINVAL:
    case DDB_EMODEL:
    case DDB_ENOTSUP:
        type = "ValidationException", status = 400;
        break;
    case DDB_ENOTABLE:
    case DDB_ENOTFOUND:
        type = "ResourceNotFoundException", status = 400;
        break;
    case DDB_EEXISTS:
        type = "ResourceInUseException", status = 400;
        break;
    case DDB_ECONDITION:
        type = "ConditionalCheckFailedException", status = 400;
        break;
    case DDB_ECANCELED:
        type = "TransactionCanceledException", status = 400;
        break;
    case DDB_ETHROTTLED:
        type = "ProvisionedThroughputExceededException", status = 400;
        break;
    case DDB_EIDEMPOTENT:
        type = "IdempotentParameterMismatchException", status = 400;
        break;
    case DDB_ETRIMMED:
        type = "TrimmedDataAccessException", status = 400;
        break;
    case DDB_ECORRUPT:
        /* a damaged table (or file): a retry cannot succeed, so not a 5xx,
         * which the SDKs retry; the message names what is damaged and the
         * way out (ddb check, ddb delete-table) */
        type = "TableDamagedException", status = 400;
        break;
    default:
        break;
    }
    if (!r->err.message[0])
        snprintf(r->err.message, sizeof r->err.message, "%s", ddb_strerror(code));
    r->fail_type = type;
    r->fail_status = status;
    return code ? code : DDB_EINVAL;
}

static int fail_v(serve_req *r, unsigned status, const char *type, const char *fmt, va_list ap)
{
    vsnprintf(r->err.message, sizeof r->err.message, fmt, ap);
    r->err.code = DDB_EVALIDATION;
    r->fail_type = type;
    r->fail_status = status;
    return DDB_EVALIDATION;
}

int serve_validation(serve_req *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = fail_v(r, 400, "ValidationException", fmt, ap);
    va_end(ap);
    return rc;
}

int serve_fail(serve_req *r, unsigned status, const char *type, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = fail_v(r, status, type, fmt, ap);
    va_end(ap);
    return rc;
}
