/* render_context.h — the IR as the data the templates read (mustache
 * context): C literals, identifiers, sizeof/offsetof expressions, template
 * segments and their index paths.  Built from the IR only (ir.h); the shape
 * of the output lives in templates/. */
#ifndef DDBGEN_RENDER_CONTEXT_H
#define DDBGEN_RENDER_CONTEXT_H

#include "ir.h"

#include <jansson.h>

/* The context for ir's module <base>_ddb.{h,c}; NULL when out of memory. */
json_t *ddbgen__render_context(const ddbgen_ir *ir, const char *base);

/* render_old.c: the context of <base>_old.{h,c}: old_ir (the deployed
 * model's old forms, old_forms.c) as any module's descriptors, with the
 * old structs' member declarations, and the migration steps of plan (may
 * be NULL) towards new_ir.  deployed: the model file, for comments. */
json_t *ddbgen__render_old_context(const ddbgen_ir *old_ir, const ddbgen_ir *new_ir, const json_t *plan,
                                   const char *base, const char *deployed);

/* Shared with render_reads.c (C text from IR facts). */
json_t *ddbgen__rc_fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
/* s as a C identifier ('_' for other characters), upper-cased when upper. */
json_t *ddbgen__rc_ident(const char *s, int upper);
/* Parameters addressing an item: [{path, pname, ctype, chars, cname_lit, last}]. */
json_t *ddbgen__rc_params(const ddbgen_ir_param *params, size_t n);
/* "\"ORG#{org}\" / \"USER#{username}\"": a key's templates for comments. */
json_t *ddbgen__rc_key_comment(const ddbgen_ir_key *k);

/* render_reads.c: the typed reads of entity e into its context o: field
 * masks, access patterns, declared queries and scans. */
void ddbgen__reads_ctx(json_t *o, const ddbgen_ir_entity *e, const char *base);
/* The word a date part adds to a level's constructor name ("year"; "" for none):
 * <entity>_<pattern>_<field>_<word>. */
const char *ddbgen__part_word(ddbgen_tmpl_part p);
/* Which of the module's static helpers the reads use (uses_sk_level ...). */
void ddbgen__reads_module_ctx(json_t *ctx, const ddbgen_ir *ir);
/* s as a C string literal ("NULL" for NULL), and as one that can stand in
 * a comment: for the render contexts of other files (decl_context.c). */
json_t *ddbgen__c_literal(const char *s);
json_t *ddbgen__comment_literal(const char *s);

#endif
