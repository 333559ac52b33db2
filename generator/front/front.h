/* front/: the front-ends (room header).  A decorated schema header read
 * with libclang (frontend_clang.c) or a model JSON file (frontend_json.c)
 * becomes the declared model (JSON, docs/MODEL.md) in the context; a NoSQL
 * Workbench model becomes a draft schema header (workbench_import.c).
 * Every problem is a located diagnostic.  The room may call base/ only
 * (diag.h, internal.h's JSON, path and string helpers), libclang and
 * jansson. */
#ifndef DDBGEN_FRONT_H
#define DDBGEN_FRONT_H

#include "internal.h"

/* Front-ends: fill cx->model with the declared model, or record diagnostics. */
int ddbgen__parse_clang(ddbgen_context *cx, const char *path);
int ddbgen__load_json(ddbgen_context *cx, json_t *doc, const char *name, json_t **out);

/* The draft schema header (malloc'ed) of a Workbench model document:
 * tables, GSIs, one entity per facet with its fields and key templates
 * (from the facet's key aliases when they are templates, else inferred
 * from its sample items), a TODO comment wherever the model does not say.
 * NULL with problems described in *why (one per line) when the document is
 * not a Workbench model; source names it in the header's comment. */
char *ddbgen__workbench_draft(const json_t *model, const char *source, ddbgen_buf *why);

#endif
