/* Condition and filter evaluation on an item, and the request-level checks
 * that need the :values (ddbi_expr_check_request). */
#include "expr/expr.h"

#include "core/error.h"
#include "core/value.h"

#include <stdio.h>
#include <string.h>

const ddb_value *ddbi_expr_map_get(const ddb_value *map, const char *name, size_t len)
{
    return ddbi_map_getn(map, name, len);
}

const ddb_value *ddbi_expr_path_get(const ddb_value *root, const expr_path *p, uint32_t nelems)
{
    const ddb_value *v = root;
    for (uint32_t i = 0; v && i < nelems; i++) {
        const expr_pelem *el = &p->el[i];
        if (el->name)
            v = v->type == DDB_TM ? ddbi_map_getn(v, el->name, el->len) : NULL;
        else
            v = v->type == DDB_TL && el->index < v->len ? v->u.l[el->index] : NULL;
    }
    return v;
}

const ddb_value *ddbi_expr_value_of(const ddb_item *values, const expr_node *n)
{
    return values ? ddbi_map_getn(ddb_item_map(values), n->str, n->slen) : NULL;
}

/* ---- Evaluation ------------------------------------------------------------ */

typedef struct ectx {
    const ddb_expr *e;
    const ddb_value *item; /* M, or NULL for no item */
    const ddb_item *values;
    ddb_error *err;
} ectx;

/* An operand's value: a pointer into the item or values, or tmp (size()). */
typedef struct opval {
    const ddb_value *v;
    ddb_value tmp;
    char buf[24];
} opval;

static int undefined_value(const ddb_expr *e, const expr_node *n, ddb_error *err)
{
    return ddbi_expr_fail(err, DDB_EVALIDATION, e->kind, n->line, n->col,
                     "An expression attribute value used in expression is not defined; attribute value: %.*s",
                     (int)(n->slen > 255 ? 255 : n->slen), n->str);
}

/* DynamoDB's size(): bytes of S and B, elements of L, M and sets. */
static bool size_of(const ddb_value *v, uint32_t *out)
{
    switch (v->type) {
    case DDB_TS:
    case DDB_TB:
    case DDB_TL:
    case DDB_TM:
    case DDB_TSS:
    case DDB_TNS:
    case DDB_TBS: *out = v->len; return true;
    default: return false;
    }
}

static int eval_operand(const ectx *c, const expr_node *n, opval *out)
{
    out->v = NULL;
    switch (n->kind) {
    case EN_PATH: out->v = c->item ? ddbi_expr_path_get(c->item, &n->path, n->path.n) : NULL; return DDB_OK;
    case EN_VALUE:
        if (!(out->v = ddbi_expr_value_of(c->values, n)))
            return undefined_value(c->e, n, c->err);
        return DDB_OK;
    case EN_FUNC:
        if (n->op == EF_SIZE && n->nargs == 1) {
            opval a;
            int rc = eval_operand(c, n->args[0], &a);
            uint32_t sz;
            if (rc)
                return rc;
            if (a.v && size_of(a.v, &sz)) {
                int w = snprintf(out->buf, sizeof out->buf, "%u", sz);
                memset(&out->tmp, 0, sizeof out->tmp);
                out->tmp.type = DDB_TN;
                out->tmp.len = (uint32_t)w;
                out->tmp.u.s = out->buf;
                out->v = &out->tmp;
            }
        }
        return DDB_OK;
    default: return DDB_OK; /* refused at prepare */
    }
}

static bool ordered_type(ddb_type t)
{
    return t == DDB_TS || t == DDB_TN || t == DDB_TB;
}

static bool values_equal(const ddb_value *x, const ddb_value *y)
{
    return x && y && x->type == y->type && ddb_value_equal(x, y);
}

static bool compare(const ddb_value *x, const ddb_value *y, expr_cmp op)
{
    if (op == CMP_EQ)
        return values_equal(x, y);
    if (op == CMP_NE)
        return !values_equal(x, y); /* an absent operand is unequal to anything */
    if (!x || !y || x->type != y->type || !ordered_type(x->type))
        return false;
    int c = ddb_value_compare(x, y);
    switch (op) {
    case CMP_LT: return c < 0;
    case CMP_LE: return c <= 0;
    case CMP_GT: return c > 0;
    default: return c >= 0;
    }
}

static bool bytes_contain(const char *hay, size_t hlen, const char *needle, size_t nlen)
{
    if (nlen == 0)
        return true;
    for (size_t i = 0; i + nlen <= hlen; i++)
        if (hay[i] == needle[0] && memcmp(hay + i, needle, nlen) == 0)
            return true;
    return false;
}

static bool fn_contains(const ddb_value *x, const ddb_value *y)
{
    if (!x || !y)
        return false;
    switch (x->type) {
    case DDB_TS:
    case DDB_TB: return y->type == x->type && bytes_contain(x->u.s, x->len, y->u.s, y->len);
    case DDB_TSS:
    case DDB_TNS:
    case DDB_TBS:
    case DDB_TL:
        for (uint32_t i = 0; i < x->len; i++)
            if (values_equal(x->u.l[i], y))
                return true;
        return false;
    default: return false;
    }
}

static bool fn_begins_with(const ddb_value *x, const ddb_value *y)
{
    return x && y && x->type == y->type && (x->type == DDB_TS || x->type == DDB_TB) && y->len <= x->len &&
           memcmp(x->u.s, y->u.s, y->len) == 0;
}

static bool fn_attribute_type(const ddb_value *x, const ddb_value *t)
{
    if (!x || !t || t->type != DDB_TS)
        return false;
    const char *name = ddb_type_name(x->type);
    return strlen(name) == t->len && memcmp(name, t->u.s, t->len) == 0;
}

static int eval_cond(const ectx *c, const expr_node *n, bool *r)
{
    int rc;
    switch (n->kind) {
    case EN_AND:
    case EN_OR: {
        if ((rc = eval_cond(c, n->args[0], r)))
            return rc;
        if (*r == (n->kind == EN_OR))
            return DDB_OK; /* short circuit */
        return eval_cond(c, n->args[1], r);
    }
    case EN_NOT:
        if ((rc = eval_cond(c, n->args[0], r)))
            return rc;
        *r = !*r;
        return DDB_OK;
    case EN_CMP: {
        opval a, b;
        if ((rc = eval_operand(c, n->args[0], &a)) || (rc = eval_operand(c, n->args[1], &b)))
            return rc;
        *r = compare(a.v, b.v, (expr_cmp)n->op);
        return DDB_OK;
    }
    case EN_BETWEEN: {
        opval a, lo, hi;
        if ((rc = eval_operand(c, n->args[0], &a)) || (rc = eval_operand(c, n->args[1], &lo)) ||
            (rc = eval_operand(c, n->args[2], &hi)))
            return rc;
        *r = a.v && lo.v && hi.v && lo.v->type == a.v->type && hi.v->type == a.v->type &&
             compare(a.v, lo.v, CMP_GE) && compare(a.v, hi.v, CMP_LE);
        return DDB_OK;
    }
    case EN_IN: {
        opval a;
        if ((rc = eval_operand(c, n->args[0], &a)))
            return rc;
        *r = false;
        for (uint32_t i = 1; i < n->nargs; i++) {
            opval b;
            if ((rc = eval_operand(c, n->args[i], &b)))
                return rc;
            if (values_equal(a.v, b.v)) {
                *r = true;
                break;
            }
        }
        return DDB_OK;
    }
    case EN_FUNC: {
        opval a, b;
        b.v = NULL;
        if ((rc = eval_operand(c, n->args[0], &a)))
            return rc;
        if (n->nargs > 1 && (rc = eval_operand(c, n->args[1], &b)))
            return rc;
        switch ((expr_func)n->op) {
        case EF_ATTRIBUTE_EXISTS: *r = a.v != NULL; break;
        case EF_ATTRIBUTE_NOT_EXISTS: *r = a.v == NULL; break;
        case EF_ATTRIBUTE_TYPE: *r = fn_attribute_type(a.v, b.v); break;
        case EF_BEGINS_WITH: *r = fn_begins_with(a.v, b.v); break;
        case EF_CONTAINS: *r = fn_contains(a.v, b.v); break;
        default: *r = false; break;
        }
        return DDB_OK;
    }
    default: *r = false; return DDB_OK;
    }
}

int ddbi_expr_eval_condition(const ddb_expr *e, const ddb_item *item, const ddb_item *values, bool *result,
                            ddb_error *err)
{
    if (!e || !result || !e->root)
        return ddbi_fail(err, DDB_EINVAL, "ddbi_expr_eval_condition needs a condition, filter or key condition");
    ectx c = {e, item ? ddb_item_map(item) : NULL, values, err};
    *result = false;
    return eval_cond(&c, e->root, result);
}

/* ---- Request checks that need the values --------------------------------- */

static const char *long_type_name(ddb_type t)
{
    switch (t) {
    case DDB_TS: return "STRING";
    case DDB_TN: return "NUMBER";
    case DDB_TB: return "BINARY";
    case DDB_TBOOL: return "BOOLEAN";
    case DDB_TNULL: return "NULL";
    case DDB_TL: return "LIST";
    case DDB_TM: return "MAP";
    case DDB_TSS: return "STRING_SET";
    case DDB_TNS: return "NUMBER_SET";
    case DDB_TBS: return "BINARY_SET";
    default: return "?";
    }
}

static bool is_set(ddb_type t)
{
    return t == DDB_TSS || t == DDB_TNS || t == DDB_TBS;
}

/* "{S:a}" as DynamoDB prints a scalar in BETWEEN messages (B in base64). */
static void scalar_str(const ddb_value *v, char *buf, size_t size)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    if (v->type != DDB_TB) {
        snprintf(buf, size, "{%s:%.*s}", ddb_type_name(v->type), (int)(v->len > 64 ? 64 : v->len), v->u.s);
        return;
    }
    size_t n = (size_t)snprintf(buf, size, "{B:");
    const uint8_t *s = v->u.b;
    for (uint32_t i = 0; i < v->len && n + 6 < size && i < 48; i += 3) {
        uint32_t x = (uint32_t)s[i] << 16 | (i + 1 < v->len ? (uint32_t)s[i + 1] << 8 : 0) |
                     (i + 2 < v->len ? s[i + 2] : 0);
        buf[n++] = b64[x >> 18 & 63];
        buf[n++] = b64[x >> 12 & 63];
        buf[n++] = i + 1 < v->len ? b64[x >> 6 & 63] : '=';
        buf[n++] = i + 2 < v->len ? b64[x & 63] : '=';
    }
    snprintf(buf + n, size - n, "}");
}

typedef struct vctx {
    const ddb_expr *e;
    const ddb_item *values;
    ddb_error *err;
} vctx;

static int first_undefined(const vctx *c, const expr_node *n)
{
    if (n->kind == EN_VALUE && !ddbi_expr_value_of(c->values, n))
        return undefined_value(c->e, n, c->err);
    for (uint32_t i = 0; i < n->nargs; i++) {
        int rc = first_undefined(c, n->args[i]);
        if (rc)
            return rc;
    }
    return DDB_OK;
}

static int bad_operand(const vctx *c, const expr_node *at, const char *op, const char *type)
{
    return ddbi_expr_fail(c->err, DDB_EVALIDATION, c->e->kind, at->line, at->col,
                     "Incorrect operand type for operator or function; operator or function: %s, operand type: %s", op,
                     type);
}

static const char *cmp_name(expr_cmp op)
{
    static const char *const s[] = {"=", "<>", "<", "<=", ">", ">="};
    return s[op];
}

/* Value types DynamoDB checks in a condition before reading the item. */
static int check_cond_types(const vctx *c, const expr_node *n)
{
    int rc;
    for (uint32_t i = 0; i < n->nargs; i++)
        if ((rc = check_cond_types(c, n->args[i])))
            return rc;
    if (n->kind == EN_CMP && n->op >= CMP_LT) {
        for (uint32_t i = 0; i < 2; i++) {
            const ddb_value *v = n->args[i]->kind == EN_VALUE ? ddbi_expr_value_of(c->values, n->args[i]) : NULL;
            if (v && !ordered_type(v->type))
                return bad_operand(c, n->args[i], cmp_name((expr_cmp)n->op), ddb_type_name(v->type));
        }
    } else if (n->kind == EN_BETWEEN) {
        const ddb_value *v[3];
        for (uint32_t i = 0; i < 3; i++) {
            v[i] = n->args[i]->kind == EN_VALUE ? ddbi_expr_value_of(c->values, n->args[i]) : NULL;
            if (v[i] && !ordered_type(v[i]->type))
                return bad_operand(c, n->args[i], "BETWEEN", ddb_type_name(v[i]->type));
        }
        if (v[1] && v[2]) {
            char lo[120], hi[120];
            scalar_str(v[1], lo, sizeof lo);
            scalar_str(v[2], hi, sizeof hi);
            if (v[1]->type != v[2]->type)
                return ddbi_expr_fail(c->err, DDB_EVALIDATION, c->e->kind, n->line, n->col,
                                 "The BETWEEN operator requires same data type for lower and upper bounds; lower bound "
                                 "operand: AttributeValue: %s, upper bound operand: AttributeValue: %s",
                                 lo, hi);
            if (ddb_value_compare(v[1], v[2]) > 0)
                return ddbi_expr_fail(c->err, DDB_EVALIDATION, c->e->kind, n->line, n->col,
                                 "The BETWEEN operator requires upper bound to be greater than or equal to lower "
                                 "bound; lower bound operand: AttributeValue: %s, upper bound operand: "
                                 "AttributeValue: %s",
                                 lo, hi);
        }
    } else if (n->kind == EN_FUNC) {
        for (uint32_t i = 0; i < n->nargs; i++) {
            const expr_node *a = n->args[i];
            const ddb_value *v = a->kind == EN_VALUE ? ddbi_expr_value_of(c->values, a) : NULL;
            if (!v)
                continue;
            switch ((expr_func)n->op) {
            case EF_ATTRIBUTE_TYPE:
                if (i != 1)
                    break;
                if (v->type != DDB_TS)
                    return bad_operand(c, a, "attribute_type", ddb_type_name(v->type));
                {
                    static const char *const types[] = {"S", "N", "B", "BOOL", "NULL", "L", "M", "SS", "NS", "BS"};
                    bool ok = false;
                    for (size_t k = 0; k < sizeof types / sizeof *types; k++)
                        if (strlen(types[k]) == v->len && memcmp(types[k], v->u.s, v->len) == 0)
                            ok = true;
                    if (!ok)
                        return ddbi_expr_fail(c->err, DDB_EVALIDATION, c->e->kind, a->line, a->col,
                                         "Invalid attribute type name found; type: %.*s, valid types: "
                                         "{B,NULL,SS,BOOL,L,BS,N,NS,S,M}",
                                         (int)(v->len > 64 ? 64 : v->len), v->u.s);
                }
                break;
            case EF_BEGINS_WITH:
                if (v->type != DDB_TS && v->type != DDB_TB)
                    return bad_operand(c, a, "begins_with", ddb_type_name(v->type));
                break;
            case EF_SIZE:
                if (v->type == DDB_TN || v->type == DDB_TBOOL || v->type == DDB_TNULL)
                    return bad_operand(c, a, "size", ddb_type_name(v->type));
                break;
            default: break;
            }
        }
    }
    return DDB_OK;
}

/* Value types DynamoDB checks in an update's SET value. */
static int check_set_types(const vctx *c, const expr_node *n)
{
    int rc;
    for (uint32_t i = 0; i < n->nargs; i++)
        if ((rc = check_set_types(c, n->args[i])))
            return rc;
    const char *op = NULL;
    ddb_type want = DDB_TNONE;
    if (n->kind == EN_PLUS || n->kind == EN_MINUS) {
        op = n->kind == EN_PLUS ? "+" : "-";
        want = DDB_TN;
    } else if (n->kind == EN_FUNC && n->op == EF_LIST_APPEND) {
        op = "list_append";
        want = DDB_TL;
    }
    if (!op)
        return DDB_OK;
    for (uint32_t i = 0; i < n->nargs; i++) {
        const ddb_value *v = n->args[i]->kind == EN_VALUE ? ddbi_expr_value_of(c->values, n->args[i]) : NULL;
        if (v && v->type != want)
            return bad_operand(c, n->args[i], op, ddb_type_name(v->type));
    }
    return DDB_OK;
}

int ddbi_expr_check_values(const ddb_expr *e, const ddb_item *values, ddb_error *err)
{
    vctx c = {e, values, err};
    int rc;
    if (e->kind == DDB_EXPR_UPDATE) {
        for (size_t i = 0; i < e->nactions; i++)
            if (e->actions[i].value && (rc = first_undefined(&c, e->actions[i].value)))
                return rc;
        for (size_t i = 0; i < e->nactions; i++) {
            const expr_action *a = &e->actions[i];
            if (a->kind == UA_SET) {
                if ((rc = check_set_types(&c, a->value)))
                    return rc;
            } else if (a->kind == UA_ADD || a->kind == UA_DELETE) {
                const ddb_value *v = ddbi_expr_value_of(values, a->value);
                bool ok = a->kind == UA_ADD ? (v->type == DDB_TN || is_set(v->type)) : is_set(v->type);
                if (!ok)
                    return ddbi_expr_fail(err, DDB_EVALIDATION, e->kind, a->value->line, a->value->col,
                                     "Incorrect operand type for operator or function; operator: %s, operand type: %s, "
                                     "typeSet: %s",
                                     a->kind == UA_ADD ? "ADD" : "DELETE", long_type_name(v->type),
                                     a->kind == UA_ADD ? "ALLOWED_FOR_ADD_OPERAND" : "ALLOWED_FOR_DELETE_OPERAND");
            }
        }
        return DDB_OK;
    }
    if (!e->root)
        return DDB_OK; /* projection: no values */
    if ((rc = first_undefined(&c, e->root)))
        return rc;
    return check_cond_types(&c, e->root);
}

/* ---- ddbi_expr_check_request ------------------------------------------------- */

/* A map key's length is checked before its syntax; DynamoDB's words (captured
 * by ExtendDB's tests/test_expression_attribute_map_validation.py): the names'
 * message ends "; size of key: N", the values' stops at the ';'. */
static int check_placeholder(const char *s, size_t len, char sigil, ddb_error *err)
{
    const char *map = sigil == '#' ? "Names" : "Values";
    if (len > DDB_EXPR_MAX_REF_BYTES) {
        if (sigil == '#')
            return ddbi_fail(err, DDB_EVALIDATION,
                             "ExpressionAttributeNames contains invalid key: The expression attribute map contains "
                             "a key that is too long; size of key: %zu",
                             len);
        return ddbi_fail(err, DDB_EVALIDATION,
                         "ExpressionAttributeValues contains invalid key: The expression attribute map contains a "
                         "key that is too long;");
    }
    bool ok = len >= 2 && s[0] == sigil;
    for (size_t i = 1; ok && i < len; i++) {
        char ch = s[i];
        ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
    }
    if (!ok)
        return ddbi_fail(err, DDB_EVALIDATION, "ExpressionAttribute%s contains invalid key: Syntax error; key: \"%.*s\"",
                         map, (int)len, s);
    return DDB_OK;
}

int ddbi_expr_check_maps(const ddb_item *names, const ddb_item *values, ddb_error *err)
{
    if (names) {
        const ddb_value *m = ddb_item_map(names);
        if (m->len == 0)
            return ddbi_fail(err, DDB_EVALIDATION, "ExpressionAttributeNames must not be empty");
        for (uint32_t i = 0; i < m->len; i++) {
            const ddb_attr *at = &m->u.m[i];
            int rc = check_placeholder(at->name, at->name_len, '#', err);
            if (rc)
                return rc;
            if (at->value->type != DDB_TS)
                return ddbi_fail(err, DDB_EVALIDATION,
                                "ExpressionAttributeNames contains invalid value: the name for key %.*s must be a "
                                "string",
                                (int)at->name_len, at->name);
            /* DynamoDB's words (captured from the service by ExtendDB's
             * tests/test_expression_attribute_map_validation.py) */
            if (at->value->len == 0)
                return ddbi_fail(err, DDB_EVALIDATION,
                                "ExpressionAttributeNames contains invalid value: Empty attribute name for key %.*s",
                                (int)at->name_len, at->name);
            /* the item's own limit on a name (ScyllaDB test/alternator/test_limits.py::
             * test_limit_attribute_length_nonkey_bad: a projection or a
             * condition naming it is refused too) */
            if (at->value->len > DDB_ATTR_NAME_MAX)
                return ddbi_fail(err, DDB_EVALIDATION,
                                "Attribute name is too large, must be less than 65536 bytes (the name for key %.*s has "
                                "%u bytes)",
                                (int)at->name_len, at->name, at->value->len);
        }
    }
    if (values) {
        const ddb_value *m = ddb_item_map(values);
        if (m->len == 0)
            return ddbi_fail(err, DDB_EVALIDATION, "ExpressionAttributeValues must not be empty");
        for (uint32_t i = 0; i < m->len; i++) {
            const ddb_attr *at = &m->u.m[i];
            int rc = check_placeholder(at->name, at->name_len, ':', err);
            if (!rc)
                rc = ddbi_value_check_placeholder(at->value, at->name, at->name_len, err);
            if (rc)
                return rc;
        }
    }
    return DDB_OK;
}

static bool used_in(const char *const *v, size_t n, const char *s, size_t len)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        size_t ml = strlen(v[mid]);
        size_t m = ml < len ? ml : len;
        int c = memcmp(v[mid], s, m);
        if (!c)
            c = ml < len ? -1 : ml > len;
        if (!c)
            return true;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

/* "Value provided in ExpressionAttribute<what> unused in expressions: keys: {#a, #b}" */
static int unused(const ddb_expr *const *exprs, size_t n, const ddb_item *map, bool names, ddb_error *err)
{
    if (!map)
        return DDB_OK;
    char list[DDB_ERROR_TEXT_SIZE];
    size_t len = 0, count = 0;
    const ddb_value *m = ddb_item_map(map);
    for (uint32_t i = 0; i < m->len; i++) {
        const ddb_attr *at = &m->u.m[i];
        bool used = false;
        for (size_t k = 0; k < n && !used; k++) {
            if (!exprs[k])
                continue;
            used = names ? used_in(exprs[k]->names_used, exprs[k]->nnames_used, at->name, at->name_len)
                         : used_in(exprs[k]->values_used, exprs[k]->nvalues_used, at->name, at->name_len);
        }
        if (used)
            continue;
        int w = snprintf(list + len, sizeof list - len, "%s%.*s", count ? ", " : "",
                         (int)(at->name_len > 64 ? 64 : at->name_len), at->name);
        if (w > 0)
            len += (size_t)w < sizeof list - len ? (size_t)w : sizeof list - len - 1;
        count++;
    }
    if (!count)
        return DDB_OK;
    return ddbi_fail(err, DDB_EVALIDATION, "Value provided in ExpressionAttribute%s unused in expressions: keys: {%s}",
                    names ? "Names" : "Values", list);
}

int ddbi_expr_check_request(const ddb_expr *const *exprs, size_t n, const ddb_item *names, const ddb_item *values,
                           ddb_error *err)
{
    int rc = ddbi_expr_check_maps(names, values, err);
    if (rc)
        return rc;
    size_t present = 0;
    for (size_t i = 0; i < n; i++)
        present += exprs[i] != NULL;
    if (!present && names)
        return ddbi_fail(err, DDB_EVALIDATION, "ExpressionAttributeNames can only be specified when using expressions");
    if (!present && values)
        return ddbi_fail(err, DDB_EVALIDATION,
                        "ExpressionAttributeValues can only be specified when using expressions");
    for (size_t i = 0; i < n; i++)
        if (exprs[i] && (rc = ddbi_expr_check_values(exprs[i], values, err)))
            return rc;
    if ((rc = unused(exprs, n, names, true, err)))
        return rc;
    return unused(exprs, n, values, false, err);
}

int ddb_expr_check_maps(const ddb_item *names, const ddb_item *values, ddb_error *err)
{
    return ddbi_expr_check_maps(names, values, err);
}

int ddb_expr_check_request(const ddb_expr *const *exprs, size_t n, const ddb_item *names, const ddb_item *values,
                           ddb_error *err)
{
    if (n && !exprs)
        return ddbi_fail(err, DDB_EINVAL, "ddb_expr_check_request: NULL exprs");
    return ddbi_expr_check_request(exprs, n, names, values, err);
}
