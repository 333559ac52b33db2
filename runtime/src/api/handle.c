/* api/: the public handle: ddb_open chooses the backend from the URI
 * ("mem:" a fresh embedded database in a private directory removed at
 * close; ddb_open_remote opens the remote one with settings given in code),
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

/* "file:DIR[?mode=ro|?mode=rw]": the directory (malloc'd) and whether
 * the URI asks for a read-only open.  A plain DIR takes no parameters (a
 * directory name may hold '?'). */
static int file_uri(const char *uri, char **dir, bool *read_only, ddb_error *err)
{
    const char *path = uri + 5, *q = strchr(path, '?');
    size_t n = q ? (size_t)(q - path) : strlen(path);
    if (q && strcmp(q + 1, "mode=ro") == 0)
        *read_only = true;
    else if (q && strcmp(q + 1, "mode=rw") != 0)
        return ddbi_fail(err, DDB_EINVAL, "ddb_open: unknown parameter \"%s\" in \"%s\" (file:DIR?mode=ro or ?mode=rw)",
                        q + 1, uri);
    if (!(*dir = malloc(n + 1)))
        return ddbi_fail_oom(err, "ddb_open");
    memcpy(*dir, path, n);
    (*dir)[n] = '\0';
    return DDB_OK;
}

/* The public handle around a backend's open handle (closed on failure;
 * temp_dir, when not NULL, is the handle's to remove at close). */
static int handle_new(const ddbi_backend_ops *ops, void *impl, char *temp_dir, ddb **out, ddb_error *err)
{
    ddb *db = calloc(1, sizeof *db);
    if (!db) {
        ops->close(impl);
        if (temp_dir)
            ddbi_temp_dir_remove(temp_dir);
        free(temp_dir);
        return ddbi_fail_oom(err, "ddb_open");
    }
    db->temp_dir = temp_dir;
    db->ops = ops;
    db->impl = impl;
    pthread_mutex_init(&db->mu, NULL);
    *out = db;
    return DDB_OK;
}

int ddb_open(const char *uri, const ddb_options *opts, ddb **out, ddb_error *err)
{
    if (!uri || !out)
        return ddbi_fail(err, DDB_EINVAL, "ddb_open: uri and out are required");
    *out = NULL;
    const ddbi_backend_ops *ops;
    void *impl = NULL;
    char *temp = NULL;
    int rc;
    ddbi_verify_result vr = {0};
    if (strcmp(uri, "mem:") == 0) {
        /* a fresh private database for a test: nothing to survive a crash */
        ddb_options o = opts ? *opts : (ddb_options){0};
        if (o.read_only)
            return ddbi_fail(err, DDB_EINVAL, "ddb_open: a mem: database is new and empty; it cannot be read-only");
        o.sync = DDB_SYNC_NONE;
        ops = &ddbi_embedded_ops;
        if (!(rc = ddbi_temp_dir_new(&temp, err)) && (rc = ddbi_embedded_open(uri, temp, &o, &impl, err))) {
            ddbi_temp_dir_remove(temp);
            free(temp);
            temp = NULL;
        }
    } else if (strncmp(uri, "file:", 5) == 0) {
        ddb_options o = opts ? *opts : (ddb_options){0};
        char *dir = NULL;
        ops = &ddbi_embedded_ops;
        if (!(rc = file_uri(uri, &dir, &o.read_only, err)) && !(o.verify && (rc = ddbi_verify_file(dir, &vr, err))))
            rc = ddbi_embedded_open(uri, dir, &o, &impl, err);
        free(dir);
    } else if (ddbi_remote_uri(uri)) {
        if (opts && opts->read_only)
            return ddbi_fail(err, DDB_ENOTSUP,
                            "ddb_open: read_only is for the embedded engine; a remote database's credentials decide "
                            "what may be written");
        ddb_remote *r = NULL;
        ops = &ddbi_remote_ops;
        rc = ddbi_remote_open(uri, opts, &r, err);
        impl = r;
    } else if (strstr(uri, "://")) {
        return ddbi_fail(err, DDB_ENOTSUP,
                        "ddb_open: no backend for \"%s\" (use file:DIR, mem:, http://host:port, https://host or "
                        "dynamodb://REGION)",
                        uri);
    } else {
        ops = &ddbi_embedded_ops;
        if (!(opts && opts->verify && (rc = ddbi_verify_file(uri, &vr, err))))
            rc = ddbi_embedded_open(uri, uri, opts, &impl, err);
    }
    /* tables verify found damaged: that table's problem, from the start */
    for (int i = 0; !rc && i < vr.n_tables; i++)
        ddbi_embedded_mark_damaged(impl, vr.tables[i], vr.why);
    return rc ? rc : handle_new(ops, impl, temp, out, err);
}

int ddb_open_remote(const char *uri, const ddb_remote_options *ro, ddb **out, ddb_error *err)
{
    if (!out)
        return ddbi_fail(err, DDB_EINVAL, "ddb_open_remote: out is required");
    *out = NULL;
    ddb_remote *r = NULL;
    int rc = ddbi_remote_open_with(uri, ro, &r, err);
    return rc ? rc : handle_new(&ddbi_remote_ops, r, NULL, out, err);
}

void ddb_close(ddb *db)
{
    if (!db)
        return;
    db->ops->close(db->impl);
    if (db->temp_dir)
        ddbi_temp_dir_remove(db->temp_dir);
    free(db->temp_dir);
    ddbi_expr_cache_free(db);
    ddbi_faults_free(db);
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
