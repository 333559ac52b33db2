/* Region allocator: bump allocation in chained blocks. */
#include <ddb/ddb.h>

#include <stdlib.h>
#include <string.h>

#define ARENA_BLOCK 8192
#define ARENA_ALIGN 16
#define ARENA_KEEP_MAX (1u << 20) /* reset keeps one block of at most this size */

typedef struct block {
    struct block *next;
    size_t size, used;
    _Alignas(ARENA_ALIGN) unsigned char data[];
} block;

struct ddb_arena {
    block *head; /* current block; older ones follow */
    size_t total;
};

static block *block_new(size_t size)
{
    block *b = malloc(sizeof(block) + size);
    if (!b)
        return NULL;
    b->next = NULL;
    b->size = size;
    b->used = 0;
    return b;
}

ddb_arena *ddb_arena_new(void)
{
    ddb_arena *a = malloc(sizeof *a);
    if (!a)
        return NULL;
    a->head = block_new(ARENA_BLOCK);
    if (!a->head) {
        free(a);
        return NULL;
    }
    a->total = 0;
    return a;
}

void ddb_arena_free(ddb_arena *a)
{
    if (!a)
        return;
    for (block *b = a->head, *n; b; b = n) {
        n = b->next;
        free(b);
    }
    free(a);
}

void ddb_arena_reset(ddb_arena *a)
{
    if (!a)
        return;
    /* Keep the largest block up to ARENA_KEEP_MAX (the first, 8 KB, qualifies):
     * an arena reset between calls of the same size then allocates nothing,
     * where keeping only the first 8 KB block would malloc and free the
     * rest on every call. */
    block *keep = NULL;
    for (block *b = a->head; b; b = b->next)
        if (b->size <= ARENA_KEEP_MAX && (!keep || b->size > keep->size))
            keep = b;
    for (block *b = a->head, *n; b; b = n) {
        n = b->next;
        if (b != keep)
            free(b);
    }
    keep->next = NULL;
    keep->used = 0;
    a->head = keep;
    a->total = 0;
}

void *ddb_arena_alloc(ddb_arena *a, size_t size)
{
    if (!a)
        return NULL;
    size_t need = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    if (need < size)
        return NULL;
    block *b = a->head;
    if (b->size - b->used < need) {
        size_t bs = need > ARENA_BLOCK / 2 ? need : (b->size < (1u << 20) ? b->size * 2 : b->size);
        if (bs < ARENA_BLOCK)
            bs = ARENA_BLOCK;
        block *nb = block_new(bs);
        if (!nb)
            return NULL;
        if (need > ARENA_BLOCK / 2 && b->size - b->used > 256) {
            /* a big one-off allocation: keep filling the current block */
            nb->next = b->next;
            b->next = nb;
            nb->used = need;
            a->total += need;
            return nb->data;
        }
        nb->next = b;
        a->head = b = nb;
    }
    void *p = b->data + b->used;
    b->used += need;
    a->total += need;
    return p;
}

size_t ddb_arena_used(const ddb_arena *a)
{
    return a ? a->total : 0;
}

char *ddb_arena_strdup(ddb_arena *a, const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *c = ddb_arena_alloc(a, n);
    if (c)
        memcpy(c, s, n);
    return c;
}
