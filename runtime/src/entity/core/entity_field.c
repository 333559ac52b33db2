/* Entity room: C fields of an entity struct read and written by width
 * (integers, floats) and checked (char[N]).  The one place that knows how
 * an int8..int64 / uint8..uint64 member is laid out; marshalling, templates
 * and operations all go through it.  Calls only core/error.h. */
#include "entity/core/entity_core.h"

#include "core/error.h"

#include <string.h>

int64_t ddbi_ent_int_get(const ddb_field_desc *f, const void *p)
{
    bool u = f->type == DDB_F_UINT;
    switch (f->size) {
    case 1: return u ? (int64_t)*(const uint8_t *)p : *(const int8_t *)p;
    case 2: return u ? (int64_t)*(const uint16_t *)p : *(const int16_t *)p;
    case 4: return u ? (int64_t)*(const uint32_t *)p : *(const int32_t *)p;
    default: return *(const int64_t *)p;
    }
}

void ddbi_ent_int_set(const ddb_field_desc *f, void *p, int64_t v)
{
    uint64_t bits = (uint64_t)v;
    switch (f->size) {
    case 1: *(uint8_t *)p = (uint8_t)bits; break;
    case 2: *(uint16_t *)p = (uint16_t)bits; break;
    case 4: *(uint32_t *)p = (uint32_t)bits; break;
    default: *(uint64_t *)p = bits;
    }
}

double ddbi_ent_float_get(const ddb_field_desc *f, const void *p)
{
    return f->size == 4 ? (double)*(const float *)p : *(const double *)p;
}

int ddbi_ent_chars_len(const ddb_field_desc *f, const char *p, size_t *len, ddb_error *err)
{
    size_t n = strnlen(p, f->size);
    if (n == f->size)
        return ddbi_fail(err, DDB_EVALIDATION,
                         "field %s is not NUL-terminated within its %u bytes (at most %u characters)", f->name, f->size,
                         f->size - 1u);
    *len = n;
    return DDB_OK;
}

bool ddbi_ent_field_required(const ddb_field_desc *f)
{
    if (f->flags & (DDB_FIELD_OPTIONAL | DDB_FIELD_TTL))
        return false;
    switch (f->type) {
    case DDB_F_CHARS:
    case DDB_F_INT:
    case DDB_F_UINT:
    case DDB_F_FLOAT:
    case DDB_F_BOOL:
    case DDB_F_STRUCT:
        return true;
    default:
        return false;
    }
}

const ddb_field_desc *ddbi_ent_flagged(const ddb_entity_desc *e, unsigned flag)
{
    for (uint16_t i = 0; i < e->st->n_fields; i++)
        if (e->st->fields[i].flags & flag)
            return &e->st->fields[i];
    return NULL;
}

void ddbi_ent_clear_field(const ddb_field_desc *f, void *p)
{
    if (f->type == DDB_F_STRING)
        *(char **)p = NULL;
    else if (f->type == DDB_F_BOOL)
        *(bool *)p = false;
    else if (f->type == DDB_F_LIST)
        *(void **)p = NULL;
    else
        memset(p, 0, f->size);
}
