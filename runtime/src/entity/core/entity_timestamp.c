/* Entity room: the time stamps of ddbgen's DDB_CREATED_AT and
 * DDB_UPDATED_AT fields (ddb_ent_stamp): the handle's clock
 * (ddb_clock_ms, which tests set through ddb_options.clock_ms) written as
 * epoch milliseconds into an integer field, or as ISO-8601 UTC with
 * milliseconds ("2026-11-26T15:04:05.123Z") into a char[N] field.  Calls
 * the public clock and this room's field helpers only. */
#include "entity/core/entity_core.h"

#include <stdio.h>
#include <string.h>

/* Days since 1970-01-01 -> civil date (proleptic Gregorian). */
static void civil(int64_t days, int64_t *y, unsigned *m, unsigned *d)
{
    days += 719468;
    int64_t era = (days >= 0 ? days : days - 146096) / 146097;
    unsigned doe = (unsigned)(days - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

int ddbi_ent_iso8601(int64_t ms, char out[25])
{
    int64_t secs = ms >= 0 ? ms / 1000 : (ms - 999) / 1000, days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400;
    int64_t y;
    unsigned mo, d, sod = (unsigned)(secs - days * 86400), milli = (unsigned)(ms - secs * 1000);
    civil(days, &y, &mo, &d);
    if (y < 0 || y > 9999)
        return DDB_EINVAL;
    char buf[64];
    int n = snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02u:%02u:%02u.%03uZ", (long long)y, mo, d, sod / 3600,
                     sod / 60 % 60, sod % 60, milli);
    if (n != 24)
        return DDB_EINVAL;
    memcpy(out, buf, 25);
    return DDB_OK;
}

void ddb_ent_stamp(ddb *db, const ddb_entity_desc *e, void *obj, uint16_t field)
{
    if (!db || !e || !obj || field >= e->st->n_fields)
        return;
    const ddb_field_desc *f = &e->st->fields[field];
    int64_t ms = ddb_clock_ms(db);
    char *p = (char *)obj + f->offset;
    char iso[25];
    if (f->type == DDB_F_INT || f->type == DDB_F_UINT)
        ddbi_ent_int_set(f, p, ms);
    else if (f->type == DDB_F_CHARS && f->size >= 25 && ddbi_ent_iso8601(ms, iso) == DDB_OK)
        memcpy(p, iso, sizeof iso); /* ddbgen allows only these two forms */
}
