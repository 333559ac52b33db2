/* ddb serve: PartiQL statements lowered to the JSON API's calls — a parsed
 * pq_stmt (partiql_parse.c) into a pq_plan (partiql.h): which libddb call,
 * its key, and its expressions as DynamoDB expression text with #n names
 * and :v values, so that libddb's expression code evaluates everything.
 *
 *   SELECT ... WHERE pk = v [AND one sort-key condition] [AND others]
 *        -> Query (KeyConditionExpression, FilterExpression of the others)
 *   any other SELECT -> Scan (FilterExpression of the whole WHERE)
 *   INSERT -> PutItem, ConditionExpression attribute_not_exists(pk)
 *   UPDATE -> UpdateItem, ConditionExpression attribute_exists(pk) AND others
 *   DELETE -> DeleteItem, ConditionExpression attribute_not_exists(pk) OR
 *             (others): a missing item is no error, a present one must match
 *   EXISTS(SELECT ...) -> ConditionCheck (transactions)
 *
 * (Developer guide: "PartiQL select / insert / update / delete statements
 * for DynamoDB".)  Calls libddb's public value API only. */
#include "partiql.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct lower {
    ddb_arena *a;
    ddb_error *err;
    int rc;
    ddb_item *names, *values;
    size_t n_names, n_values;
    char *buf; /* the text being rendered */
    size_t len, cap;
} lower;

static int fail(lower *l, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(lower *l, int code, const char *fmt, ...)
{
    if (l->rc)
        return l->rc;
    l->rc = code;
    if (l->err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(l->err->message, sizeof l->err->message, fmt, ap);
        va_end(ap);
        l->err->code = code;
    }
    return code;
}

static int put(lower *l, const char *s)
{
    size_t n = strlen(s);
    if (l->rc)
        return l->rc;
    if (l->len + n + 1 > l->cap) {
        size_t cap = (l->cap ? l->cap * 2 : 256) + n;
        char *b = ddb_arena_alloc(l->a, cap);
        if (!b)
            return fail(l, DDB_ENOMEM, "out of memory");
        if (l->len)
            memcpy(b, l->buf, l->len);
        l->buf = b;
        l->cap = cap;
    }
    memcpy(l->buf + l->len, s, n + 1);
    l->len += n;
    return 0;
}

/* The rendered text since mark, as its own string; the buffer rewinds. */
static const char *take(lower *l, size_t mark)
{
    if (l->rc)
        return NULL;
    char *s = ddb_arena_alloc(l->a, l->len - mark + 1);
    if (!s) {
        fail(l, DDB_ENOMEM, "out of memory");
        return NULL;
    }
    memcpy(s, l->buf + mark, l->len - mark);
    s[l->len - mark] = 0;
    l->len = mark;
    if (l->buf)
        l->buf[mark] = 0;
    return s;
}

/* #nK for an attribute name (one placeholder per distinct name). */
static int put_name(lower *l, const char *name)
{
    char ph[24];
    const ddb_value *m = ddb_item_map(l->names);
    for (uint32_t i = 0; i < m->len; i++)
        if (strcmp(m->u.m[i].value->u.s, name) == 0)
            return put(l, m->u.m[i].name);
    snprintf(ph, sizeof ph, "#n%zu", l->n_names++);
    if (ddb_item_set_s(l->names, ph, name))
        return fail(l, DDB_ENOMEM, "out of memory");
    return put(l, ph);
}

/* :vK for a value. */
static int put_value(lower *l, const ddb_value *v)
{
    char ph[24];
    snprintf(ph, sizeof ph, ":v%zu", l->n_values++);
    if (ddb_item_set(l->values, ph, (ddb_value *)v))
        return fail(l, DDB_ENOMEM, "out of memory");
    return put(l, ph);
}

static int put_path(lower *l, const pq_node *n)
{
    for (size_t i = 0; i < n->n_steps && !l->rc; i++) {
        if (n->steps[i].name) {
            if (i)
                put(l, ".");
            put_name(l, n->steps[i].name);
        } else {
            char ix[24];
            snprintf(ix, sizeof ix, "[%u]", n->steps[i].index);
            put(l, ix);
        }
    }
    return l->rc;
}

static int put_cond(lower *l, const pq_node *n, int need);

static int put_operand(lower *l, const pq_node *n);

/* (a, b, ...): a function's arguments, IN's list */
static int put_list(lower *l, pq_node *const *args, size_t n)
{
    put(l, "(");
    for (size_t i = 0; i < n; i++) {
        if (i)
            put(l, ", ");
        put_operand(l, args[i]);
    }
    return put(l, ")");
}

/* An operand: a path, a value, size(path), or (in updates) a + b and
 * list_append / if_not_exists. */
static int put_operand(lower *l, const pq_node *n)
{
    switch (n->kind) {
    case PN_PATH: return put_path(l, n);
    case PN_VALUE: return put_value(l, n->value);
    case PN_MISSING: return fail(l, DDB_EVALIDATION, "MISSING must be compared using IS operator");
    case PN_ARITH:
        put_operand(l, n->args[0]);
        put(l, n->op[0] == '+' ? " + " : " - ");
        return put_operand(l, n->args[1]);
    case PN_CALL:
        if (strcmp(n->op, "size") && strcmp(n->op, "list_append") && strcmp(n->op, "if_not_exists"))
            return fail(l, DDB_EVALIDATION, "Unsupported function in this position: %s", n->op);
        put(l, n->op);
        return put_list(l, n->args, n->n_args);
    default:
        return fail(l, DDB_EVALIDATION, "A condition cannot be used as a value here");
    }
}

static int precedence(const pq_node *n)
{
    return n->kind == PN_OR ? 1 : n->kind == PN_AND ? 2 : n->kind == PN_NOT ? 3 : 4;
}

/* x IS [NOT] type: attribute_exists / attribute_not_exists, or attribute_type. */
static int put_is(lower *l, const pq_node *n)
{
    static const char *const types[][2] = {{"NULL", "NULL"}, {"BOOLEAN", "BOOL"}, {"BLOB", "B"},   {"STRING", "S"},
                                           {"NUMERIC", "N"}, {"STRUCT", "M"},     {"TUPLE", "M"}, {"LIST", "L"}};
    if (n->args[0]->kind != PN_PATH)
        return fail(l, DDB_EVALIDATION, "The left hand side argument to IS must be a Variable Reference, Literal, or Path");
    if (strcmp(n->op, "MISSING") == 0) {
        put(l, n->negated ? "attribute_exists(" : "attribute_not_exists(");
        put_path(l, n->args[0]);
        return put(l, ")");
    }
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (strcmp(n->op, types[i][0]) == 0) {
            ddb_value *t = ddb_v_str(l->a, types[i][1]);
            if (!t)
                return fail(l, DDB_ENOMEM, "out of memory");
            put(l, n->negated ? "NOT attribute_type(" : "attribute_type(");
            put_path(l, n->args[0]);
            put(l, ", ");
            put_value(l, t);
            return put(l, ")");
        }
    return fail(l, DDB_EVALIDATION, "Unsupported data type for IS operator: %s", n->op);
}

/* The operands of a comparison, BETWEEN, IN or function in a condition:
 * no arithmetic, no update functions (DynamoDB's message, as DynamoDB
 * Local's ValidationExceptionMessages has it, for the operators). */
static int cond_operands(lower *l, const pq_node *n)
{
    if (n->kind != PN_CMP && n->kind != PN_BETWEEN && n->kind != PN_IN && n->kind != PN_CALL)
        return 0;
    for (size_t i = 0; i < n->n_args; i++) {
        const pq_node *x = n->args[i];
        if (x->kind == PN_ARITH)
            return fail(l, DDB_EVALIDATION, "Unsupported operator in Condition Expression. Operator: %s", x->op);
        if (x->kind == PN_CALL && strcmp(x->op, "size"))
            return fail(l, DDB_EVALIDATION, "Unsupported function in a condition: %s", x->op);
    }
    return 0;
}

/* A condition; parenthesized when its precedence is below need. */
static int put_cond(lower *l, const pq_node *n, int need)
{
    if (cond_operands(l, n))
        return l->rc;
    bool parens = precedence(n) < need;
    if (parens)
        put(l, "(");
    switch (n->kind) {
    case PN_OR:
    case PN_AND:
        put_cond(l, n->args[0], precedence(n));
        put(l, n->kind == PN_OR ? " OR " : " AND ");
        put_cond(l, n->args[1], precedence(n) + 1);
        break;
    case PN_NOT:
        put(l, "NOT ");
        put_cond(l, n->args[0], 3);
        break;
    case PN_CMP:
        put_operand(l, n->args[0]);
        put(l, " ");
        put(l, n->op);
        put(l, " ");
        put_operand(l, n->args[1]);
        break;
    case PN_BETWEEN:
        put_operand(l, n->args[0]);
        put(l, " BETWEEN ");
        put_operand(l, n->args[1]);
        put(l, " AND ");
        put_operand(l, n->args[2]);
        break;
    case PN_IN:
        put_operand(l, n->args[0]);
        put(l, " IN ");
        put_list(l, n->args + 1, n->n_args - 1);
        break;
    case PN_IS:
        put_is(l, n);
        break;
    case PN_CALL:
        if (strcmp(n->op, "begins_with") && strcmp(n->op, "contains") && strcmp(n->op, "attribute_type") &&
            strcmp(n->op, "attribute_exists") && strcmp(n->op, "attribute_not_exists"))
            return fail(l, DDB_EVALIDATION, "Unrecognized function: %s", n->op);
        put(l, n->op);
        put_list(l, n->args, n->n_args);
        break;
    default:
        return fail(l, DDB_EVALIDATION, "WHERE clause must contain an expression that resolves to a boolean");
    }
    if (parens)
        put(l, ")");
    return l->rc;
}

/* ---- the WHERE clause's conjuncts and keys -------------------------------- */

typedef struct conjuncts {
    const pq_node *c[512];
    size_t n;
} conjuncts;

static int flatten(lower *l, const pq_node *n, conjuncts *out)
{
    if (n->kind == PN_AND) {
        flatten(l, n->args[0], out);
        return flatten(l, n->args[1], out);
    }
    if (out->n == sizeof out->c / sizeof *out->c)
        return fail(l, DDB_ELIMIT, "Too many conditions joined by AND: at most %zu", sizeof out->c / sizeof *out->c);
    out->c[out->n++] = n;
    return l->rc;
}

static bool is_attr(const pq_node *n, const char *attr)
{
    return attr && n->kind == PN_PATH && n->n_steps == 1 && n->steps[0].name && strcmp(n->steps[0].name, attr) == 0;
}

static bool same_path(const pq_node *a, const pq_node *b)
{
    if (a->kind != PN_PATH || b->kind != PN_PATH || a->n_steps != b->n_steps)
        return false;
    for (size_t i = 0; i < a->n_steps; i++) {
        const pq_step *x = &a->steps[i], *y = &b->steps[i];
        if (!x->name != !y->name || (x->name ? strcmp(x->name, y->name) != 0 : x->index != y->index))
            return false;
    }
    return true;
}

/* Does the condition name attr anywhere (as a path's first step)? */
static bool mentions(const pq_node *n, const char *attr)
{
    if (!attr)
        return false;
    if (n->kind == PN_PATH)
        return n->steps[0].name && strcmp(n->steps[0].name, attr) == 0;
    for (size_t i = 0; i < n->n_args; i++)
        if (mentions(n->args[i], attr))
            return true;
    return false;
}

/* attr = value (either way round): the value, else NULL. */
static const ddb_value *equality(const pq_node *c, const char *attr)
{
    if (c->kind != PN_CMP || strcmp(c->op, "="))
        return NULL;
    if (is_attr(c->args[0], attr) && c->args[1]->kind == PN_VALUE)
        return c->args[1]->value;
    if (is_attr(c->args[1], attr) && c->args[0]->kind == PN_VALUE)
        return c->args[0]->value;
    return NULL;
}

/* The conjuncts other than those used (mask), rendered joined by AND; NULL
 * when none is left. */
static const char *rest(lower *l, const conjuncts *cs, const bool *used)
{
    size_t mark = l->len, k = 0;
    for (size_t i = 0; i < cs->n; i++)
        if (!used[i]) {
            if (k++)
                put(l, " AND ");
            put_cond(l, cs->c[i], 2);
        }
    return k ? take(l, mark) : NULL;
}

/* A key attribute's value: a scalar of the schema's type (DynamoDB's
 * PartiQL messages, as DynamoDB Local's ValidationExceptionMessages has
 * them). */
static int key_value(lower *l, const char *attr, ddb_type want, const ddb_value *v)
{
    if (v->type != DDB_TS && v->type != DDB_TN && v->type != DDB_TB)
        return fail(l, DDB_EVALIDATION, "Key value must be of type S, N, or B. Key name: %s, Key type: %s", attr,
                    ddb_type_name(v->type));
    if (v->type != want)
        return fail(l, DDB_EVALIDATION,
                    "Key attribute's data type should match its data type in table's schema: Key %s", attr);
    return 0;
}

/* The full primary key from equalities of the WHERE clause (writes and
 * single-item reads); used[] marks the conjuncts taken. */
static int full_key(lower *l, const pq_stmt *s, const ddb_key_schema *k, conjuncts *cs, bool *used, ddb_item **key)
{
    const char *attrs[2] = {k->pk, k->sk};
    if (!s->where)
        return fail(l, DDB_EVALIDATION, "Where clause does not contain a mandatory equality on all key attributes");
    if (flatten(l, s->where, cs))
        return l->rc;
    *key = ddb_item_new(l->a);
    if (!*key)
        return fail(l, DDB_ENOMEM, "out of memory");
    for (int j = 0; j < 2; j++) {
        if (!attrs[j])
            continue;
        bool found = false;
        for (size_t i = 0; i < cs->n; i++) {
            const ddb_value *v = equality(cs->c[i], attrs[j]);
            if (!v)
                continue;
            if (found)
                return fail(l, DDB_EVALIDATION,
                            "Multiple conditions on same key %s. Only single item Update/Insert/Delete are supported",
                            attrs[j]);
            found = used[i] = true;
            if (key_value(l, attrs[j], j ? k->sk_type : k->pk_type, v))
                return l->rc;
            if (ddb_item_set(*key, attrs[j], (ddb_value *)v))
                return fail(l, DDB_ENOMEM, "out of memory");
        }
        if (!found)
            return fail(l, DDB_EVALIDATION, "Where clause does not contain a mandatory equality on all key attributes");
    }
    return 0;
}

/* "attribute_exists(#pk)" (or not_exists), for the conditions of writes. */
static const char *key_presence(lower *l, const char *pk, bool exists)
{
    size_t mark = l->len;
    put(l, exists ? "attribute_exists(" : "attribute_not_exists(");
    put_name(l, pk);
    put(l, ")");
    return take(l, mark);
}

/* ---- statements ------------------------------------------------------------- */

/* A sort-key condition a Query takes: sk op v, sk BETWEEN v AND w,
 * begins_with(sk, v).  Renders it and returns true; false otherwise. */
static bool sort_key_condition(lower *l, const pq_node *c, const char *sk)
{
    static const char *const flip[][2] = {{"=", "="}, {"<", ">"}, {"<=", ">="}, {">", "<"}, {">=", "<="}};
    if (c->kind == PN_CMP)
        for (size_t i = 0; i < sizeof flip / sizeof *flip; i++) {
            if (strcmp(c->op, flip[i][0]))
                continue;
            const pq_node *a = c->args[0], *b = c->args[1];
            bool swapped = !is_attr(a, sk);
            if (swapped)
                a = c->args[1], b = c->args[0];
            if (!is_attr(a, sk) || b->kind != PN_VALUE)
                return false;
            put_path(l, a);
            put(l, " ");
            put(l, flip[i][swapped]);
            put(l, " ");
            put_value(l, b->value);
            return true;
        }
    if (c->kind == PN_BETWEEN && is_attr(c->args[0], sk) && c->args[1]->kind == PN_VALUE &&
        c->args[2]->kind == PN_VALUE) {
        put_cond(l, c, 4);
        return true;
    }
    if (c->kind == PN_CALL && strcmp(c->op, "begins_with") == 0 && c->n_args == 2 && is_attr(c->args[0], sk) &&
        c->args[1]->kind == PN_VALUE) {
        put_cond(l, c, 4);
        return true;
    }
    return false;
}

/* Query when exactly one conjunct names the partition key, as an equality,
 * and at most one names the sort key, in a form a key condition takes.  An
 * index with a multi-attribute key is scanned with the whole WHERE as the
 * filter (its results, not its cost, are those of a Query). */
static bool plan_query(lower *l, const pq_stmt *s, const ddb_key_schema *k, pq_plan *out)
{
    if (!s->where || k->n_pk_more || k->n_sk_more)
        return false;
    conjuncts cs;
    cs.n = 0;
    if (flatten(l, s->where, &cs))
        return false;
    bool used[sizeof cs.c / sizeof *cs.c] = {false};
    size_t pk_at = cs.n, sk_at = cs.n;
    for (size_t i = 0; i < cs.n; i++) {
        if (mentions(cs.c[i], k->pk)) {
            if (pk_at != cs.n || !equality(cs.c[i], k->pk))
                return false;
            pk_at = i;
        }
        if (mentions(cs.c[i], k->sk)) {
            if (sk_at != cs.n)
                return false;
            sk_at = i;
        }
    }
    if (pk_at == cs.n || pk_at == sk_at)
        return false;
    size_t mark = l->len, values = l->n_values;
    put_name(l, k->pk); /* "#pk = :v", the name first, however it was written */
    put(l, " = ");
    put_value(l, equality(cs.c[pk_at], k->pk));
    used[pk_at] = true;
    if (sk_at != cs.n) {
        put(l, " AND ");
        if (!sort_key_condition(l, cs.c[sk_at], k->sk)) {
            /* not a key condition: a Scan after all (its values dropped:
             * unused values are an error) */
            l->len = mark;
            for (; l->n_values > values; l->n_values--) {
                char ph[24];
                snprintf(ph, sizeof ph, ":v%zu", l->n_values - 1);
                ddb_item_remove(l->values, ph);
            }
            return false;
        }
        used[sk_at] = true;
    }
    out->key_condition = take(l, mark);
    out->filter = rest(l, &cs, used);
    return !l->rc;
}

static int lower_select(lower *l, const pq_stmt *s, const pq_keys *keys, bool single_item, pq_plan *out)
{
    if (s->n_proj) {
        size_t mark = l->len;
        for (size_t i = 0; i < s->n_proj; i++) {
            for (size_t j = 0; j < i; j++)
                if (same_path(s->proj[i], s->proj[j]))
                    return fail(l, DDB_EVALIDATION, "Duplicate identifiers in select clause: %s",
                                s->proj[i]->steps[0].name);
            if (i)
                put(l, ", ");
            put_path(l, s->proj[i]);
        }
        out->projection = take(l, mark);
    }
    if (single_item) {
        if (s->index)
            return fail(l, DDB_EVALIDATION, "Reads on indices are not supported within transactions.");
        conjuncts cs;
        cs.n = 0;
        bool used[sizeof cs.c / sizeof *cs.c] = {false};
        if (full_key(l, s, &keys->table, &cs, used, &out->key))
            return l->rc;
        out->call = s->kind == PQ_EXISTS ? PQC_CHECK : PQC_GET;
        const char *others = rest(l, &cs, used);
        if (s->kind == PQ_EXISTS) {
            const char *present = key_presence(l, keys->table.pk, true);
            if (l->rc)
                return l->rc;
            if (!others)
                out->condition = present;
            else {
                size_t mark = l->len;
                put(l, present);
                put(l, " AND ");
                put(l, others);
                out->condition = take(l, mark);
            }
        } else if (others) {
            /* conditions besides the key: a Query of the one item, filtered */
            size_t mark = l->len;
            out->call = PQC_QUERY;
            for (int j = 0; j < 2; j++) {
                const char *attr = j ? keys->table.sk : keys->table.pk;
                if (!attr)
                    continue;
                if (j)
                    put(l, " AND ");
                put_name(l, attr);
                put(l, " = ");
                put_value(l, ddb_item_get(out->key, attr));
            }
            out->key_condition = take(l, mark);
            out->filter = others; /* key stays: the item the Query reads */
        }
        return l->rc;
    }
    out->call = plan_query(l, s, &keys->target, out) ? PQC_QUERY : PQC_SCAN;
    if (l->rc)
        return l->rc;
    if (out->call == PQC_SCAN && s->where) {
        size_t mark = l->len;
        put_cond(l, s->where, 0);
        out->filter = take(l, mark);
    }
    for (size_t i = 0; i < s->n_order_by; i++) {
        const pq_node *k = s->order_by[i];
        if (!s->where)
            return fail(l, DDB_EVALIDATION, "Must have WHERE clause in the statement when using ORDER BY clause.");
        if (!is_attr(k, keys->target.pk) && !is_attr(k, keys->target.sk))
            return fail(l, DDB_EVALIDATION, "Variable reference %s in ORDER BY clause must be part of the primary key",
                        k->steps[0].name);
        if (out->call != PQC_QUERY)
            return fail(l, DDB_EVALIDATION, "Must have at least one non-optional hash key condition in WHERE clause "
                                            "when using ORDER BY clause.");
        /* one partition: only the sort key's direction orders it */
        if (is_attr(k, keys->target.sk))
            out->backward = s->descending[i];
    }
    return l->rc;
}

/* SET a = v, REMOVE b, and set_add / set_delete as ADD / DELETE clauses. */
static const char *lower_update(lower *l, const pq_stmt *s)
{
    static const char *const clause[] = {"SET ", "REMOVE ", "ADD ", "DELETE "};
    size_t mark = l->len;
    for (int c = 0; c < 4; c++) {
        size_t k = 0;
        for (size_t i = 0; i < s->n_assigns && !l->rc; i++) {
            const pq_assign *x = &s->assigns[i];
            const pq_node *v = x->value;
            bool add = v && v->kind == PN_CALL && strcmp(v->op, "set_add") == 0;
            bool del = v && v->kind == PN_CALL && strcmp(v->op, "set_delete") == 0;
            if ((!v ? 1 : add ? 2 : del ? 3 : 0) != c)
                continue;
            put(l, k++ ? ", " : l->len > mark ? " " : "");
            if (k == 1)
                put(l, clause[c]);
            put_path(l, x->path);
            if (c == 0) {
                put(l, " = ");
                put_operand(l, v);
            } else if (c >= 2) {
                /* (developer guide, PartiQL update statements: SET_ADD and
                 * SET_DELETE take the updated set and a set value) */
                const char *fn = add ? "ADD" : "DELETE";
                if (v->n_args != 2)
                    fail(l, DDB_EVALIDATION, "SET_%s must have exactly two arguments", fn);
                else if (!same_path(v->args[0], x->path))
                    fail(l, DDB_EVALIDATION, "The first argument to SET_%s must equal the assignment value", fn);
                else if (v->args[1]->kind != PN_VALUE || (v->args[1]->value->type != DDB_TSS &&
                                                          v->args[1]->value->type != DDB_TNS &&
                                                          v->args[1]->value->type != DDB_TBS))
                    fail(l, DDB_EVALIDATION, "The second argument to SET_%s must be a value with type SET", fn);
                if (l->rc)
                    return NULL;
                put(l, " ");
                put_value(l, v->args[1]->value);
            }
        }
    }
    return take(l, mark);
}

/* UPDATE and DELETE: the full key, and the condition of the other conjuncts. */
static int lower_write(lower *l, const pq_stmt *s, const pq_keys *keys, pq_plan *out)
{
    conjuncts cs;
    cs.n = 0;
    bool used[sizeof cs.c / sizeof *cs.c] = {false};
    if (full_key(l, s, &keys->table, &cs, used, &out->key))
        return l->rc;
    bool update = s->kind == PQ_UPDATE;
    out->call = update ? PQC_UPDATE : PQC_DELETE;
    out->returning = s->returning;
    if (update)
        out->update = lower_update(l, s);
    const char *others = rest(l, &cs, used);
    const char *presence = key_presence(l, keys->table.pk, update);
    if (l->rc)
        return l->rc;
    size_t mark = l->len;
    if (update) {
        /* the item must exist (PartiQL update statements: a WHERE clause
         * that matches no item is a ConditionalCheckFailedException) */
        put(l, presence);
        if (others)
            put(l, " AND "), put(l, others);
    } else if (others) {
        /* PartiQL delete statements: no item with the key is a success,
         * an item the condition does not match a failed condition.  AND
         * binds closer than OR, and rest() parenthesizes an OR: no
         * parentheses here (doubled ones are an error of the expression) */
        put(l, presence), put(l, " OR "), put(l, others);
    }
    out->condition = l->len > mark ? take(l, mark) : NULL;
    return l->rc;
}

int pq_lower(const pq_stmt *s, const pq_keys *keys, bool single_item, ddb_arena *a, pq_plan *out, ddb_error *err)
{
    memset(out, 0, sizeof *out);
    lower l = {.a = a, .err = err, .names = ddb_item_new(a), .values = ddb_item_new(a)};
    if (!l.names || !l.values)
        return fail(&l, DDB_ENOMEM, "out of memory");
    out->table = s->table;
    out->index = s->index;
    switch (s->kind) {
    case PQ_SELECT:
        lower_select(&l, s, keys, single_item, out);
        break;
    case PQ_EXISTS:
        lower_select(&l, s, keys, true, out);
        break;
    case PQ_INSERT: {
        ddb_value *m = ddb_value_copy(a, s->item);
        out->call = PQC_PUT;
        out->key = m ? ddb_item_from_map(a, m) : NULL;
        if (!out->key)
            return fail(&l, DDB_ENOMEM, "out of memory");
        for (int j = 0; j < 2; j++) {
            const char *attr = j ? keys->table.sk : keys->table.pk;
            const ddb_value *v = attr ? ddb_item_get(out->key, attr) : NULL;
            if (attr && !v)
                return fail(&l, DDB_EVALIDATION, "Key attribute should be present in the item: Key %s", attr);
            if (v && key_value(&l, attr, j ? keys->table.sk_type : keys->table.pk_type, v))
                return l.rc;
        }
        out->condition = key_presence(&l, keys->table.pk, false);
        break;
    }
    case PQ_UPDATE:
    case PQ_DELETE:
        lower_write(&l, s, keys, out);
        break;
    }
    if (l.rc)
        return l.rc;
    out->names = ddb_item_count(l.names) ? l.names : NULL;
    out->values = ddb_item_count(l.values) ? l.values : NULL;
    return 0;
}
