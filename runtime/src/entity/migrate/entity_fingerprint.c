/* Entity room: schema fingerprints.  What an entity's stored items depend
 * on (its key templates per index, its type attribute, its shards, and the
 * DDB_UNIQUE fields whose values are claimed) as lines of text, stored with the table when a module opens it, and the
 * rule that says whether items written under one fingerprint can be read
 * under another.  Calls core/codec.h (buffers) only. */
#include "entity/migrate/entity_migrate.h"

#include <stdio.h>
#include <string.h>

/* A template as text, with field names: "ORG#{org}", "{created_at:020}". */
static int template_text(const ddb_entity_desc *e, const ddb_template *t, ddb_buf *b)
{
    static const char *const parts[] = {"", "|year", "|month", "|day", "|quarter"};
    static const char *const cases[] = {"", "|lower", "|upper"};
    int rc = DDB_OK;
    for (uint16_t i = 0; !rc && i < t->n; i++) {
        const ddb_tseg *s = &t->segs[i];
        if (s->lit) {
            for (const char *p = s->lit; *p && !rc; p++) {
                rc = ddbi_buf_put(b, p, 1);
                if (!rc && (*p == '{' || *p == '}')) /* braces are doubled in templates */
                    rc = ddbi_buf_put(b, p, 1);
            }
            continue;
        }
        rc = ddbi_buf_put(b, "{", 1);
        const ddb_struct_desc *st = e->st;
        for (uint8_t j = 0; !rc && j < s->path_len && st && s->path[j] < st->n_fields; j++) {
            const ddb_field_desc *f = &st->fields[s->path[j]];
            if (j)
                rc = ddbi_buf_put(b, ".", 1);
            if (!rc)
                rc = ddbi_buf_put(b, f->name, strlen(f->name));
            st = f->sub;
        }
        char fmt[32] = "";
        if (s->pad)
            snprintf(fmt, sizeof fmt, ":0%u", s->pad);
        if (!rc)
            rc = ddbi_buf_put(b, fmt, strlen(fmt));
        if (!rc && s->part < 5)
            rc = ddbi_buf_put(b, parts[s->part], strlen(parts[s->part]));
        if (!rc && s->kase < 3)
            rc = ddbi_buf_put(b, cases[s->kase], strlen(cases[s->kase]));
        if (!rc)
            rc = ddbi_buf_put(b, "}", 1);
    }
    for (uint16_t k = 0; !rc && e->write_shards && k < e->n_keys; k++) {
        const ddb_write_shards *w = e->write_shards[k];
        if (t != &e->keys[k].pk || !w || w->count < 2)
            continue;
        /* the write shards decide which partition holds an item */
        char ws[48];
        int n = snprintf(ws, sizeof ws, " shards=%u/%s", (unsigned)w->count, w->by == DDB_WS_RANDOM ? "random" : "hash");
        rc = ddbi_buf_put(b, ws, (size_t)n);
    }
    return rc;
}

int ddbi_ent_fingerprint(const ddb_entity_desc *e, ddb_buf *b)
{
    int rc = DDB_OK;
    for (uint16_t k = 0; !rc && k < e->n_keys; k++) {
        const ddb_key_desc *kd = &e->keys[k];
        const char *ix = kd->index ? kd->index : "table";
        if ((rc = ddbi_buf_put(b, ix, strlen(ix))) || (rc = ddbi_buf_put(b, ": ", 2)) ||
            (rc = ddbi_buf_put(b, kd->pk_attr, strlen(kd->pk_attr))) || (rc = ddbi_buf_put(b, "=", 1)) ||
            (rc = template_text(e, &kd->pk, b)))
            break;
        if (kd->sk_attr && ((rc = ddbi_buf_put(b, " ", 1)) || (rc = ddbi_buf_put(b, kd->sk_attr, strlen(kd->sk_attr))) ||
                            (rc = ddbi_buf_put(b, "=", 1)) || (rc = template_text(e, &kd->sk, b))))
            break;
        rc = ddbi_buf_put(b, "\n", 1);
    }
    char line[300];
    int n = snprintf(line, sizeof line, "type: %s=%s\n", e->table->type_attr, e->name);
    if (!rc)
        rc = ddbi_buf_put(b, line, (size_t)n);
    if (!rc && e->n_shards) {
        rc = ddbi_buf_put(b, "shards:", 7);
        for (uint16_t s = 0; !rc && s < e->n_shards; s++) {
            n = snprintf(line, sizeof line, " %s%s", ddbi_ent_shard_suffix(e), e->shards[s]);
            rc = ddbi_buf_put(b, line, (size_t)n);
        }
        if (!rc)
            rc = ddbi_buf_put(b, "\n", 1);
    }
    bool any = false; /* "unique: <attr> <attr>": only when there are some, so other fingerprints keep their text */
    for (uint16_t i = 0; !rc && i < e->st->n_fields; i++) {
        const ddb_field_desc *f = &e->st->fields[i];
        if (!(f->flags & DDB_FIELD_UNIQUE))
            continue;
        if ((rc = ddbi_buf_put(b, any ? " " : "unique: ", any ? 1 : 8)))
            break;
        rc = ddbi_buf_put(b, f->attr, strlen(f->attr));
        any = true;
    }
    if (!rc && any)
        rc = ddbi_buf_put(b, "\n", 1);
    if (!rc)
        rc = ddbi_buf_put(b, "", 1);
    return rc;
}

/* Is attr one of the words of unique line l (n bytes, "unique: a b")? */
static bool unique_has(const char *l, int n, const char *attr, size_t an)
{
    for (int i = 8; i < n;) {
        int j = i;
        while (j < n && l[j] != ' ')
            j++;
        if ((size_t)(j - i) == an && !memcmp(l + i, attr, an))
            return true;
        i = j + 1;
    }
    return false;
}

size_t ddbi_ent_fingerprint_new_unique(const char *old, const ddb_entity_desc *e, char *list, size_t cap)
{
    int on = 0;
    const char *ol = ddbi_ent_fingerprint_line(old, "unique", 6, &on);
    size_t count = 0, used = 0;
    if (cap)
        list[0] = '\0';
    for (uint16_t i = 0; i < e->st->n_fields; i++) {
        const ddb_field_desc *f = &e->st->fields[i];
        if (!(f->flags & DDB_FIELD_UNIQUE) || (ol && unique_has(ol, on, f->attr, strlen(f->attr))))
            continue;
        int w = snprintf(list + used, cap - used, "%s%s", count ? ", " : "", f->name);
        if (w > 0)
            used = used + (size_t)w < cap ? used + (size_t)w : cap - 1;
        count++;
    }
    return count;
}

const char *ddbi_ent_fingerprint_line(const char *fp, const char *label, size_t llen, int *len)
{
    for (const char *l = fp; *l;) {
        const char *e = strchr(l, '\n');
        size_t n = e ? (size_t)(e - l) : strlen(l);
        if (n > llen && l[llen] == ':' && memcmp(l, label, llen) == 0) {
            *len = (int)n;
            return l;
        }
        l += n + (e != NULL);
    }
    return NULL;
}

/* Every key the stored items were written with must be unchanged (an entity
 * may join new indexes or leave old ones); the type attribute and shards
 * must match.  The unique line is not compared here. */
bool ddbi_ent_fingerprint_compatible(const char *old, const char *now, const char **ol, int *on, const char **nl,
                                     int *nn)
{
    for (int pass = 0; pass < 2; pass++) {
        const char *from = pass ? now : old, *other = pass ? old : now;
        for (const char *l = from; *l;) {
            const char *e = strchr(l, '\n'), *c = strchr(l, ':');
            size_t n = e ? (size_t)(e - l) : strlen(l);
            size_t llen = c && c < l + n ? (size_t)(c - l) : n;
            bool strict = (llen == 4 && !memcmp(l, "type", 4)) || (llen == 6 && !memcmp(l, "shards", 6)) ||
                          (llen == 5 && !memcmp(l, "table", 5));
            if (llen == 6 && !memcmp(l, "unique", 6)) { /* ddbi_ent_fingerprint_new_unique's */
                l += n + (e != NULL);
                continue;
            }
            int m = 0;
            const char *match = ddbi_ent_fingerprint_line(other, l, llen, &m);
            if ((match && (m != (int)n || memcmp(match, l, n))) || (!match && strict)) {
                *ol = pass ? (match ? match : "") : l;
                *on = pass ? (match ? m : 0) : (int)n;
                *nl = pass ? l : (match ? match : "");
                *nn = pass ? (int)n : (match ? m : 0);
                return false;
            }
            l += n + (e != NULL);
        }
    }
    return true;
}
