/* ddb — plain JSON by field names in and out of the model's structs
 * (model_value.c). */
#ifndef DDB_MODEL_VALUE_H
#define DDB_MODEL_VALUE_H

#include "model_desc.h"

/* The fields of obj (those in mask; every field with mask NULL) as a JSON
 * object by C field names; absent optional fields are left out. */
json_t *model_struct_out(const ddb_struct_desc *st, const void *obj, const ddb_ent_mask *mask);

/* The JSON object in written into obj (zeroed by the caller); strings and
 * arrays in arena a.  given (may be NULL) gets the fields it set.  0, or -1
 * with why naming the field and the rule. */
int model_struct_in(const ddb_struct_desc *st, const json_t *in, void *obj, ddb_arena *a, ddb_ent_mask *given,
                    char *why, size_t cap);

/* Field i of obj from command-line text: strings as they are, other types
 * as JSON ("21.5", "true", "[1,2]"). */
int model_field_text_in(const ddb_struct_desc *st, int i, const char *text, void *obj, ddb_arena *a, char *why,
                        size_t cap);

#endif
