/* Entity room: an entity descriptor's read plan, what every typed read of
 * it needs before its first item: the fields in stored attribute-name
 * order, the attribute names its records hold (fields, the type attribute,
 * the key attributes) sorted with their lengths and fields, the length of
 * its type name, its required fields as a mask.  Built once per descriptor
 * and kept in a small process-wide table (descriptors are static data that
 * live as long as the program; an entry is used only while the descriptor
 * at its address still has the parts it copied: the same pointers, field
 * names, offsets, sizes, types and flags, key attribute names; else one is
 * built for the call in its arena).  Calls libc and this room's field accessors. */
#include "entity/reads/entity_reads.h"

#include "core/error.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The most names a plan holds: the fields, the type attribute and two key
 * attributes per key. */
static size_t names_max(const ddb_entity_desc *e)
{
    return (size_t)e->st->n_fields + 1 + 2 * (size_t)e->n_keys;
}

static size_t plan_size(const ddb_entity_desc *e)
{
    size_t n = e->st->n_fields;
    return sizeof(ddbi_ent_plan) + names_max(e) * sizeof(ddbi_ent_plan_at) + n * sizeof(struct ddbi_ent_plan_field) +
           2 * (size_t)e->n_keys * sizeof(const char *) + n * sizeof(uint16_t);
}

/* Insert name (field fx) into the sorted names of p unless it is there:
 * the first holder of a name keeps it (the type attribute, then fields). */
static void add_name(ddbi_ent_plan *p, const char *name, int32_t fx)
{
    if (!name)
        return;
    uint32_t len = (uint32_t)strlen(name), i = p->n_at;
    while (i > 0) {
        int c = ddbi_ent_name_cmp(p->at[i - 1].name, p->at[i - 1].len, name, len);
        if (!c)
            return;
        if (c < 0)
            break;
        i--;
    }
    memmove(&p->at[i + 1], &p->at[i], (p->n_at - i) * sizeof *p->at);
    const ddb_field_desc *f = fx >= 0 ? &p->fields[fx] : NULL;
    char head[8] = {0};
    memcpy(head, name, len < 8 ? len : 8);
    p->at[i] = (ddbi_ent_plan_at){name, len, fx, 0, f, f ? f->offset : 0, f ? f->size : 0, f ? (uint8_t)f->type : 0};
    memcpy(&p->at[i].head, head, 8);
    p->n_at++;
}

/* Build e's plan into mem (plan_size(e) bytes, suitably aligned). */
static ddbi_ent_plan *build(const ddb_entity_desc *e, void *mem)
{
    const ddb_struct_desc *st = e->st;
    uint16_t n = st->n_fields;
    ddbi_ent_plan *p = mem;
    memset(p, 0, sizeof *p);
    p->e = e;
    p->st = st;
    p->fields = st->fields;
    p->n_fields = n;
    p->table = e->table;
    p->type_attr = e->table->type_attr;
    p->name = e->name;
    p->name_len = (uint32_t)strlen(e->name);
    p->keys = e->keys;
    p->n_keys = e->n_keys;
    p->at = (ddbi_ent_plan_at *)(p + 1);
    p->seen = (struct ddbi_ent_plan_field *)(p->at + names_max(e));
    p->key_attrs = (const char **)(p->seen + n);
    p->order = (uint16_t *)(p->key_attrs + 2 * (size_t)e->n_keys);
    for (uint16_t k = 0; k < e->n_keys; k++) {
        p->key_attrs[2 * k] = e->keys[k].pk_attr;
        p->key_attrs[2 * k + 1] = e->keys[k].sk_attr;
    }
    for (uint16_t i = 0; i < n; i++) { /* insertion sort: a few fields */
        const ddb_field_desc *f = &st->fields[i];
        p->seen[i] = (struct ddbi_ent_plan_field){f->attr, f->offset, f->size, f->flags, f->type};
        if (ddbi_ent_field_required(f))
            ddb_ent_mask_set(&p->required, i);
        uint16_t j = i;
        while (j > 0 && strcmp(st->fields[p->order[j - 1]].attr, f->attr) > 0) {
            p->order[j] = p->order[j - 1];
            j--;
        }
        p->order[j] = i;
    }
    add_name(p, p->type_attr, DDBI_PLAN_TYPE);
    for (uint16_t i = 0; i < n; i++)
        add_name(p, st->fields[i].attr, i);
    for (uint16_t k = 0; k < e->n_keys; k++) {
        add_name(p, e->keys[k].pk_attr, DDBI_PLAN_NONE);
        add_name(p, e->keys[k].sk_attr, DDBI_PLAN_NONE);
    }
    return p;
}

/* Was p built from e as it is now (the same parts at the same places)? */
static bool fits(const ddbi_ent_plan *p, const ddb_entity_desc *e)
{
    const ddb_struct_desc *st = e->st;
    if (p->e != e || p->st != st || p->fields != st->fields || p->n_fields != st->n_fields || p->table != e->table ||
        p->type_attr != e->table->type_attr || p->name != e->name || p->keys != e->keys || p->n_keys != e->n_keys)
        return false;
    for (uint16_t i = 0; i < p->n_fields; i++) {
        const ddb_field_desc *f = &st->fields[i];
        const struct ddbi_ent_plan_field *c = &p->seen[i];
        if (c->attr != f->attr || c->offset != f->offset || c->size != f->size || c->flags != f->flags ||
            c->type != f->type)
            return false;
    }
    for (uint16_t k = 0; k < p->n_keys; k++)
        if (p->key_attrs[2 * k] != e->keys[k].pk_attr || p->key_attrs[2 * k + 1] != e->keys[k].sk_attr)
            return false;
    return true;
}

/* The process-wide plans: slots filled once (compare-and-swap), never
 * emptied; a descriptor whose slots are taken gets a plan per call. */
#define PLAN_SLOTS 64
#define PLAN_PROBES 4
static _Atomic(ddbi_ent_plan *) plans[PLAN_SLOTS];

int ddbi_ent_plan_of(const ddb_entity_desc *e, ddb_arena *a, const ddbi_ent_plan **out, ddb_error *err)
{
    uintptr_t h = (uintptr_t)e;
    h ^= h >> 17;
    h *= 0x9E3779B97F4A7C15ull;
    size_t at = (size_t)(h >> 40) % PLAN_SLOTS;
    for (size_t i = 0; i < PLAN_PROBES; i++) {
        _Atomic(ddbi_ent_plan *) *slot = &plans[(at + i) % PLAN_SLOTS];
        ddbi_ent_plan *p = atomic_load_explicit(slot, memory_order_acquire);
        if (p && fits(p, e)) {
            *out = p;
            return DDB_OK;
        }
        if (p)
            continue;
        ddbi_ent_plan *mine = malloc(plan_size(e));
        if (!mine)
            break; /* the arena's plan below */
        build(e, mine);
        ddbi_ent_plan *none = NULL;
        if (atomic_compare_exchange_strong_explicit(slot, &none, mine, memory_order_acq_rel, memory_order_acquire)) {
            *out = mine;
            return DDB_OK;
        }
        free(mine); /* another thread filled the slot first */
        if (fits(none, e)) {
            *out = none;
            return DDB_OK;
        }
    }
    void *mem = ddb_arena_alloc(a, plan_size(e));
    if (!mem)
        return ddbi_fail_oom(err, __func__);
    *out = build(e, mem);
    return DDB_OK;
}

int ddbi_ent_plan_check_required(const ddbi_ent_plan *p, const ddb_ent_mask *mask, ddb_error *err)
{
    for (int w = 0; w < DDB_ENT_MASK_WORDS; w++)
        if (p->required.w[w] & ~mask->w[w])
            return ddbi_ent_check_required(p->e, mask, err); /* words the first one missing */
    return DDB_OK;
}
