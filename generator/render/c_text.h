/* c_text.h — C text from IR facts, shared by the render contexts (c_text.c). */
#ifndef DDBGEN_C_TEXT_H
#define DDBGEN_C_TEXT_H

#include "ir.h"

#include <jansson.h>

/* printf into a JSON string. */
json_t *ddbgen__rc_fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
/* s as a C identifier ('_' for other characters), upper-cased when upper. */
json_t *ddbgen__rc_ident(const char *s, int upper);
/* Parameters addressing an item: [{path, pname, ctype, chars, cname_lit, last}]. */
json_t *ddbgen__rc_params(const ddbgen_ir_param *params, size_t n);
/* "\"ORG#{org}\" / \"USER#{username}\"": a key's templates for comments. */
json_t *ddbgen__rc_key_comment(const ddbgen_ir_key *k);

/* s as a C string literal ("NULL" for NULL), and as one that can stand in
 * a comment (a backslash between a star and a slash that meet). */
json_t *ddbgen__c_literal(const char *s);
json_t *ddbgen__comment_literal(const char *s);

#endif
