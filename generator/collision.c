/* collision.c — can two primary keys ever render the same text?
 *
 * A key template is read as a pattern of literal bytes and holes.  A string
 * hole matches anything (even ""); an integer or date-number hole matches a
 * non-empty run of digits (and '-').  Two patterns are told apart when,
 * reading from the left up to the first hole, or from the right down to
 * the last one, a literal byte differs or cannot be the first/last byte of
 * the hole facing it.  Otherwise they may collide.  This is conservative
 * (it never calls colliding keys distinct) and catches the real mistake:
 * two entities whose keys have the same structure and no distinguishing
 * literal.
 */
#include "internal.h"

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

static int can_start(int hole, int c)
{
    return hole == H_ANY || (c >= '0' && c <= '9') || c == '-';
}

/* 0 when no values make the two patterns equal (a literal tells them apart
 * before any hole from the left or from the right); 1 when they may. */
static int may_overlap(const int *a, size_t na, const int *b, size_t nb)
{
    size_t i = 0;
    for (; i < na && i < nb; i++) {
        int x = a[i], y = b[i];
        if (x < 256 && y < 256) {
            if (x != y)
                return 0;
            continue;
        }
        if (x >= 256 && y < 256 && !can_start(x, y))
            return 0;
        if (y >= 256 && x < 256 && !can_start(y, x))
            return 0;
        break;
    }
    if (i == na && i == nb)
        return 1; /* identical literals */
    if (i == na || i == nb) {
        /* one ran out of literals: it ends where the other still has text */
        const int *rest = i == na ? b + i : a + i;
        size_t left = i == na ? nb - i : na - i;
        for (size_t k = 0; k < left; k++)
            if (rest[k] < 256)
                return 0;
        /* ...only holes remain; can they be empty?  An S field can be "" */
        for (size_t k = 0; k < left; k++)
            if (rest[k] != H_ANY)
                return 0;
        return 1;
    }
    size_t ia = na, ib = nb;
    while (ia > i && ib > i) {
        int x = a[ia - 1], y = b[ib - 1];
        if (x < 256 && y < 256) {
            if (x != y)
                return 0;
            ia--, ib--;
            continue;
        }
        if (x == H_DIGITS && y < 256 && !(y >= '0' && y <= '9'))
            return 0;
        if (y == H_DIGITS && x < 256 && !(x >= '0' && x <= '9'))
            return 0;
        break;
    }
    return 1;
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

