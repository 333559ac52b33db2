/* infra.h — the table definitions of a schema as infrastructure inputs
 * (infra.c): the AWS CLI's create-table / update-time-to-live JSON, a
 * CloudFormation template, Terraform HCL.  Reads the IR only. */
#ifndef DDBGEN_INFRA_H
#define DDBGEN_INFRA_H

#include "ir.h"

/* 1 when format is one of "cloudformation", "terraform", "create-table",
 * "update-time-to-live". */
int ddbgen__infra_format_known(const char *format);

/* The CreateTable request of t, as the API (and the AWS CLI's
 * --cli-input-json) takes it; NULL when out of memory. */
json_t *ddbgen__create_table_request(const ddbgen_ir_table *t);

/* The text of format for every table of ir (only: that one table).  NULL
 * with *why set when the format cannot express the choice ("names one
 * table ..."), NULL with *why NULL when out of memory. */
char *ddbgen__infra_text(const ddbgen_ir *ir, const char *format, const ddbgen_ir_table *only, const char **why);

#endif
