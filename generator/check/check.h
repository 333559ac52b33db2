/* check/: the schema rules (room header).  Every rule on the declared
 * model, all problems reported at once with their locations (validate.c);
 * whether two primary keys can ever render the same text (collision.c);
 * the key space of uniqueness items (unique_space.c); partition keys that
 * can take only few values (heat.c).  The room may call base/, ir/ (key
 * templates) and decl/ (the checks of declared writes), and jansson. */
#ifndef DDBGEN_CHECK_H
#define DDBGEN_CHECK_H

#include "internal.h"
#include "ir.h"

/* validate.c: checks the declared model (not modified) and records every
 * problem in d. */
int ddbgen__validate(const json_t *model, ddbgen_diags *d);

/* heat.c: warnings about partition keys that can take only few values
 * (model: the checked private copy of validate.c, templates resolved). */
void ddbgen__heat(const json_t *model, ddbgen_diags *d);

/* collision.c: 1 when primary keys ka and kb (resolved key objects) can
 * render the same PK and SK; sfx_a/sfx_b are appended to the sort keys
 * (a shard item's suffix, or ""). */
int ddbgen__keys_may_collide(const json_t *ka, const char *sfx_a, const json_t *kb, const char *sfx_b);

/* collision.c: 1 when primary key ka of entity a and kb of entity b (resolved
 * key objects) may collide on some pair of their items (shard items
 * included); *sfx_a / *sfx_b (malloc'ed) then say which. */
int ddbgen__find_collision(const json_t *a, const json_t *ka, const json_t *b, const json_t *kb, char **sfx_a,
                           char **sfx_b);

/* The uniqueness items of DDB_UNIQUE fields (key space "UNIQUE#<Entity>#<attr>#<value>" /
 * "UNIQUE") must not collide with any entity's key in the table or an
 * index that holds them, nor with each other (unique_space.c; tables and
 * entities: the validator's copies, keys resolved). */
void ddbgen__check_unique_space(ddbgen_diags *d, const json_t *tables, const json_t *entities);

#endif
