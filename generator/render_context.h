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

/* s as a C string literal ("NULL" for NULL), and as one that can stand in
 * a comment: for the render contexts of other files (decl_context.c). */
json_t *ddbgen__c_literal(const char *s);
json_t *ddbgen__comment_literal(const char *s);

#endif
