/* Capacity units as DynamoDB counts them. */
#include "engine/engine.h"

#include <string.h>

double ddbi_write_units(size_t bytes)
{
    size_t u = (bytes + 1023) / 1024;
    return (double)(u ? u : 1);
}

double ddbi_read_units(size_t bytes, bool consistent)
{
    size_t u = (bytes + 4095) / 4096;
    double r = (double)(u ? u : 1);
    return consistent ? r : r / 2;
}

void ddbi_cap_add(ddb_capacity *c, const char *index, bool local, double read, double write, ddb_return_capacity mode)
{
    if (!c || mode == DDB_CAPACITY_NONE)
        return;
    c->total += read + write;
    c->read += read;
    c->write += write;
    if (!index) {
        c->table_read += read;
        c->table_write += write;
        return;
    }
    if (mode != DDB_CAPACITY_INDEXES)
        return;
    size_t i = 0;
    while (i < c->n_indexes && strcmp(c->indexes[i].name, index) != 0)
        i++;
    if (i == c->n_indexes) {
        if (i == sizeof c->indexes / sizeof *c->indexes)
            return;
        c->n_indexes++;
        memset(&c->indexes[i], 0, sizeof c->indexes[i]);
        strncpy(c->indexes[i].name, index, sizeof c->indexes[i].name - 1);
        c->indexes[i].local = local;
    }
    c->indexes[i].read += read;
    c->indexes[i].write += write;
}
