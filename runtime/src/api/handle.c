/* api/: the public handle: ddb_open chooses the backend from the URI,
 * ddb_close, ddb_sync, ddb_clock_ms; the DDB_ENOTSUP answer of an
 * operation a backend lacks.  May call the backends' open (engine via
 * embedded.c, remote/remote.h) and core/. */
#include "api/api.h"
#include "api/expr_cache.h"
#include "core/clock.h"
#include "core/error.h"
#include "remote/remote.h"

#include <stdlib.h>
#include <string.h>

int ddbi_api_notsup(const ddb *db, const char *op, ddb_error *err)
{
    return ddbi_fail(err, DDB_ENOTSUP, "%s: not supported by the %s backend", op, db->ops->name);
}

int ddb_open(const char *uri, const ddb_options *opts, ddb **out, ddb_error *err)
{
    if (!uri || !out)
        return ddbi_fail(err, DDB_EINVAL, "ddb_open: uri and out are required");
    *out = NULL;
    const ddbi_backend_ops *ops;
    void *impl = NULL;
    int rc;
    if (strncmp(uri, "file:", 5) == 0) {
        ops = &ddbi_embedded_ops;
        rc = ddbi_embedded_open(uri, uri + 5, opts, &impl, err);
    } else if (ddbi_remote_uri(uri)) {
        ddb_remote *r = NULL;
        ops = &ddbi_remote_ops;
        rc = ddbi_remote_open(uri, opts, &r, err);
        impl = r;
    } else if (strstr(uri, "://")) {
        return ddbi_fail(err, DDB_ENOTSUP,
                        "ddb_open: no backend for \"%s\" (use file:DIR, http://host:port, https://host or "
                        "dynamodb://REGION)",
                        uri);
    } else {
        ops = &ddbi_embedded_ops;
        rc = ddbi_embedded_open(uri, uri, opts, &impl, err);
    }
    if (rc)
        return rc;
    ddb *db = calloc(1, sizeof *db);
    if (!db) {
        ops->close(impl);
        return ddbi_fail_oom(err, "ddb_open");
    }
    db->ops = ops;
    db->impl = impl;
    pthread_mutex_init(&db->mu, NULL);
    *out = db;
    return DDB_OK;
}

void ddb_close(ddb *db)
{
    if (!db)
        return;
    db->ops->close(db->impl);
    ddbi_expr_cache_free(db);
    pthread_mutex_destroy(&db->mu);
    free(db);
}

int ddb_sync(ddb *db, ddb_error *err)
{
    if (!db)
        return ddbi_fail(err, DDB_EINVAL, "ddb_sync: no database");
    if (!db->ops->sync)
        return ddbi_api_notsup(db, "ddb_sync", err);
    return db->ops->sync(db->impl, err);
}

int64_t ddb_clock_ms(const ddb *db)
{
    return db && db->ops->clock_ms ? db->ops->clock_ms(db->impl) : ddbi_clock_system_ms();
}
