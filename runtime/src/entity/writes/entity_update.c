/* Entity room: updates.  A struct-wide update (update-fields with a mask,
 * patch, upsert, and put on entities that keep created-at / create-only
 * fields) is one UpdateItem per shard item it touches: SET of the fields
 * (create-only ones, created-at and defaults through if_not_exists), REMOVE
 * of absent optional ones, the derived attributes and index keys that
 * depend on them, updated-at, the version bump where the version's shard is
 * touched.  A declared update (ddb_ent_update; DDB_UPDATE's are lowered onto
 * it by entity_declared.c) is the caller's UpdateExpression per shard item
 * with updated-at and the version bump added.  A caller's condition is
 * checked on the shard item it reads: inside that item's UpdateItem, or as
 * a ConditionCheck (entity_check.c) when the update does not write it.
 * Alone each goes through ddbi_ent_single (one UpdateItem, or one
 * transaction); in a caller's transaction it adds its operations.  Calls the
 * public item API and this room's templates, marshalling, keys, stamps,
 * uniqueness items, expression builder, checks and transactions. */
#include "entity/writes/entity_writes.h"

#include "core/error.h"

#include <ctype.h>
#include <limits.h>
#include <string.h>

/* The most fields an entity struct may have for a partial update. */
#define UPDATE_MAX_FIELDS DDB_ENT_MAX_FIELDS

/* The update of one shard item: "SET" assignments in x, "REMOVE" ones in rem. */
typedef struct upd {
    ddbi_exprb *x;
    ddb_buf rem;
    int nset, nrem;
} upd;

/* Append attr = v (v NULL: remove attr); with keep, attr =
 * if_not_exists(attr, v).  DDB_ENOMEM (err not filled) when out of memory. */
static int upd_set(upd *u, const char *attr, ddb_value *v, bool keep)
{
    const char *n = ddbi_exprb_name(u->x, attr);
    if (!n)
        return DDB_ENOMEM;
    if (!v) {
        const char *sep = u->nrem++ ? ", " : " REMOVE ";
        int rc = ddbi_buf_put(&u->rem, sep, strlen(sep));
        return rc ? rc : ddbi_buf_put(&u->rem, n, strlen(n));
    }
    const char *r = ddbi_exprb_value(u->x, v);
    if (!r || ddbi_exprb_put(u->x, u->nset++ ? ", " : "SET ") || ddbi_exprb_put(u->x, n) ||
        ddbi_exprb_put(u->x, " = "))
        return DDB_ENOMEM;
    if (keep && (ddbi_exprb_put(u->x, "if_not_exists(") || ddbi_exprb_put(u->x, n) || ddbi_exprb_put(u->x, ", ") ||
                 ddbi_exprb_put(u->x, r) || ddbi_exprb_put(u->x, ")")))
        return DDB_ENOMEM;
    return keep ? DDB_OK : ddbi_exprb_put(u->x, r);
}

/* The fields a mode writes, checked: mask (NULL = every writable field). */
static int fields_of(const ddb_entity_desc *e, const ddb_ent_mask *mask, ddbi_upd_mode mode, ddb_ent_mask *out,
                     ddb_error *err)
{
    memset(out, 0, sizeof *out);
    if (e->st->n_fields > UPDATE_MAX_FIELDS)
        return ddbi_fail(err, DDB_ELIMIT, "%s has %u fields; a partial update handles at most %d", e->name,
                         (unsigned)e->st->n_fields, UPDATE_MAX_FIELDS);
    for (uint16_t j = 0; j < e->st->n_fields; j++) {
        const ddb_field_desc *f = &e->st->fields[j];
        bool whole = mode == DDBI_UPD_PUT || mode == DDBI_UPD_UPSERT;
        if (mask && !ddb_ent_mask_has(mask, j))
            continue;
        if (!mask) {
            /* a whole write creates the item: key fields are attributes too,
             * unless one is stored as a table key attribute (not updatable) */
            if ((f->flags & DDB_FIELD_KEY) && (!whole || ddbi_ent_table_key_attr(e, f->attr)))
                continue;
            if (f->flags & (DDB_FIELD_DERIVED | DDB_FIELD_VERSION | DDB_FIELD_UPDATED_AT))
                continue;
            if (!whole && (f->flags & (DDB_FIELD_CREATED_AT | DDB_FIELD_CREATE_ONLY | DDB_FIELD_UUID |
                                       DDB_FIELD_AUTO_ID)))
                continue;
        } else if (f->flags & DDB_FIELD_KEY) {
            return ddbi_fail(err, DDB_EVALIDATION,
                             "field %s is part of the primary key of %s: write a new item instead", f->name, e->name);
        } else if (f->flags & (DDB_FIELD_DERIVED | DDB_FIELD_VERSION | DDB_FIELD_UUID | DDB_FIELD_AUTO_ID |
                               DDB_FIELD_CREATED_AT | DDB_FIELD_UPDATED_AT)) {
            return ddbi_fail(err, DDB_EVALIDATION, "field %s of %s is maintained by ddbgen and cannot be set",
                             f->name, e->name);
        } else if (f->flags & DDB_FIELD_CREATE_ONLY) {
            return ddbi_fail(err, DDB_EVALIDATION, "field %s of %s is set on creation only", f->name, e->name);
        }
        ddb_ent_mask_set(out, j);
    }
    for (uint16_t j = mask ? e->st->n_fields : UPDATE_MAX_FIELDS; mask && j < UPDATE_MAX_FIELDS; j++)
        if (ddb_ent_mask_has(mask, j))
            return ddbi_fail(err, DDB_EVALIDATION, "%s has no field %u (it has %u)", e->name, (unsigned)j,
                             (unsigned)e->st->n_fields);
    return DDB_OK;
}

/* A helper of ddbi_ent_add_update ran out of memory (err not filled: the
 * caller names itself). */
#define UPD_OOM INT_MIN

/* The changed fields (and the derived attributes that depend on them, and
 * updated-at) into u, each on the shard item carrying it (a key field on
 * every one), marking touched.  whole: the update creates the item. */
static int upd_fields(const ddb_entity_desc *e, void *obj, const ddb_ent_mask *changed, ddbi_upd_mode mode,
                      bool whole, int64_t now, int nparts, ddb_arena *a, upd *u, bool *touched, ddb_error *err)
{
    int rc;
    for (uint16_t j = 0; j < e->st->n_fields; j++) {
        const ddb_field_desc *f = &e->st->fields[j];
        bool derived = (f->flags & DDB_FIELD_DERIVED) && f->derived && ddbi_ent_template_uses(f->derived, changed);
        bool stamp = (f->flags & DDB_FIELD_UPDATED_AT) != 0;
        if (!ddb_ent_mask_has(changed, j) && !derived && !stamp)
            continue;
        int s = ddbi_ent_field_part(e, f);
        ddb_value *v = NULL;
        bool keep = whole && (f->flags & (DDB_FIELD_CREATED_AT | DDB_FIELD_CREATE_ONLY));
        const char *p = (const char *)obj + f->offset;
        if (whole && (f->flags & DDB_FIELD_CREATED_AT) && ddbi_ent_field_unset(f, p))
            rc = ddbi_ent_stamp_value(f, now, a, &v, err);
        else if (whole && f->dflt && ddbi_ent_field_unset(f, p)) {
            keep = true; /* a default applies only when the item has none */
            rc = ddbi_ent_default_value(f, a, &v, err);
        } else
            rc = ddbi_ent_field_value(f, p, a, &v, err);
        if (rc)
            return rc;
        if (!v && mode == DDBI_UPD_UPSERT)
            continue; /* upsert leaves what obj does not set */
        if (!v && keep)
            continue;
        /* key fields live on every shard item */
        bool every = (f->flags & DDB_FIELD_KEY) && e->n_shards;
        for (int t = every ? 0 : s; t < (every ? nparts : s + 1); t++) {
            if (upd_set(&u[t], f->attr, v, keep))
                return UPD_OOM;
            touched[t] = true;
        }
    }
    return DDB_OK;
}

/* The index keys that depend on the changed fields (all of them when
 * whole) into u, each on the shard item carrying it, marking touched. */
static int upd_index_keys(const ddb_entity_desc *e, void *obj, const ddb_ent_mask *changed, ddbi_upd_mode mode,
                          bool whole, ddb_arena *a, upd *u, bool *touched, ddb_error *err)
{
    for (uint16_t k = 1; k < e->n_keys; k++) {
        const ddb_key_desc *kd = &e->keys[k];
        if (kd->by_fields)
            continue; /* its attributes are the fields themselves */
        if (!whole && !ddbi_ent_template_uses(&kd->pk, changed) && !(kd->sk_attr && ddbi_ent_template_uses(&kd->sk, changed)))
            continue;
        ddb_value *pk, *sk = NULL;
        int rc;
        if ((rc = ddb_ent_render(e, &kd->pk, obj, a, &pk, err)) ||
            (kd->sk_attr && (rc = ddb_ent_render(e, &kd->sk, obj, a, &sk, err))))
            return rc;
        bool in = pk && (!kd->sk_attr || sk);
        int ks = e->n_shards && kd->shard >= 0 ? kd->shard : 0;
        if (!in && mode == DDBI_UPD_UPSERT)
            continue;
        /* a key attribute that is also the table's (an LSI's partition key,
         * either key of an inverted GSI) is fixed by the primary key: never sent */
        if ((!ddbi_ent_table_key_attr(e, kd->pk_attr) && upd_set(&u[ks], kd->pk_attr, in ? pk : NULL, false)) ||
            (kd->sk_attr && !ddbi_ent_table_key_attr(e, kd->sk_attr) &&
             upd_set(&u[ks], kd->sk_attr, in ? sk : NULL, false)))
            return UPD_OOM;
        touched[ks] = true;
    }
    return DDB_OK;
}

/* The UpdateItem of shard item s (its update us) added to tx, with its
 * condition: the item exists (unless whole), the version of its shard
 * (vf, expected: the one read; vshard: its shard), and the caller's
 * condition c on the shard item upart. */
static int upd_add_shard(ddb_ent_tx *tx, const ddb_entity_desc *e, void *obj, ddbi_upd_mode mode, bool whole, int s,
                         upd *us, const ddb_field_desc *vf, int vshard, int64_t expected, const ddb_ent_tx_cond *c,
                         int upart, ddb_arena *a, ddb_error *err)
{
    ddbi_exprb *x = us->x;
    const ddb_expr *upx = NULL, *cx = NULL;
    if (us->rem.len && ddbi_buf_put(&x->text, us->rem.p, us->rem.len))
        return UPD_OOM;
    ddbi_buf_free(&us->rem);
    int rc;
    if ((rc = ddbi_exprb_prepare(x, DDB_EXPR_UPDATE, &upx, err)))
        return rc;
    x->text.len = 0; /* the same names and values serve the condition */
    bool check_version = vf && s == vshard;
    const char *pkn = ddbi_exprb_name(x, e->keys[0].pk_attr);
    if (!pkn)
        return UPD_OOM;
    if (!whole && (ddbi_exprb_put(x, "attribute_exists(") || ddbi_exprb_put(x, pkn) || ddbi_exprb_put(x, ")")))
        return UPD_OOM;
    if (check_version && (x->text.len && ddbi_exprb_put(x, " AND ")))
        return UPD_OOM;
    if (check_version && whole && expected == 0) { /* version 0: a new item */
        if (ddbi_exprb_put(x, "attribute_not_exists(") || ddbi_exprb_put(x, pkn) || ddbi_exprb_put(x, ")"))
            return UPD_OOM;
    } else if (check_version) {
        const char *vn = ddbi_exprb_name(x, vf->attr), *vv = ddbi_exprb_value(x, ddb_v_i64(a, expected));
        if (!vn || !vv || ddbi_exprb_put(x, vn) || ddbi_exprb_put(x, " = ") || ddbi_exprb_put(x, vv))
            return UPD_OOM;
    }
    bool user = c && c->condition && s == upart;
    if (user && ((x->text.len && ddbi_exprb_put(x, " AND ")) || (rc = ddbi_exprb_merge(x, c->condition, err))))
        return rc ? rc : UPD_OOM;
    if ((rc = ddbi_exprb_prepare(x, DDB_EXPR_CONDITION, &cx, err)))
        return rc;
    /* unused names and values are refused by DynamoDB: the condition may
     * not use :vK of a whole write's version */
    ddb_item *k = NULL;
    if ((rc = ddbi_ent_primary_key(e, obj, e->n_shards ? s : -1, a, &k, err)))
        return rc;
    ddb_tx_op op = {.kind = DDB_TX_UPDATE, .table = e->table->def.name, .item = k, .update = upx,
                    .condition = cx, .values = ddbi_exprb_values(x)};
    bool guarded = !whole || check_version || user;
    ddbi_ent_opinfo in = {.e = e,
                          .role = !guarded ? DDBI_OP_PART
                                  : mode == DDBI_UPD_PUT ? DDBI_OP_PUT
                                  : whole ? DDBI_OP_UPSERT
                                          : DDBI_OP_UPDATE,
                          .vf = check_version ? vf : NULL, .expected = expected, .user_cond = user,
                          .current = c ? c->current : NULL, .current_found = c ? c->current_found : NULL,
                          .current_arena = c ? c->current_arena : NULL};
    return ddbi_ent_tx_add(tx, &op, &in, err);
}

int ddbi_ent_add_update(ddb_ent_tx *tx, const ddb_entity_desc *e, void *obj, const ddb_ent_mask *mask,
                        ddbi_upd_mode mode, const ddb_ent_tx_cond *c, const void *old, ddb_error *err)
{
    ddb_arena *a = ddbi_ent_tx_arena(tx);
    ddb *db = ddbi_ent_tx_db(tx);
    ddb_ent_mask changed;
    int rc = ddbi_ent_check_shards(e, err);
    if (!rc)
        rc = fields_of(e, mask, mode, &changed, err);
    if (!rc)
        rc = ddbi_ent_fill_stamps(db, e, obj, false, a, err);
    if (!rc)
        rc = ddbi_ent_fill_derived(e, obj, a, err);
    if (rc)
        return rc;
    bool whole = mode == DDBI_UPD_PUT || mode == DDBI_UPD_UPSERT;
    int64_t now = ddb_clock_ms(db);
    int nparts = ddbi_ent_parts(e);
    int upart = c && c->condition && e->n_shards ? c->condition->shard : 0;
    if (upart < 0 || upart >= nparts)
        return ddbi_fail(err, DDB_EINVAL, "%s: the condition names shard %d of %d", e->name, upart, nparts);
    upd u[DDB_ENT_MAX_SHARDS];
    bool touched[DDB_ENT_MAX_SHARDS] = {false};
    memset(u, 0, sizeof u);
    for (int s = 0; s < nparts && !rc; s++)
        rc = ddbi_ent_tx_exprb(tx, &u[s].x, err);
    /* the fields themselves, and derived attributes that depend on them */
    if (!rc)
        rc = upd_fields(e, obj, &changed, mode, whole, now, nparts, a, u, touched, err);
    /* index keys that depend on them (each on the shard item carrying it) */
    if (!rc)
        rc = upd_index_keys(e, obj, &changed, mode, whole, a, u, touched, err);
    if (rc == UPD_OOM)
        return ddbi_fail_oom(err, __func__);
    /* whole-item writes create the item: its type attribute, on every shard */
    for (int s = 0; !rc && whole && s < nparts; s++) {
        if (upd_set(&u[s], e->table->type_attr, ddb_v_str(a, e->name), false))
            return ddbi_fail_oom(err, __func__);
        touched[s] = true;
    }
    /* the version guards the fields of its own shard: bumped (and checked)
     * only when that shard is written, so updating another shard never
     * rewrites it (docs/SCHEMA.md, "Versions on sharded entities") */
    const ddb_field_desc *vf = ddbi_ent_flagged(e, DDB_FIELD_VERSION);
    int64_t expected = vf ? ddbi_ent_int_get(vf, (char *)obj + vf->offset) : 0;
    int vshard = vf ? ddbi_ent_field_part(e, vf) : -1;
    if (!rc && vf && touched[vshard]) {
        if (upd_set(&u[vshard], vf->attr, ddb_v_i64(a, expected + 1), false))
            return ddbi_fail_oom(err, __func__);
        rc = ddbi_ent_tx_on_commit(tx, vf, obj, expected + 1, err);
    }
    /* the condition reads a shard item this update does not write: checked
     * there in the same transaction (an existing item, unless upsert) */
    if (!rc && c && c->condition && !touched[upart] &&
        (rc = ddbi_ent_add_check(tx, e, obj, mode == DDBI_UPD_UPSERT || mode == DDBI_UPD_PUT ? -1 : 1, c,
                                 whole ? DDBI_OP_CHECK : DDBI_OP_UPDATE, err)))
        return rc;
    for (int s = 0; !rc && s < nparts; s++) {
        if (touched[s])
            rc = upd_add_shard(tx, e, obj, mode, whole, s, &u[s], vf, vshard, expected, c, upart, a, err);
        if (rc == UPD_OOM)
            return ddbi_fail_oom(err, __func__);
    }
    for (int s = 0; s < nparts; s++)
        ddbi_buf_free(&u[s].rem);
    if (!rc && ddbi_ent_has_unique(e, mask ? &changed : NULL))
        rc = ddbi_ent_unique_sync(tx, a, e, obj, old, &changed, err);
    return rc;
}

/* ---- alone ---- */

typedef struct upd_ctx {
    const ddb_entity_desc *e;
    void *obj;
    const ddb_ent_mask *mask;
    ddbi_upd_mode mode;
    const ddb_ent_opts *o;
} upd_ctx;

static int build_update(ddb_ent_tx *tx, ddb_arena *a, void *vctx, ddb_error *err)
{
    upd_ctx *u = vctx;
    ddb_ent_tx_cond c = ddbi_ent_cond_of(u->o);
    void *old = NULL;
    int rc = DDB_OK;
    if (ddbi_ent_has_unique(u->e, u->mask))
        rc = ddbi_ent_read_old(ddbi_ent_tx_db(tx), u->e, u->obj, a, &old, err);
    return rc ? rc : ddbi_ent_add_update(tx, u->e, u->obj, u->mask, u->mode, &c, old, err);
}

static int update_alone(ddb *db, const ddb_entity_desc *e, void *obj, const ddb_ent_mask *mask, ddbi_upd_mode mode,
                        const ddb_ent_opts *o, ddb_capacity *cap, ddb_error *err)
{
    if (cap)
        memset(cap, 0, sizeof *cap);
    if (!db || !e || !obj)
        return ddbi_fail(err, DDB_EINVAL, "update: db, entity and object are required");
    upd_ctx u = {e, obj, mask, mode, o};
    return ddbi_ent_single(db, o, cap, build_update, &u, err);
}

int ddb_ent_update_fields(ddb *db, const ddb_entity_desc *e, void *obj, const char *const *fields, size_t n_fields,
                          const ddb_ent_opts *o, ddb_capacity *cap, ddb_error *err)
{
    if (cap)
        memset(cap, 0, sizeof *cap);
    if (!db || !e || !obj || (n_fields && !fields))
        return ddbi_fail(err, DDB_EINVAL, "update: db, entity, object and fields are required");
    ddb_ent_mask m;
    memset(&m, 0, sizeof m);
    for (size_t i = 0; i < n_fields; i++) {
        uint16_t j = 0;
        while (j < e->st->n_fields && strcmp(e->st->fields[j].name, fields[i]) != 0)
            j++;
        if (j == e->st->n_fields)
            return ddbi_fail(err, DDB_EVALIDATION, "%s has no field %s", e->name, fields[i]);
        ddb_ent_mask_set(&m, j);
    }
    return update_alone(db, e, obj, &m, DDBI_UPD_FIELDS, o, cap, err);
}

int ddb_ent_update_mask(ddb *db, const ddb_entity_desc *e, void *obj, const ddb_ent_mask *fields,
                        const ddb_ent_opts *o, ddb_capacity *cap, ddb_error *err)
{
    return update_alone(db, e, obj, fields, fields ? DDBI_UPD_FIELDS : DDBI_UPD_PATCH, o, cap, err);
}

int ddb_ent_patch(ddb *db, const ddb_entity_desc *e, void *obj, const ddb_ent_opts *o, ddb_capacity *cap,
                  ddb_error *err)
{
    return update_alone(db, e, obj, NULL, DDBI_UPD_PATCH, o, cap, err);
}

int ddb_ent_upsert(ddb *db, const ddb_entity_desc *e, void *obj, const ddb_ent_opts *o, ddb_capacity *cap,
                   ddb_error *err)
{
    return update_alone(db, e, obj, NULL, DDBI_UPD_UPSERT, o, cap, err);
}

static int tx_update(ddb_ent_tx *tx, const ddb_entity_desc *e, void *obj, const ddb_ent_mask *fields,
                     ddbi_upd_mode mode, const ddb_ent_tx_cond *c, ddb_error *err)
{
    if (!tx || !e || !obj)
        return ddbi_fail(err, DDB_EINVAL, "transaction: tx, entity and object are required");
    void *old = NULL;
    int rc = DDB_OK;
    if (ddbi_ent_has_unique(e, fields))
        rc = ddbi_ent_read_old(ddbi_ent_tx_db(tx), e, obj, ddbi_ent_tx_arena(tx), &old, err);
    if (!rc)
        rc = ddbi_ent_add_update(tx, e, obj, fields, mode, c, old, err);
    if (rc)
        ddbi_ent_tx_poison(tx);
    return rc;
}

int ddb_ent_tx_update_mask(ddb_ent_tx *tx, const ddb_entity_desc *e, void *obj, const ddb_ent_mask *fields,
                           const ddb_ent_tx_cond *c, ddb_error *err)
{
    return tx_update(tx, e, obj, fields, fields ? DDBI_UPD_FIELDS : DDBI_UPD_PATCH, c, err);
}

int ddb_ent_tx_upsert(ddb_ent_tx *tx, const ddb_entity_desc *e, void *obj, const ddb_ent_tx_cond *c, ddb_error *err)
{
    return tx_update(tx, e, obj, NULL, DDBI_UPD_UPSERT, c, err);
}

/* ---- declared updates ---- */

/* The offset just after the SET keyword of an UpdateExpression, or -1.
 * Keywords are words; placeholders (#x, :x) and names cannot be "SET"
 * (a reserved word). */
static long set_clause(const char *t)
{
    for (size_t i = 0; t[i]; i++) {
        bool start = i == 0 || !(isalnum((unsigned char)t[i - 1]) || t[i - 1] == '_' || t[i - 1] == '#' ||
                                 t[i - 1] == ':' || t[i - 1] == '.');
        if (start && strncasecmp(t + i, "SET", 3) == 0 && (t[i + 3] == ' ' || t[i + 3] == '\t' || t[i + 3] == '\n'))
            return (long)i + 4;
    }
    return -1;
}

/* Add declared update u to tx for the entity with key's primary key. */
static int add_declared(ddb_ent_tx *tx, const ddb_entity_desc *e, const void *key, const ddb_ent_update_expr *u,
                        const ddb_ent_tx_cond *cs, size_t nc, void *out, ddb_arena *out_arena, ddb_error *err)
{
    ddb_arena *a = ddbi_ent_tx_arena(tx);
    ddb *db = ddbi_ent_tx_db(tx);
    if (!u->expr.text || !*u->expr.text)
        return ddbi_fail(err, DDB_EINVAL, "%s: an update needs its expression text", e->name);
    int nparts = ddbi_ent_parts(e);
    int s = e->n_shards ? u->expr.shard : 0;
    if (s < 0 || s >= nparts)
        return ddbi_fail(err, DDB_EINVAL, "%s: the update names shard %d of %d", e->name, s, nparts);
    ddbi_exprb *x = NULL;
    int rc = ddbi_ent_tx_exprb(tx, &x, err);
    if (rc)
        return rc;
    /* the caller's names and values, then what the runtime adds inside its
     * SET clause (or a SET clause of its own) */
    ddb_ent_expr names_only = {.text = "x", .names = u->expr.names, .values = u->expr.values};
    if ((rc = ddbi_exprb_merge(x, &names_only, err)))
        return rc;
    x->text.len = 0;
    ddb_buf extra = {0};
    for (uint16_t j = 0; j < e->st->n_fields && !rc; j++) {
        const ddb_field_desc *f = &e->st->fields[j];
        if (!(f->flags & DDB_FIELD_UPDATED_AT) || ddbi_ent_field_part(e, f) != s)
            continue;
        ddb_value *v = NULL;
        if ((rc = ddbi_ent_stamp_value(f, ddb_clock_ms(db), a, &v, err)))
            break;
        const char *n = ddbi_exprb_name(x, f->attr), *r = ddbi_exprb_value(x, v);
        if (!n || !r || ddbi_buf_put(&extra, n, strlen(n)) || ddbi_buf_put(&extra, " = ", 3) ||
            ddbi_buf_put(&extra, r, strlen(r)) || ddbi_buf_put(&extra, ", ", 2))
            rc = ddbi_fail_oom(err, __func__);
    }
    const ddb_field_desc *vf = ddbi_ent_flagged(e, DDB_FIELD_VERSION);
    bool version = vf && ddbi_ent_field_part(e, vf) == s;
    int64_t expected = version ? ddbi_ent_int_get(vf, (const char *)key + vf->offset) : 0;
    const char *vn = NULL, *vv = NULL;
    if (!rc && version) {
        vn = ddbi_exprb_name(x, vf->attr);
        const char *zero = ddbi_exprb_value(x, ddb_v_i64(a, 0)), *one = ddbi_exprb_value(x, ddb_v_i64(a, 1));
        if (!vn || !zero || !one || ddbi_buf_put(&extra, vn, strlen(vn)) ||
            ddbi_buf_put(&extra, " = if_not_exists(", 17) || ddbi_buf_put(&extra, vn, strlen(vn)) ||
            ddbi_buf_put(&extra, ", ", 2) || ddbi_buf_put(&extra, zero, strlen(zero)) ||
            ddbi_buf_put(&extra, ") + ", 4) || ddbi_buf_put(&extra, one, strlen(one)) ||
            ddbi_buf_put(&extra, ", ", 2))
            rc = ddbi_fail_oom(err, __func__);
        if (!rc && expected && !(vv = ddbi_exprb_value(x, ddb_v_i64(a, expected))))
            rc = ddbi_fail_oom(err, __func__);
    }
    if (!rc) {
        long at = set_clause(u->expr.text);
        size_t len = strlen(u->expr.text);
        if (extra.len >= 2)
            extra.len -= 2; /* the last ", " */
        if (at < 0 && extra.len)
            rc = ddbi_exprb_put(x, u->expr.text) || ddbi_exprb_put(x, " SET ") ||
                 ddbi_buf_put(&x->text, extra.p, extra.len);
        else if (extra.len)
            rc = ddbi_buf_put(&x->text, u->expr.text, (size_t)at) || ddbi_buf_put(&x->text, extra.p, extra.len) ||
                 ddbi_exprb_put(x, ", ") || ddbi_buf_put(&x->text, u->expr.text + at, len - (size_t)at);
        else
            rc = ddbi_exprb_put(x, u->expr.text);
        if (rc)
            rc = ddbi_fail_oom(err, __func__);
    }
    ddbi_buf_free(&extra);
    const ddb_expr *upx = NULL, *cx = NULL;
    if (!rc)
        rc = ddbi_exprb_prepare(x, DDB_EXPR_UPDATE, &upx, err);
    if (rc)
        return rc;
    x->text.len = 0;
    if (!u->upsert) {
        const char *pkn = ddbi_exprb_name(x, e->keys[0].pk_attr);
        if (!pkn || ddbi_exprb_put(x, "attribute_exists(") || ddbi_exprb_put(x, pkn) || ddbi_exprb_put(x, ")"))
            return ddbi_fail_oom(err, __func__);
    }
    if (vv && ((x->text.len && ddbi_exprb_put(x, " AND ")) || ddbi_exprb_put(x, vn) || ddbi_exprb_put(x, " = ") ||
               ddbi_exprb_put(x, vv)))
        return ddbi_fail_oom(err, __func__);
    /* the conditions on this shard item */
    const ddb_ent_tx_cond *c = NULL;
    for (size_t i = 0; i < nc; i++) {
        if (!cs[i].condition || (e->n_shards ? cs[i].condition->shard : 0) != s)
            continue;
        if (!c || !c->current)
            c = &cs[i];
        if ((x->text.len && ddbi_exprb_put(x, " AND ")) || (rc = ddbi_exprb_merge(x, cs[i].condition, err)))
            return rc ? rc : ddbi_fail_oom(err, __func__);
    }
    bool user = c != NULL;
    if ((rc = ddbi_exprb_prepare(x, DDB_EXPR_CONDITION, &cx, err)))
        return rc;
    ddb_item *k = NULL;
    if ((rc = ddbi_ent_primary_key(e, key, e->n_shards ? s : -1, a, &k, err)))
        return rc;
    ddb_tx_op op = {.kind = DDB_TX_UPDATE, .table = e->table->def.name, .item = k, .update = upx, .condition = cx,
                    .values = ddbi_exprb_values(x)};
    ddbi_ent_opinfo in = {.e = e, .role = u->upsert ? DDBI_OP_UPSERT : DDBI_OP_UPDATE, .vf = vv ? vf : NULL,
                          .expected = expected, .user_cond = user, .current = c ? c->current : NULL,
                          .current_found = c ? c->current_found : NULL, .current_arena = c ? c->current_arena : NULL,
                          .out = out, .out_arena = out_arena};
    return ddbi_ent_tx_add(tx, &op, &in, err);
}

int ddbi_ent_add_declared(ddb_ent_tx *tx, const ddb_entity_desc *e, const void *key, const ddb_ent_update_expr *u,
                          size_t n, const ddb_ent_tx_cond *c, size_t nc, void *out, ddb_arena *out_arena,
                          ddb_error *err)
{
    int rc = ddbi_ent_check_shards(e, err);
    if (!rc && !n)
        rc = ddbi_fail(err, DDB_EINVAL, "%s: an update needs at least one expression", e->name);
    for (size_t i = 0; !rc && i < n; i++)
        for (size_t j = 0; !rc && j < i; j++)
            if (e->n_shards && u[i].expr.shard == u[j].expr.shard)
                rc = ddbi_fail(err, DDB_EINVAL, "%s: two updates of shard %d (one UpdateItem per shard item)",
                               e->name, u[i].expr.shard);
    for (size_t i = 0; !rc && i < n; i++)
        rc = add_declared(tx, e, key, &u[i], c, nc, out, out_arena, err);
    /* a condition on a shard item the update does not write: checked there,
     * in the same transaction, the item required to exist too */
    for (size_t j = 0; !rc && j < nc; j++) {
        int cpart = c[j].condition && e->n_shards ? c[j].condition->shard : 0;
        bool written = !c[j].condition;
        for (size_t i = 0; i < n; i++)
            written |= (e->n_shards ? u[i].expr.shard : 0) == cpart;
        if (!written)
            rc = ddbi_ent_add_check(tx, e, key, u[0].upsert ? -1 : 1, &c[j],
                                    u[0].upsert ? DDBI_OP_CHECK : DDBI_OP_UPDATE, err);
    }
    return rc;
}

/* out after an update of a sharded entity: the whole item read back with a
 * consistent get (its capacity merged into cap); absent (deleted since):
 * out stays zeroed. */
static int read_after(ddb *db, const ddb_entity_desc *e, const void *key, void *out, ddb_arena *a,
                      const ddb_ent_opts *o, ddb_capacity *cap, ddb_error *err)
{
    ddb_capacity rc_cap;
    ddb_ent_opts ro = {.consistent = true, .return_capacity = ddbi_ent_cap_mode(o)};
    int rc = ddb_ent_get(db, e, key, &ro, a, out, &rc_cap, err);
    if (rc == DDB_OK)
        ddbi_ent_cap_merge(cap, &rc_cap);
    else if (rc != DDB_ENOTFOUND) /* deleted since by another writer: nothing to return */
        rc = ddbi_ent_fail_within(err, rc, "%s: written, but reading the item back failed", e->name);
    else
        rc = DDB_OK;
    return rc;
}

typedef struct decl_ctx {
    const ddb_entity_desc *e;
    const void *key;
    const ddb_ent_update_expr *u;
    size_t n;
    const ddb_ent_opts *o;
    void *out;
    ddb_arena *a;
} decl_ctx;

static int build_declared(ddb_ent_tx *tx, ddb_arena *a, void *vctx, ddb_error *err)
{
    (void)a;
    decl_ctx *d = vctx;
    ddb_ent_tx_cond c = ddbi_ent_cond_of(d->o);
    return ddbi_ent_add_declared(tx, d->e, d->key, d->u, d->n, &c, 1, d->out, d->a, err);
}

int ddb_ent_update(ddb *db, const ddb_entity_desc *e, const void *key, const ddb_ent_update_expr *u, size_t n,
                   const ddb_ent_opts *o, ddb_arena *a, void *out, ddb_capacity *cap, ddb_error *err)
{
    if (cap)
        memset(cap, 0, sizeof *cap);
    if (!db || !e || !key || (n && !u) || (out && !a))
        return ddbi_fail(err, DDB_EINVAL, "update: db, entity, key and updates are required (and an arena with out)");
    decl_ctx d = {e, key, u, n, o, e->n_shards ? NULL : out, a};
    return ddbi_ent_single_out(db, e, key, o, out, a, cap, build_declared, &d, err);
}

int ddbi_ent_single_out(ddb *db, const ddb_entity_desc *e, const void *key, const ddb_ent_opts *o, void *out,
                        ddb_arena *a, ddb_capacity *cap, ddbi_ent_build_fn build, void *ctx, ddb_error *err)
{
    if (out)
        memset(out, 0, e->st->size);
    int rc = ddbi_ent_single(db, o, cap, build, ctx, err);
    return rc || !out || !e->n_shards ? rc : read_after(db, e, key, out, a, o, cap, err);
}

int ddb_ent_tx_update(ddb_ent_tx *tx, const ddb_entity_desc *e, const void *key, const ddb_ent_update_expr *u,
                      size_t n, const ddb_ent_tx_cond *c, ddb_error *err)
{
    if (!tx || !e || !key || (n && !u))
        return ddbi_fail(err, DDB_EINVAL, "transaction: tx, entity, key and updates are required");
    int rc = ddbi_ent_add_declared(tx, e, key, u, n, c, c ? 1 : 0, NULL, NULL, err);
    if (rc)
        ddbi_ent_tx_poison(tx);
    return rc;
}
