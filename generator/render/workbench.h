/* workbench.h — NoSQL Workbench data models both ways: a schema's IR as a
 * model (workbench_export.c) and a model as a draft schema header
 * (workbench_import.c). */
#ifndef DDBGEN_WORKBENCH_H
#define DDBGEN_WORKBENCH_H

#include "internal.h"
#include "ir.h"

#include <stdio.h>

/* The Workbench model (JSON text, malloc'ed) of every table of ir; tables
 * with local secondary indexes get a warning on warn (may be NULL).  NULL
 * when out of memory. */
char *ddbgen__workbench_text(const ddbgen_ir *ir, const char *model_name, FILE *warn);

/* The draft schema header (malloc'ed) of a Workbench model document:
 * tables, GSIs, one entity per facet with its fields and key templates
 * (from the facet's key aliases when they are templates, else inferred
 * from its sample items), a TODO comment wherever the model does not say.
 * NULL with problems described in *why (one per line) when the document is
 * not a Workbench model; source names it in the header's comment. */
char *ddbgen__workbench_draft(const json_t *model, const char *source, ddbgen_buf *why);

#endif
