/* Entity room: one stored item in its new form, for a migration step
 * (ddb_ent_migrate): renamed attributes moved, the item read into the new
 * schema's struct (or transformed by the caller's callback from the old
 * schema's struct), written back as an item by the new schema's
 * descriptor, with the stored attributes the new schema does not know
 * kept.  Pure: reads and writes nothing in the database.  Calls the public
 * item API and this room's marshalling. */
#include "entity/entity_internal.h"

#include "core/error.h"

#include <string.h>

/* Is name a key attribute of the table or of one of its indexes (td may be NULL)? */
static bool key_attr(const ddb_table_def *td, const char *name)
{
    if (!td)
        return false;
    if (!strcmp(td->key.pk, name) || (td->key.sk && !strcmp(td->key.sk, name)))
        return true;
    for (size_t i = 0; i < td->n_indexes; i++) {
        const ddb_key_schema *k = &td->indexes[i].key;
        if (!strcmp(k->pk, name) || (k->sk && !strcmp(k->sk, name)))
            return true;
    }
    return false;
}

/* Is name the stored attribute of one of e's fields? */
static bool field_attr(const ddb_entity_desc *e, const char *name)
{
    for (uint16_t i = 0; i < e->st->n_fields; i++)
        if (!strcmp(e->st->fields[i].attr, name))
            return true;
    return false;
}

/* Fill obj with every field of e whose stored attribute reads as its type;
 * the others stay zero (for the transform to fill). */
static int prefill(const ddb_entity_desc *e, const ddb_item *src, void *obj, ddb_arena *a, ddb_error *err)
{
    void *before = ddb_arena_alloc(a, e->st->size);
    if (!before)
        return ddbi_fail_oom(err, __func__);
    for (uint16_t i = 0; i < e->st->n_fields; i++) {
        const ddb_field_desc *f = &e->st->fields[i];
        const ddb_value *v = ddb_item_get(src, f->attr);
        ddb_error ignored;
        memcpy(before, obj, e->st->size);
        if (v && ddbi_ent_field_from(f, v, (char *)obj + f->offset, a, &ignored))
            memcpy(obj, before, e->st->size); /* another type now: left for the transform */
    }
    return DDB_OK;
}

/* The item's table key as "PK/SK" text, for messages and samples. */
const char *ddbi_ent_key_text(const ddb_table_def *td, const ddb_item *it, ddb_arena *a)
{
    const ddb_value *v[2] = {ddb_item_get(it, td->key.pk), td->key.sk ? ddb_item_get(it, td->key.sk) : NULL};
    ddb_buf b = {0};
    for (int i = 0; i < 2; i++) {
        if (!v[i])
            continue;
        if (i)
            ddbi_buf_put(&b, "/", 1);
        if (v[i]->type == DDB_TS || v[i]->type == DDB_TN)
            ddbi_buf_put(&b, v[i]->u.s, v[i]->len > 200 ? 200 : v[i]->len);
        else
            ddbi_buf_put(&b, "(binary)", 8);
    }
    char *s = ddb_arena_alloc(a, b.len + 1);
    if (s) {
        memcpy(s, b.p ? (const char *)b.p : "", b.len);
        s[b.len] = '\0';
    }
    ddbi_buf_free(&b);
    return s ? s : "";
}

/* *out: obj as an item of e, with the stored attributes of src the new
 * schema does not know (a removed field's) kept; key attributes of the
 * table as it is (live) or as e's schema declares it are not kept. */
static int new_form(const ddb_entity_desc *e, const void *obj, const ddb_item *src, const ddb_table_def *live,
                    ddb_arena *a, ddb_item **out, ddb_error *err)
{
    ddb_item *ni;
    int rc = ddb_ent_to_item(e, obj, a, &ni, err);
    if (rc)
        return rc;
    const ddb_value *m = ddb_item_map(src);
    for (uint32_t i = 0; i < m->len; i++) {
        const char *name = m->u.m[i].name;
        if (ddb_item_get(ni, name) || key_attr(&e->table->def, name) || key_attr(live, name) ||
            field_attr(e, name) || !strcmp(name, e->table->type_attr))
            continue;
        ddb_value *c = ddb_value_copy(a, m->u.m[i].value);
        if (!c || ddb_item_set(ni, name, c))
            return ddbi_fail_oom(err, __func__);
    }
    *out = ni;
    return DDB_OK;
}

int ddbi_ent_migrate_item(const ddb_ent_migration_step *s, const ddb_table_def *live, const ddb_item *it,
                          ddb_arena *a, ddb_item **out, bool *same, ddb_error *err)
{
    const ddb_entity_desc *e = s->entity;
    *out = NULL;
    *same = false;
    ddb_item *src = ddb_item_copy(a, it);
    void *obj = ddb_arena_alloc(a, e->st->size);
    if (!src || !obj)
        return ddbi_fail_oom(err, __func__);
    for (size_t i = 0; i < s->n_renames; i++) {
        const ddb_value *v = ddb_item_get(src, s->renames[i].from);
        if (!v)
            continue;
        ddb_value *c = ddb_value_copy(a, v);
        if (!c || ddb_item_set(src, s->renames[i].to, c))
            return ddbi_fail_oom(err, __func__);
        ddb_item_remove(src, s->renames[i].from);
    }
    int rc;
    ddb_item *ni;
    if (!s->transform) {
        if ((rc = ddb_ent_from_item(e, src, obj, a, err)))
            return ddbi_ent_fail_within(err, rc, "stored %s item %s cannot be read by the new schema", e->name,
                                        ddbi_ent_key_text(&e->table->def, it, a));
    } else {
        ddb_error quiet;
        /* an item already in its new form is read by the new schema and written back the same */
        if (!ddb_ent_from_item(e, src, obj, a, &quiet) && !new_form(e, obj, src, live, a, &ni, &quiet) &&
            ddb_value_equal(ddb_item_map(ni), ddb_item_map(it))) {
            *out = ni;
            *same = true;
            return DDB_OK;
        }
        memset(obj, 0, e->st->size);
        if ((rc = prefill(e, src, obj, a, err)))
            return rc;
        void *old = NULL;
        if (s->old_entity) {
            if (!(old = ddb_arena_alloc(a, s->old_entity->st->size)))
                return ddbi_fail_oom(err, __func__);
            if ((rc = ddb_ent_from_item(s->old_entity, it, old, a, err)))
                return ddbi_ent_fail_within(err, rc, "stored %s item %s cannot be read by the old schema", e->name,
                                            ddbi_ent_key_text(&e->table->def, it, a));
        }
        if ((rc = s->transform(s->transform_ctx, it, old, obj, a, err)))
            return ddbi_ent_fail_within(err, rc, "the transform of %s item %s failed", e->name,
                                        ddbi_ent_key_text(&e->table->def, it, a));
    }
    if ((rc = new_form(e, obj, src, live, a, &ni, err)))
        return ddbi_ent_fail_within(err, rc, "%s item %s in its new form", e->name,
                                    ddbi_ent_key_text(&e->table->def, it, a));
    *out = ni;
    *same = ddb_value_equal(ddb_item_map(ni), ddb_item_map(it));
    return DDB_OK;
}
