/* generated_names.h — the names a generated module gives every entity
 * (<entity>_<suffix>) and table (<table>_<suffix>), in one list for the
 * checks that keep schema-chosen names from clashing with them: declared
 * writes (decl_update.c), access patterns, queries and scans (reads.c), and
 * the whole module's name space (ddbgen__check_generated_names).  The list
 * follows templates/; tests/generator/bad/generated_names*.h has a case per
 * family. */
#ifndef DDBGEN_GENERATED_NAMES_H
#define DDBGEN_GENERATED_NAMES_H

#include "diag.h"
#include "ir.h"

#include <jansson.h>

/* When <entity>_<name> is, or may become, a function every entity has
 * ("patch", "update_if_<condition>", "tx_<operation>"): that generated
 * suffix as the message shows it; else NULL.  For names a schema chooses:
 * the families (put_if_, tx_, ...) are refused whole, so declaring a
 * condition or an update later cannot make a clash. */
const char *ddbgen_entity_name_taken(const char *name);

/* Every name the module generates, entity against entity, entity against
 * table, a declared write against a read, and against the module's own
 * descriptors (<base>_<entity>_fields, _keys, _k<n>_pk ...): two things that
 * would generate one C identifier (or an entity whose struct would have a
 * generated type's name) are an error located at the later one, with a
 * note at the other.  declared: the model reads.c lowered ir from (for the
 * locations); base: the module's base name (<base>_ddb.h; NULL: not known,
 * its descriptors unchecked). */
void ddbgen__check_generated_names(const ddbgen_ir *ir, const json_t *declared, const char *base, ddbgen_diags *d);

/* s with every character that cannot be in a C identifier replaced by '_'
 * ("GSI-1.x" -> "GSI_1_x"); upper-cased when upper.  malloc'ed; NULL when
 * out of memory. */
char *ddbgen_c_ident(const char *s, int upper);
/* The word a date part adds to a level's constructor name ("year"; "" for none):
 * <entity>_<pattern>_<field>_<word>. */
const char *ddbgen__part_word(ddbgen_tmpl_part p);

#endif
