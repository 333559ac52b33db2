/* collision.c — can two primary keys ever render the same text?
 *
 * A key template is read as a pattern of literal bytes and holes.  A string
 * hole matches anything (even ""); an integer or date-number hole matches a
 * non-empty run of digits (and '-').  Two patterns may collide when some
 * text matches both: decided exactly for these classes by walking both
 * patterns over the same bytes (may_overlap), so "ISSUE#{n:06}" and
 * "ISSUE#{n:06}#C#{t}" are told apart (a number never holds '#') while
 * "{a}#{b}" and "{c}" are not; and the same question over every pair of
 * two entities' shard items.  Called by the validator's primary-key check
 * and unique_space.c; calls jansson and internal.h's JSON helpers.
 */
#include "check.h"

#include <stdlib.h>
#include <string.h>

/* A pattern for collision analysis: bytes, and holes of a character class. */
enum { H_ANY = 256, H_DIGITS = 257 };

static size_t pattern(const json_t *segs, const char *suffix, int *out, size_t cap)
{
    size_t n = 0;
    size_t i;
    json_t *s;
    json_array_foreach(segs, i, s) {
        const char *lit = ddbgen_jstr(s, "lit");
        if (lit) {
            for (; *lit && n < cap; lit++)
                out[n++] = (unsigned char)*lit;
        } else if (n < cap) {
            const char *part = ddbgen_jstr(s, "part");
            int digits = (!strcmp(ddbgen_jstr(s, "type"), "N") && !ddbgen_jstr(s, "case")) ||
                         (part && strcmp(part, "quarter") != 0);
            out[n++] = digits ? H_DIGITS : H_ANY;
        }
    }
    for (; suffix && *suffix && n < cap; suffix++)
        out[n++] = (unsigned char)*suffix;
    return n;
}

/* Does element x (a byte or a hole) let byte c through? */
static int admits(int x, int c)
{
    if (x == H_ANY)
        return 1;
    if (x == H_DIGITS)
        return (c >= '0' && c <= '9') || c == '-';
    return x == c;
}

/* A position in a pattern: before element k (in = 0), or inside hole k
 * after at least one byte of it (in = 1). */
#define POS(k, in) (2 * (k) + (in))

/* The positions reachable from position q without reading a byte: a hole
 * may end (an H_ANY one at once; an H_DIGITS one once it has a byte). */
static size_t closure(const int *p, size_t n, size_t q, size_t *out)
{
    size_t m = 0;
    out[m++] = q;
    for (size_t k = q / 2; k < n; k++) {
        int ends = p[k] == H_ANY || (p[k] == H_DIGITS && k == q / 2 && q % 2);
        if (!ends)
            break;
        out[m++] = POS(k + 1, 0);
    }
    return m;
}

/* The positions after reading byte c at position q (at most 2). */
static size_t step(const int *p, size_t n, size_t q, int c, size_t out[2])
{
    size_t k = q / 2, m = 0;
    if (k >= n || !admits(p[k], c))
        return 0;
    if (p[k] < 256)
        out[m++] = POS(k + 1, 0);
    else
        out[m++] = POS(k, 1); /* still inside the hole; it may end later */
    return m;
}

/* 0 when no values of the holes make the two patterns the same text; 1
 * when some may.  Exact for these classes: a search of the pairs of
 * positions the two patterns can be in after reading the same bytes,
 * where the bytes worth trying are the patterns' literals, a digit, '-'
 * and one byte neither uses. */
static int may_overlap(const int *a, size_t na, const int *b, size_t nb)
{
    int bytes[256 + 3];
    size_t nbytes = 0;
    char used[256] = {0};
    for (size_t i = 0; i < na; i++)
        if (a[i] < 256)
            used[a[i]] = 1;
    for (size_t i = 0; i < nb; i++)
        if (b[i] < 256)
            used[b[i]] = 1;
    used['0'] = used['-'] = 1;
    int other = -1;
    for (int c = 1; c < 256; c++) {
        if (used[c])
            bytes[nbytes++] = c;
        else if (other < 0)
            other = c;
    }
    if (other > 0)
        bytes[nbytes++] = other;
    size_t wa = 2 * (na + 1), wb = 2 * (nb + 1), cells = wa * wb;
    unsigned char *seen = calloc(cells, 1);
    size_t *queue = malloc(cells * sizeof *queue), *ca = malloc(2 * (na + 1) * sizeof *ca),
           *cb = malloc(2 * (nb + 1) * sizeof *cb);
    int found = 1; /* out of memory: say they may (conservative) */
    if (!seen || !queue || !ca || !cb)
        goto out;
    found = 0;
    size_t head = 0, tail = 0;
    queue[tail++] = 0;
    seen[0] = 1;
    while (head < tail && !found) {
        size_t qa = queue[head] / wb, qb = queue[head] % wb;
        head++;
        size_t ma = closure(a, na, qa, ca), mb = closure(b, nb, qb, cb);
        for (size_t i = 0; i < ma && !found; i++)
            for (size_t j = 0; j < mb && !found; j++) {
                if (ca[i] == POS(na, 0) && cb[j] == POS(nb, 0)) {
                    found = 1; /* both at their end together */
                    break;
                }
                for (size_t c = 0; c < nbytes; c++) {
                    size_t sa[2] = {0, 0}, sb[2] = {0, 0};
                    size_t ka = step(a, na, ca[i], bytes[c], sa), kb = step(b, nb, cb[j], bytes[c], sb);
                    for (size_t x = 0; x < ka; x++)
                        for (size_t y = 0; y < kb; y++) {
                            size_t cell = sa[x] * wb + sb[y];
                            if (!seen[cell]) {
                                seen[cell] = 1;
                                queue[tail++] = cell;
                            }
                        }
                }
            }
    }
out:
    free(seen);
    free(queue);
    free(ca);
    free(cb);
    return found;
}

#define PAT_MAX 2048

int ddbgen__keys_may_collide(const json_t *ka, const char *sfx_a, const json_t *kb, const char *sfx_b)
{
    int *pa = malloc(2 * PAT_MAX * sizeof *pa), *pb = pa + PAT_MAX;
    if (!pa)
        return 0;
    const char *which[2] = {"pk", "sk"};
    int collide = 1;
    for (int w = 0; w < 2 && collide; w++) {
        json_t *ta = json_object_get(ka, which[w]), *tb = json_object_get(kb, which[w]);
        if (!ta || !tb)
            continue;
        if (strcmp(ddbgen_jstr(ta, "type"), ddbgen_jstr(tb, "type")) != 0) {
            collide = 0;
            break;
        }
        size_t na = pattern(json_object_get(ta, "segments"), w ? sfx_a : NULL, pa, PAT_MAX);
        size_t nb = pattern(json_object_get(tb, "segments"), w ? sfx_b : NULL, pb, PAT_MAX);
        collide = may_overlap(pa, na, pb, nb);
    }
    free(pa);
    return collide;
}

/* The sort-key suffixes of an entity's physical items: one per shard, or
 * the single "" of an unsharded entity. */
static size_t suffix_count(const json_t *e)
{
    size_t n = json_array_size(json_object_get(e, "shards"));
    return n ? n : 1;
}

/* Suffix number i of e (i < suffix_count(e)), malloc'ed. */
static char *suffix_at(const json_t *e, size_t i)
{
    json_t *shard = json_array_get(json_object_get(e, "shards"), i);
    ddbgen_buf b = {0};
    if (shard)
        ddbgen_buf_printf(&b, "%s%s", ddbgen_jstr(e, "shard_suffix"), ddbgen_jstr(shard, "id"));
    char *s = strdup(ddbgen_buf_str(&b));
    ddbgen_buf_free(&b);
    return s;
}

/* Every pair of shard items of a and b (all of them, whatever the count):
 * 1 with the suffixes of the first pair whose primary keys may collide. */
int ddbgen__find_collision(const json_t *a, const json_t *ka, const json_t *b, const json_t *kb, char **sfx_a,
                           char **sfx_b)
{
    for (size_t x = 0; x < suffix_count(a); x++) {
        char *sa = suffix_at(a, x);
        for (size_t y = 0; sa && y < suffix_count(b); y++) {
            char *sb = suffix_at(b, y);
            if (sb && ddbgen__keys_may_collide(ka, sa, kb, sb)) {
                *sfx_a = sa;
                *sfx_b = sb;
                return 1;
            }
            free(sb);
        }
        free(sa);
    }
    return 0;
}
