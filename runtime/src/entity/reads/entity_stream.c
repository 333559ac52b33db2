/* Entity room: stream records decoded into entity structs
 * (ddb_ent_decode_record, behind the generated <table>_decode_record): the
 * entity is told by the image's type attribute, or without an image by
 * which entity's key templates the record's Keys fit; a sharded entity's
 * record completed from the table (ddb_ent_complete_record).  Calls the
 * public item API, ddb_ent_read and this room's marshalling and keys. */
#include "entity/reads/entity_reads.h"

#include "core/error.h"

#include <string.h>

/* Could Keys be the primary key of e?  A sharded entity's items end in
 * <suffix><shard id>. */
static bool keys_fit(const ddb_entity_desc *e, const ddb_item *keys)
{
    const ddb_key_desc *k = &e->keys[0];
    if (!ddbi_ent_template_fits(&k->pk, ddb_item_get(keys, k->pk_attr)))
        return false;
    if (!k->sk_attr)
        return true;
    const ddb_value *sk = ddb_item_get(keys, k->sk_attr);
    if (!e->n_shards || !sk || sk->type != DDB_TS)
        return ddbi_ent_template_fits(&k->sk, sk);
    const char *sfx = ddbi_ent_shard_suffix(e);
    for (uint16_t s = 0; s < e->n_shards; s++) {
        size_t tail = strlen(sfx) + strlen(e->shards[s]);
        if (sk->len < tail || memcmp(sk->u.s + sk->len - tail, sfx, strlen(sfx)) != 0 ||
            strcmp(sk->u.s + sk->len - strlen(e->shards[s]), e->shards[s]) != 0)
            continue;
        ddb_value head = *sk;
        head.len -= (uint32_t)tail;
        if (k->sk.type != DDB_TN && ddbi_ent_template_fits(&k->sk, &head))
            return true;
    }
    return false;
}

int ddb_ent_decode_record(const ddb_entity_desc *const *entities, size_t n, const ddb_stream_record *rec,
                          ddb_arena *a, void *out_new, void *out_old, size_t obj_size, ddb_ent_record *out,
                          ddb_error *err)
{
    if (!entities || !rec || !out_new || !out_old || !out || !a)
        return ddbi_fail(err, DDB_EINVAL, "ddb_ent_decode_record: entities, record, arena, objects and out are required");
    memset(out, 0, sizeof *out);
    memset(out_new, 0, obj_size);
    memset(out_old, 0, obj_size);
    if (!n)
        return DDB_OK;
    for (size_t i = 0; i < n; i++) {
        int rc = entities[i] ? ddbi_ent_check_shards(entities[i], err)
                             : ddbi_fail(err, DDB_EINVAL, "ddb_ent_decode_record: entity %zu is NULL", i);
        if (rc)
            return rc;
    }
    const ddb_schema_table *t = entities[0]->table;
    if (rec->table && strcmp(rec->table, t->def.name) != 0)
        return ddbi_fail(err, DDB_EINVAL, "a stream record of table %s decoded as one of table %s", rec->table,
                        t->def.name);
    const ddb_item *image = rec->new_image ? rec->new_image : rec->old_image;
    size_t which = n;
    if (image) {
        const ddb_value *tv = ddb_item_get(image, t->type_attr);
        for (size_t i = 0; tv && tv->type == DDB_TS && i < n; i++)
            if (strcmp(entities[i]->name, tv->u.s) == 0)
                which = i;
    } else if (rec->keys) {
        for (size_t i = 0; i < n; i++) {
            if (!keys_fit(entities[i], rec->keys))
                continue;
            if (which != n)
                return DDB_OK; /* two entities fit: undecided */
            which = i;
        }
    }
    if (which == n)
        return DDB_OK;
    const ddb_entity_desc *e = entities[which];
    if (e->st->size > obj_size)
        return ddbi_fail(err, DDB_EINVAL, "entity %s needs %u bytes, the record holds %zu", e->name, e->st->size,
                        obj_size);
    out->type = (int)which + 1;
    out->partial = e->n_shards > 0;
    int rc = DDB_OK;
    if (rec->new_image && !(rc = ddbi_ent_from_item_partial(e, rec->new_image, out_new, a, out->partial, &out->new_fields, err)))
        out->has_new = true;
    if (!rc && rec->old_image && !(rc = ddbi_ent_from_item_partial(e, rec->old_image, out_old, a, out->partial, &out->old_fields, err)))
        out->has_old = true;
    return rc;
}

int ddb_ent_complete_record(ddb *db, const ddb_entity_desc *const *entities, size_t n, const ddb_ent_read_opts *o,
                            ddb_arena *a, ddb_ent_record *info, void *out_new, ddb_error *err)
{
    if (!db || !entities || !info || !out_new || !a)
        return ddbi_fail(err, DDB_EINVAL, "ddb_ent_complete_record: db, entities, arena, info and object are required");
    if (info->type <= 0 || !info->partial || !info->has_new)
        return DDB_OK;
    if ((size_t)info->type > n || !entities[info->type - 1])
        return ddbi_fail(err, DDB_EINVAL, "ddb_ent_complete_record: record type %d is not one of the %zu entities",
                         info->type, n);
    const ddb_entity_desc *e = entities[info->type - 1];
    char *whole = ddb_arena_alloc(a, e->st->size);
    if (!whole)
        return ddbi_fail_oom(err, __func__);
    ddb_ent_mask have;
    int rc = ddb_ent_read(db, e, out_new, o, a, whole, &have, err);
    if (rc == DDB_ENOTFOUND)
        return DDB_OK; /* deleted since: the record's shard is all there is */
    if (rc)
        return rc;
    for (uint16_t i = 0; i < e->st->n_fields; i++) {
        const ddb_field_desc *f = &e->st->fields[i];
        if (!ddb_ent_mask_has(&have, i) || ddb_ent_mask_has(&info->new_fields, i))
            continue;
        memcpy((char *)out_new + f->offset, whole + f->offset, f->size);
        if (f->type == DDB_F_LIST)
            memcpy((char *)out_new + f->count_offset, whole + f->count_offset, sizeof(size_t));
        ddb_ent_mask_set(&info->new_fields, i);
    }
    info->partial = false;
    return DDB_OK;
}
