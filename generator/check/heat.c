/* heat.c — hot partitions seen at build time: a warning for every partition
 * key template (of the table or a global index) that can take only few
 * values, so that all writes of a day, a state or a type go to one
 * partition, whatever the table's provisioned capacity.
 *
 * A template is "cold enough" as soon as one of its holes can take many
 * values (an id, a name, a full timestamp).  It is hot when every hole is
 * one of: a date part ({at|year}, |quarter, |month, |day), a date field
 * (a string field named like a date that holds at most YYYY-MM-DD), a short
 * code (char[N] with N <= 4: a country, a state), a C enum, an 8-bit
 * integer, or a DDB_DERIVED field whose own template is made of those; or
 * when it has no hole at all.  The warning names the holes, estimates the
 * ceiling (DynamoDB: one partition serves at most 1,000 WCU/s and 3,000
 * RCU/s) and points to DDB_WRITE_SHARDS; DDB_HEAT_OK on the key, or write
 * shards, silence it.  bool fields cannot appear in key templates (the
 * checks refuse them), so they need no case here.  A key of fields
 * (DDB_KEY_FIELDS) is judged like a template with one hole per
 * partition-key field: DynamoDB hashes them together, so it is hot only
 * when every one of them takes few values (their counts multiply).
 *
 * Works on validate.c's private copy of the model after every check
 * passed (templates carry their resolved "segments").  May call the
 * diagnostics and the JSON helpers only.
 */
#include "check.h"

#include <stdio.h>
#include <string.h>

#define PARTITION_WCU 1000
#define PARTITION_RCU 3000
#define SUGGESTED_SHARDS 8

/* How many values a hole can take, as far as heat is concerned. */
typedef enum hole_heat {
    COLD = 0,   /* many values: the key is fine */
    DATE_YEAR,  /* the order matters: finer periods are larger numbers */
    DATE_QUARTER,
    DATE_MONTH,
    DATE_DAY,
    FEW         /* a code, an enum, a small integer: `values` of them (0: unknown) */
} hole_heat;

static const char *period_name(hole_heat h)
{
    switch (h) {
    case DATE_YEAR:
        return "year";
    case DATE_QUARTER:
        return "quarter";
    case DATE_MONTH:
        return "month";
    default:
        return "day";
    }
}

/* "1,000" */
static void put_thousands(ddbgen_buf *b, long long n)
{
    char digits[32];
    int len = snprintf(digits, sizeof digits, "%lld", n);
    for (int i = 0; i < len; i++) {
        if (i && (len - i) % 3 == 0)
            ddbgen_buf_puts(b, ",");
        ddbgen_buf_add(b, digits + i, 1);
    }
}

static int name_says_date(const char *name)
{
    size_t n = strlen(name);
    return strstr(name, "date") || strstr(name, "day") ||
           (n > 3 && (!strcmp(name + n - 3, "_at") || !strcmp(name + n - 3, "_on")));
}

/* The field a segment's path ends at: entity fields, then nested structs. */
static const json_t *seg_field(const json_t *model, const json_t *fields, const json_t *seg)
{
    const json_t *f = NULL;
    size_t i;
    json_t *part;
    json_array_foreach(json_object_get(seg, "path"), i, part) {
        if (f) {
            const json_t *st = ddbgen_jfind(json_object_get(model, "structs"), "cname", ddbgen_jstr(f, "struct"));
            fields = json_object_get(st, "fields");
        }
        f = ddbgen_jfind(fields, "name", json_string_value(part));
        if (!f)
            return NULL;
    }
    return f;
}

static hole_heat template_heat(const json_t *model, const json_t *fields, const json_t *t, long long *values,
                               ddbgen_buf *why, int depth);

/* The heat of one hole; its description goes to why. */
static hole_heat hole_of(const json_t *model, const json_t *fields, const json_t *seg, long long *values,
                         ddbgen_buf *why, int depth)
{
    const char *part = ddbgen_jstr(seg, "part"), *path = ddbgen_jstr(seg, "field");
    *values = 0;
    if (part) {
        hole_heat h = !strcmp(part, "year")      ? DATE_YEAR
                      : !strcmp(part, "quarter") ? DATE_QUARTER
                      : !strcmp(part, "month")   ? DATE_MONTH
                                                 : DATE_DAY;
        ddbgen_buf_printf(why, "{%s|%s} is a date part", path, part);
        return h;
    }
    const json_t *f = seg_field(model, fields, seg);
    if (!f)
        return COLD;
    const char *type = ddbgen_jstr(f, "type"), *num = ddbgen_jstr(f, "num");
    long long max_len = ddbgen_jint(f, "max_len", -1);
    const json_t *derived = json_object_get(f, "derived");
    if (derived && depth == 0) {
        ddbgen_buf inner = {0};
        hole_heat h = template_heat(model, fields, derived, values, &inner, 1);
        if (h != COLD)
            ddbgen_buf_printf(why, "{%s} is derived from \"%s\" (%s)", path, ddbgen_jstr(derived, "template"),
                              ddbgen_buf_str(&inner));
        ddbgen_buf_free(&inner);
        return h;
    }
    if (!strcmp(type, "S") && max_len >= 0 && max_len <= 10 && max_len >= 4 &&
        name_says_date(ddbgen_jstr(f, "name"))) {
        hole_heat h = max_len >= 10 ? DATE_DAY : max_len >= 7 ? DATE_MONTH : DATE_YEAR;
        ddbgen_buf_printf(why, "{%s} is a date (%s)", path, ddbgen_jstr(f, "ctype"));
        return h;
    }
    if (!strcmp(type, "S") && max_len >= 0 && max_len <= 3) {
        ddbgen_buf_printf(why, "{%s} is a short code (%s)", path, ddbgen_jstr(f, "ctype"));
        return FEW;
    }
    if (!strcmp(type, "N") && json_object_get(f, "enum_values")) {
        *values = ddbgen_jint(f, "enum_values", 0);
        ddbgen_buf_printf(why, "{%s} is a C enum (%s) with %lld values", path, ddbgen_jstr(f, "ctype"), *values);
        return FEW;
    }
    if (!strcmp(type, "N") && num && (!strcmp(num, "i8") || !strcmp(num, "u8"))) {
        *values = 256;
        ddbgen_buf_printf(why, "{%s} is an 8-bit integer (%s)", path, ddbgen_jstr(f, "ctype"));
        return FEW;
    }
    return COLD;
}

/* COLD when some hole of t takes many values; else the finest date period
 * among its holes, or FEW with *values the product of the holes' value
 * counts (0 when one is unknown; 1 for a constant). */
static hole_heat template_heat(const json_t *model, const json_t *fields, const json_t *t, long long *values,
                               ddbgen_buf *why, int depth)
{
    hole_heat worst = FEW;
    long long product = 1;
    size_t i;
    json_t *seg;
    json_array_foreach(json_object_get(t, "segments"), i, seg) {
        if (json_object_get(seg, "lit"))
            continue;
        long long n = 0;
        if (why->len)
            ddbgen_buf_puts(why, ", ");
        hole_heat h = hole_of(model, fields, seg, &n, why, depth);
        if (h == COLD)
            return COLD;
        if (h != FEW && (worst == FEW || h > worst))
            worst = h;
        product = n && product && product <= 1000000 / n ? product * n : 0;
    }
    *values = product;
    return worst;
}

/* The partition key of a key of fields as a template of holes:
 * {"template": "DDB_PK(a, b)", "loc", "segments": [{"field": "a"}, ...]}. */
static json_t *fields_as_template(const json_t *k)
{
    ddbgen_buf text = {0};
    json_t *segs = json_array();
    size_t i;
    json_t *r;
    ddbgen_buf_puts(&text, "DDB_PK(");
    json_array_foreach(json_object_get(k, "pk_fields"), i, r) {
        ddbgen_buf_printf(&text, "%s%s", i ? ", " : "", ddbgen_jstr(r, "field"));
        json_array_append_new(segs, json_pack("{s:s, s:[s]}", "field", ddbgen_jstr(r, "field"), "path",
                                              ddbgen_jstr(r, "field")));
    }
    ddbgen_buf_puts(&text, ")");
    json_t *t = json_pack("{s:s, s:O, s:o}", "template", text.oom ? "DDB_PK(...)" : ddbgen_buf_str(&text), "loc",
                          json_object_get(k, "loc"), "segments", segs);
    ddbgen_buf_free(&text);
    return t;
}

static void warn_key(ddbgen_diags *d, const json_t *model, const json_t *e, const json_t *k)
{
    json_t *fields_pk = json_object_get(k, "pk_fields") ? fields_as_template(k) : NULL;
    const json_t *pk = fields_pk ? fields_pk : json_object_get(k, "pk");
    const char *iname = ddbgen_jstr(k, "index"), *tmpl = ddbgen_jstr(pk, "template");
    ddbgen_buf why = {0}, msg = {0};
    long long values = 1;
    hole_heat h = template_heat(model, json_object_get(e, "fields"), pk, &values, &why, 0);
    if (h == COLD) {
        ddbgen_buf_free(&why);
        json_decref(fields_pk);
        return;
    }
    const char *scope = strcmp(iname, "table") ? "index" : "table";
    ddbgen_buf_printf(&msg, "the partition key \"%s\" of '%s' on index '%s' can take only few values", tmpl,
                      ddbgen_jstr(e, "name"), iname);
    if (why.len)
        ddbgen_buf_printf(&msg, " (%s)", ddbgen_buf_str(&why));
    else
        ddbgen_buf_puts(&msg, " (it is a constant)");
    if (h != FEW) {
        const char *p = period_name(h);
        ddbgen_buf_printf(&msg, ": all writes of a %s go to one partition, at most ", p);
        put_thousands(&msg, PARTITION_WCU);
        ddbgen_buf_puts(&msg, " WCU/s and ");
        put_thousands(&msg, PARTITION_RCU);
        ddbgen_buf_printf(&msg, " RCU/s for that %s", p);
    } else if (values == 1) {
        ddbgen_buf_printf(&msg, ": every item goes to one partition, so the whole %s gets at most ", scope);
        put_thousands(&msg, PARTITION_WCU);
        ddbgen_buf_puts(&msg, " WCU/s and ");
        put_thousands(&msg, PARTITION_RCU);
        ddbgen_buf_puts(&msg, " RCU/s");
    } else if (values > 1) {
        ddbgen_buf_printf(&msg, ": at most %lld partitions, so the whole %s gets at most ", values, scope);
        put_thousands(&msg, values * PARTITION_WCU);
        ddbgen_buf_puts(&msg, " WCU/s, and all writes of one value go to one partition (");
        put_thousands(&msg, PARTITION_WCU);
        ddbgen_buf_puts(&msg, " WCU/s)");
    } else {
        ddbgen_buf_puts(&msg, ": all writes of one value go to one partition, at most ");
        put_thousands(&msg, PARTITION_WCU);
        ddbgen_buf_puts(&msg, " WCU/s and ");
        put_thousands(&msg, PARTITION_RCU);
        ddbgen_buf_puts(&msg, " RCU/s for it");
    }
    if (fields_pk) {
        ddbgen_buf_puts(&msg, "; DynamoDB hashes the partition-key fields together, so add one that takes many "
                              "values to DDB_PK");
    } else {
        ddbgen_buf_printf(&msg, "; spread them with DDB_WRITE_SHARDS(\"%s\", %d, \"%s\") (up to ", iname,
                          SUGGESTED_SHARDS, "hash");
        put_thousands(&msg, (long long)SUGGESTED_SHARDS * PARTITION_WCU);
        ddbgen_buf_puts(&msg, " WCU/s)");
    }
    ddbgen_buf_printf(&msg, ", or add DDB_HEAT_OK(\"%s\", \"<why the volume is small>\") if it is", iname);
    if (!msg.oom)
        ddbgen_diag_add(d, DDBGEN_WARNING, ddbgen_loc_of(pk, "loc"), "%s", ddbgen_buf_str(&msg));
    ddbgen_buf_free(&why);
    ddbgen_buf_free(&msg);
    json_decref(fields_pk);
}

void ddbgen__heat(const json_t *model, ddbgen_diags *d)
{
    size_t i, j;
    json_t *e, *k;
    json_array_foreach(json_object_get(model, "entities"), i, e) {
        const json_t *t = ddbgen_jfind(json_object_get(model, "tables"), "cname", ddbgen_jstr(e, "table"));
        json_array_foreach(json_object_get(e, "keys"), j, k) {
            const json_t *ix = ddbgen_jfind(json_object_get(t, "indexes"), "name", ddbgen_jstr(k, "index"));
            if (!ix || !strcmp(ddbgen_jstr(ix, "kind"), "lsi"))
                continue; /* an LSI's partition key is the table's: warned about there */
            if (json_object_get(k, "write_shards") || json_object_get(k, "heat_ok"))
                continue;
            warn_key(d, model, e, k);
        }
    }
}
