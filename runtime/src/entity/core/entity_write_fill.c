/* Entity room: what create and every write fill in by themselves: DDB_DEFAULT
 * values of unset fields (create), created-at (create) and updated-at
 * (every write) from the handle's clock (ddb_clock_ms: tests set it), as
 * epoch milliseconds in integer fields or ISO-8601 UTC text
 * ("2026-11-26T15:04:05.123Z", entity_timestamp.c) in char[N] fields (N >= 25).
 * Calls the public value API and this room's field accessors. */
#include "entity/core/entity_core.h"

#include "core/error.h"

#include <stdio.h>
#include <string.h>

/* An ISO-8601 timestamp: 24 characters and the NUL. */
#define ISO_LEN 25

bool ddbi_ent_field_unset(const ddb_field_desc *f, const char *p)
{
    switch (f->type) {
    case DDB_F_CHARS: return p[0] == '\0';
    case DDB_F_STRING: return *(char *const *)p == NULL;
    case DDB_F_INT:
    case DDB_F_UINT: return ddbi_ent_int_get(f, p) == 0;
    case DDB_F_FLOAT: return ddbi_ent_float_get(f, p) == 0;
    case DDB_F_BOOL: return !*(const bool *)p;
    default: return false;
    }
}

int ddbi_ent_stamp_value(const ddb_field_desc *f, int64_t now_ms, ddb_arena *a, ddb_value **out, ddb_error *err)
{
    if (f->type == DDB_F_INT || f->type == DDB_F_UINT) {
        *out = ddb_v_i64(a, now_ms);
    } else if (f->type == DDB_F_CHARS) {
        char iso[ISO_LEN];
        if (ddbi_ent_iso8601(now_ms, iso))
            return ddbi_fail(err, DDB_EINVAL, "field %s: the clock's time %lld has no ISO-8601 form", f->name,
                             (long long)now_ms);
        *out = ddb_v_str(a, iso);
    } else {
        /* not char *: the text would live in the call's memory, not the caller's */
        return ddbi_fail(err, DDB_EVALIDATION, "field %s: a timestamp needs an integer or a char[%d] field", f->name,
                         ISO_LEN);
    }
    return *out ? DDB_OK : ddbi_fail_oom(err, __func__);
}

/* Store the timestamp now_ms into field f of obj. */
static int stamp(const ddb_field_desc *f, void *obj, int64_t now_ms, ddb_arena *a, ddb_error *err)
{
    ddb_value *v = NULL;
    int rc = ddbi_ent_stamp_value(f, now_ms, a, &v, err);
    return rc ? rc : ddbi_ent_field_from(f, v, (char *)obj + f->offset, a, err);
}

int ddbi_ent_default_value(const ddb_field_desc *f, ddb_arena *a, ddb_value **out, ddb_error *err)
{
    int rc = DDB_OK;
    switch (f->type) {
    case DDB_F_INT:
    case DDB_F_UINT:
    case DDB_F_FLOAT: rc = ddb_v_n(a, f->dflt, out, err); break;
    case DDB_F_BOOL:
        if (strcmp(f->dflt, "true") != 0 && strcmp(f->dflt, "false") != 0)
            return ddbi_fail(err, DDB_EVALIDATION, "field %s: default \"%s\" is not true or false", f->name, f->dflt);
        *out = ddb_v_bool(a, f->dflt[0] == 't');
        break;
    case DDB_F_CHARS:
    case DDB_F_STRING: *out = ddb_v_str(a, f->dflt); break;
    default:
        return ddbi_fail(err, DDB_EVALIDATION, "field %s: a default needs a number, bool or string field", f->name);
    }
    if (rc)
        return ddbi_ent_fail_within(err, rc, "field %s: default \"%s\"", f->name, f->dflt);
    return *out ? DDB_OK : ddbi_fail_oom(err, __func__);
}

int ddbi_ent_fill_stamps(ddb *db, const ddb_entity_desc *e, void *obj, bool create, ddb_arena *a, ddb_error *err)
{
    int64_t now = ddb_clock_ms(db);
    int rc = DDB_OK;
    for (uint16_t i = 0; !rc && i < e->st->n_fields; i++) {
        const ddb_field_desc *f = &e->st->fields[i];
        char *p = (char *)obj + f->offset;
        if (f->flags & DDB_FIELD_UPDATED_AT)
            rc = stamp(f, obj, now, a, err);
        else if (create && (f->flags & DDB_FIELD_CREATED_AT))
            rc = stamp(f, obj, now, a, err);
        else if (create && f->dflt && ddbi_ent_field_unset(f, p) && f->type == DDB_F_STRING)
            *(const char **)p = f->dflt; /* the descriptor's text lives as long as the program */
        else if (create && f->dflt && ddbi_ent_field_unset(f, p)) {
            ddb_value *v = NULL;
            if (!(rc = ddbi_ent_default_value(f, a, &v, err)))
                rc = ddbi_ent_field_from(f, v, p, a, err);
        }
    }
    return rc;
}
