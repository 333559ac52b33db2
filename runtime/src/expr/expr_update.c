/* Applying an UpdateExpression to an item.
 *
 * DynamoDB evaluates every action against the item as it was before the
 * update, and list indexes name the elements of the old lists.  So the
 * update runs in phases over a deep copy of the old item:
 *   1. compute: check each action's document path and compute the value it
 *      writes (SET value, ADD sum/union, DELETE difference), reading only
 *      the old item;
 *   2. write in place: map keys and existing list slots (no list changes
 *      length, so old indexes still name old elements);
 *   3. remove: map keys, and list elements marked then compacted, so
 *      REMOVE l[1], l[2] removes the two old elements;
 *   4. append: SET/ADD on list indexes past the end, in index order. */
#include "expr/expr.h"

#include "core/error.h"
#include "core/number.h"
#include "core/value.h"

#include <stdlib.h>
#include <string.h>

typedef struct uctx {
    const ddb_expr *e;
    const ddb_value *old; /* old item map, NULL when there is no item */
    const ddb_item *values;
    ddb_arena *tmp;       /* intermediate values */
    ddb_error *err;
} uctx;

static int err_missing(const expr_node *n, ddb_error *err)
{
    return ddbi_expr_fail_at(err, DDB_EVALIDATION, n->line, n->col,
                        "The provided expression refers to an attribute that does not exist in the item");
}

static int err_type(uint32_t line, uint32_t col, ddb_error *err)
{
    return ddbi_expr_fail_at(err, DDB_EVALIDATION, line, col,
                        "An operand in the update expression has an incorrect data type");
}

static int err_path(const expr_path *p, ddb_error *err)
{
    return ddbi_expr_fail_at(err, DDB_EVALIDATION, p->line, p->col,
                        "The document path provided in the update expression is invalid for update");
}

static bool is_set(ddb_type t)
{
    return t == DDB_TSS || t == DDB_TNS || t == DDB_TBS;
}

static int number_op(uctx *c, const ddb_value *x, const ddb_value *y, bool add, const ddb_value **out)
{
    ddb_dec a, b, r;
    int rc;
    if ((rc = ddbi_dec_parse(x->u.s, x->len, &a, c->err)) || (rc = ddbi_dec_parse(y->u.s, y->len, &b, c->err)))
        return rc;
    if ((rc = add ? ddbi_dec_add(&a, &b, &r, c->err) : ddbi_dec_sub(&a, &b, &r, c->err)))
        return rc;
    char buf[DDB_NUMBER_TEXT_MAX + 1];
    size_t len = ddbi_dec_format(&r, buf);
    buf[len < DDB_NUMBER_TEXT_MAX ? len : DDB_NUMBER_TEXT_MAX - 1] = 0;
    ddb_value *v;
    if ((rc = ddb_v_n(c->tmp, buf, &v, c->err)))
        return rc;
    *out = v;
    return DDB_OK;
}

static int set_union(uctx *c, const ddb_value *x, const ddb_value *y, const ddb_value **out)
{
    ddb_value *s = ddb_v_set(c->tmp, x->type);
    if (!s)
        return ddbi_fail_oom(c->err, "applying an update");
    for (int k = 0; k < 2; k++) {
        const ddb_value *from = k ? y : x;
        for (uint32_t i = 0; i < from->len; i++) {
            int rc = ddb_set_add(c->tmp, s, from->u.set[i], c->err);
            if (rc)
                return rc;
        }
    }
    *out = s;
    return DDB_OK;
}

static bool set_has(const ddb_value *s, const ddb_value *x)
{
    for (uint32_t i = 0; i < s->len; i++)
        if (ddb_value_equal(s->u.set[i], x))
            return true;
    return false;
}

static int set_difference(uctx *c, const ddb_value *x, const ddb_value *y, const ddb_value **out)
{
    ddb_value *s = ddb_v_set(c->tmp, x->type);
    if (!s)
        return ddbi_fail_oom(c->err, "applying an update");
    for (uint32_t i = 0; i < x->len; i++) {
        if (set_has(y, x->u.set[i]))
            continue;
        int rc = ddb_set_add(c->tmp, s, x->u.set[i], c->err);
        if (rc)
            return rc;
    }
    *out = s;
    return DDB_OK;
}

static int eval_value(uctx *c, const expr_node *n, const ddb_value **out)
{
    int rc;
    switch (n->kind) {
    case EN_PATH: {
        const ddb_value *v = c->old ? ddbi_expr_path_get(c->old, &n->path, n->path.n) : NULL;
        if (!v)
            return err_missing(n, c->err);
        *out = v;
        return DDB_OK;
    }
    case EN_VALUE:
        if (!(*out = ddbi_expr_value_of(c->values, n)))
            return ddbi_expr_fail(c->err, DDB_EVALIDATION, c->e->kind, n->line, n->col,
                             "An expression attribute value used in expression is not defined; attribute value: %.*s",
                             (int)(n->slen > 255 ? 255 : n->slen), n->str);
        return DDB_OK;
    case EN_PLUS:
    case EN_MINUS: {
        const ddb_value *x, *y;
        if ((rc = eval_value(c, n->args[0], &x)) || (rc = eval_value(c, n->args[1], &y)))
            return rc;
        if (x->type != DDB_TN || y->type != DDB_TN)
            return err_type(n->line, n->col, c->err);
        return number_op(c, x, y, n->kind == EN_PLUS, out);
    }
    case EN_FUNC:
        if (n->op == EF_IF_NOT_EXISTS && n->nargs == 2) {
            const ddb_value *v =
                c->old && n->args[0]->kind == EN_PATH ? ddbi_expr_path_get(c->old, &n->args[0]->path, n->args[0]->path.n)
                                                      : NULL;
            if (v) {
                *out = v;
                return DDB_OK;
            }
            return eval_value(c, n->args[1], out);
        }
        if (n->op == EF_LIST_APPEND && n->nargs == 2) {
            const ddb_value *x, *y;
            if ((rc = eval_value(c, n->args[0], &x)) || (rc = eval_value(c, n->args[1], &y)))
                return rc;
            if (x->type != DDB_TL || y->type != DDB_TL)
                return err_type(n->line, n->col, c->err);
            ddb_value *l = ddb_v_list(c->tmp);
            if (!l)
                return ddbi_fail_oom(c->err, "applying an update");
            for (int k = 0; k < 2; k++) {
                const ddb_value *from = k ? y : x;
                for (uint32_t i = 0; i < from->len; i++)
                    if (ddb_list_append(c->tmp, l, from->u.l[i]) != DDB_OK)
                        return ddbi_fail_oom(c->err, "applying an update");
            }
            *out = l;
            return DDB_OK;
        }
        return err_type(n->line, n->col, c->err);
    default: return err_type(n->line, n->col, c->err);
    }
}

/* One computed change. */
typedef struct change {
    const expr_path *path;
    const ddb_value *value; /* NULL: remove */
    bool skip;              /* nothing to do (DELETE on an absent attribute) */
} change;

typedef struct append {
    ddb_value *list;
    uint32_t index;
    uint32_t seq;
    ddb_value *value;
} append;

static int append_cmp(const void *x, const void *y)
{
    const append *a = x, *b = y;
    if (a->index != b->index)
        return a->index < b->index ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Phase 1 for one action. */
static int compute(uctx *c, const expr_action *act, change *ch)
{
    const expr_path *p = &act->path;
    ch->path = p;
    ch->value = NULL;
    ch->skip = false;
    if (p->n > 1) {
        const ddb_value *parent = c->old ? ddbi_expr_path_get(c->old, p, p->n - 1) : NULL;
        const expr_pelem *last = &p->el[p->n - 1];
        if (!parent || parent->type != (last->name ? DDB_TM : DDB_TL))
            return err_path(p, c->err);
    }
    const ddb_value *cur = c->old ? ddbi_expr_path_get(c->old, p, p->n) : NULL;
    const ddb_value *v;
    int rc;
    switch (act->kind) {
    case UA_SET: return eval_value(c, act->value, &ch->value);
    case UA_REMOVE: ch->skip = !cur; return DDB_OK;
    case UA_ADD:
        if ((rc = eval_value(c, act->value, &v)))
            return rc;
        if (!cur) {
            if (v->type != DDB_TN && !is_set(v->type))
                return err_type(act->value->line, act->value->col, c->err);
            ch->value = v;
            return DDB_OK;
        }
        if (cur->type == DDB_TN && v->type == DDB_TN)
            return number_op(c, cur, v, true, &ch->value);
        if (is_set(cur->type) && cur->type == v->type)
            return set_union(c, cur, v, &ch->value);
        return err_type(act->value->line, act->value->col, c->err);
    case UA_DELETE:
        if ((rc = eval_value(c, act->value, &v)))
            return rc;
        if (!is_set(v->type))
            return err_type(act->value->line, act->value->col, c->err);
        if (!cur) {
            ch->skip = true;
            return DDB_OK;
        }
        if (cur->type != v->type)
            return err_type(act->value->line, act->value->col, c->err);
        if ((rc = set_difference(c, cur, v, &ch->value)))
            return rc;
        if (ch->value->len == 0)
            ch->value = NULL; /* an empty set removes the attribute */
        return DDB_OK;
    }
    return DDB_OK;
}

static int apply(uctx *c, ddb_arena *a, const change *ch, size_t n, ddb_value *root)
{
    append *apps = ddb_arena_alloc(c->tmp, (n + 1) * sizeof *apps);
    ddb_value **lists = ddb_arena_alloc(c->tmp, (n + 1) * sizeof *lists);
    if (!apps || !lists)
        return ddbi_fail_oom(c->err, "applying an update");
    size_t napps = 0, nlists = 0;
    /* 2. writes in place */
    for (size_t i = 0; i < n; i++) {
        if (ch[i].skip || !ch[i].value)
            continue;
        const expr_path *p = ch[i].path;
        ddb_value *parent = (ddb_value *)(uintptr_t)ddbi_expr_path_get(root, p, p->n - 1);
        const expr_pelem *last = &p->el[p->n - 1];
        ddb_value *v = ddb_value_copy(a, ch[i].value);
        if (!v)
            return ddbi_fail_oom(c->err, "applying an update");
        if (last->name) {
            if (ddbi_expr_map_setn(a, parent, last->name, last->len, v) != DDB_OK)
                return ddbi_fail_oom(c->err, "applying an update");
        } else if (last->index < parent->len) {
            parent->u.l[last->index] = v;
        } else {
            apps[napps] = (append){parent, last->index, (uint32_t)napps, v};
            napps++;
        }
    }
    /* 3. removals: mark list slots, compact afterwards */
    for (size_t i = 0; i < n; i++) {
        if (ch[i].skip || ch[i].value)
            continue;
        const expr_path *p = ch[i].path;
        ddb_value *parent = (ddb_value *)(uintptr_t)ddbi_expr_path_get(root, p, p->n - 1);
        const expr_pelem *last = &p->el[p->n - 1];
        if (!parent)
            continue;
        if (last->name) {
            ddbi_expr_map_removen(parent, last->name, last->len);
        } else if (parent->type == DDB_TL && last->index < parent->len) {
            parent->u.l[last->index] = NULL;
            lists[nlists++] = parent;
        }
    }
    for (size_t i = 0; i < nlists; i++) {
        ddb_value *l = lists[i];
        uint32_t k = 0;
        for (uint32_t j = 0; j < l->len; j++)
            if (l->u.l[j])
                l->u.l[k++] = l->u.l[j];
        l->len = k;
    }
    /* 4. appends, in index order */
    qsort(apps, napps, sizeof *apps, append_cmp);
    for (size_t i = 0; i < napps; i++)
        if (ddb_list_append(a, apps[i].list, apps[i].value) != DDB_OK)
            return ddbi_fail_oom(c->err, "applying an update");
    return DDB_OK;
}

int ddbi_expr_apply_update(const ddb_expr *e, const ddb_item *old, const ddb_item *values, ddb_arena *a,
                          ddb_item **out, ddb_error *err)
{
    if (out)
        *out = NULL;
    if (!e || e->kind != DDB_EXPR_UPDATE || !a || !out)
        return ddbi_fail(err, DDB_EINVAL, "ddbi_expr_apply_update needs an update expression, an arena and out");
    uctx c = {e, old ? ddb_item_map(old) : NULL, values, ddb_arena_new(), err};
    if (!c.tmp)
        return ddbi_fail_oom(err, "applying an update");
    int rc = DDB_OK;
    change *ch = ddb_arena_alloc(c.tmp, (e->nactions + 1) * sizeof *ch);
    if (!ch)
        rc = ddbi_fail_oom(err, "applying an update");
    for (size_t i = 0; rc == DDB_OK && i < e->nactions; i++)
        rc = compute(&c, &e->actions[i], &ch[i]);
    ddb_value *root = NULL;
    if (rc == DDB_OK) {
        root = c.old ? ddb_value_copy(a, c.old) : ddb_v_map(a);
        if (!root)
            rc = ddbi_fail_oom(err, "applying an update");
    }
    if (rc == DDB_OK)
        rc = apply(&c, a, ch, e->nactions, root);
    if (rc == DDB_OK && !(*out = ddb_item_from_map(a, root)))
        rc = ddbi_fail_oom(err, "applying an update");
    ddb_arena_free(c.tmp);
    return rc;
}

bool ddbi_expr_update_creates(const ddb_expr *e)
{
    for (size_t i = 0; e && i < e->nactions; i++)
        if (e->actions[i].kind == UA_SET || e->actions[i].kind == UA_ADD)
            return true;
    return false;
}

/* ---- Key attributes ----------------------------------------------------------- */

static bool name_is(const expr_pelem *el, const char *name)
{
    return el->name && strlen(name) == el->len && memcmp(el->name, name, el->len) == 0;
}

int ddbi_expr_update_check_keys(const ddb_expr *e, const char *const *key_attrs, size_t n_key_attrs,
                               const char *const *index_attrs, size_t n_index_attrs, ddb_error *err)
{
    if (!e || e->kind != DDB_EXPR_UPDATE)
        return ddbi_fail(err, DDB_EINVAL, "ddbi_expr_update_check_keys needs an update expression");
    for (size_t i = 0; i < e->nactions; i++) {
        const expr_action *act = &e->actions[i];
        for (size_t k = 0; k < n_key_attrs; k++)
            if (key_attrs[k] && name_is(&act->path.el[0], key_attrs[k]))
                return ddbi_fail(err, DDB_EVALIDATION,
                                "One or more parameter values were invalid: Cannot update attribute %s. This "
                                "attribute is part of the key",
                                key_attrs[k]);
    }
    return ddbi_expr_check_key_paths(&e, 1, key_attrs, n_key_attrs, index_attrs, n_index_attrs, err);
}
