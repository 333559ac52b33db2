/* render/: the IR as output (room header).  The generated module: the IR
 * as the data the templates read (render_context.c, render_reads.c,
 * decl_context.c, render_old.c, over c_text.c's C text), rendered through
 * the mustache templates of templates/ (mustache.c) into files
 * (generate.c, generate.h); the tables as infrastructure inputs (infra.c,
 * infra.h); the schema as a NoSQL Workbench model (workbench_export.c).
 * Reads the IR only: nothing is checked or looked up by name here.  The
 * room may call base/ and ir/, and jansson. */
#ifndef DDBGEN_RENDER_H
#define DDBGEN_RENDER_H

#include "generate.h"
#include "infra.h"
#include "ir.h"

#include <stdio.h>

/* workbench_export.c: the Workbench model (JSON text, malloc'ed) of every
 * table of ir; tables with local secondary indexes get a warning on warn
 * (may be NULL).  NULL when out of memory. */
char *ddbgen__workbench_text(const ddbgen_ir *ir, const char *model_name, FILE *warn);

#endif
