/* One version's side of the fleet-telemetry scenario (run_fleet.sh drives
 * it); compiled against fleet_v1.h .. fleet_v4.h's modules (FLEET_V 1..4).
 * Usage: fleet_vN COMMAND URI N [TEXT]:
 *   populate (v1) about N items: N/100 devices (two shard items each),
 *            N/200 drivers (drivers 0 and 1 share a badge: the duplicate
 *            version 4's claim meets), and readings for the rest
 *   verify   fleet_open accepts the table, and every item is there exactly
 *            once in this version's form: a raw scan counts each type's
 *            items, finds a device's firmware on its spec shard item alone
 *            and its max_speed on its live one (version 2 on), and each reading's sort key form ("READ#" before
 *            version 3, "R#<day>#" after), the typed scans read every
 *            device and reading once with their values (version 2 on: the
 *            defaults "1.0", 130 and "C"), the new indexes hold every device and
 *            reading (version 2 on), and every badge is claimed (version
 *            4: as many uniqueness items as drivers, and a new driver with
 *            a stored badge is refused)
 *   backfill (v2) fleet_open_with(.backfill = true): the first change without a
 *            migration (the defaults and index keys written by open)
 *   refused  fleet_open is DDB_EMODEL with TEXT in its message
 * Exit 0 when the step behaved as expected.  Calls the generated module and
 * the public API. */
#if FLEET_V == 1
#include "fleet_v1_ddb.h"
#elif FLEET_V == 2
#include "fleet_v2_ddb.h"
#elif FLEET_V == 3
#include "fleet_v3_ddb.h"
#else
#include "fleet_v4_ddb.h"
#endif
#include "test_open.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sizes {
    long devices, drivers, readings; /* readings per device */
} sizes;

static sizes sizes_of(long n)
{
    sizes s = {n / 100 > 2 ? n / 100 : 2, n / 200 > 2 ? n / 200 : 2, 0};
    s.readings = (n - 2 * s.devices - s.drivers) / s.devices;
    if (s.readings < 1)
        s.readings = 1;
    return s;
}

static int fail(const char *what, int rc, const ddb_error *err)
{
    fprintf(stderr, "fleet v%d: %s: %s (%s)\n", FLEET_V, what, ddb_strerror(rc), err->message);
    return 1;
}

static void day_of(long seq, char day[11])
{
    int d = (int)(1 + seq % 28);
    memcpy(day, "2026-11-", 8);
    day[8] = (char)('0' + d / 10);
    day[9] = (char)('0' + d % 10);
    day[10] = '\0';
}

#if FLEET_V == 1
static int populate(ddb *db, const sizes *s)
{
    ddb_error err = {0};
    int rc = fleet_open(db, &err);
    for (long i = 0; i < s->devices && !rc; i++) {
        struct device d;
        memset(&d, 0, sizeof d);
        snprintf(d.id, sizeof d.id, "d%05d", (int)(i % 100000));
        snprintf(d.model, sizeof d.model, "model-%ld", i % 7);
        d.odometer = i * 10;
        d.speed = (int32_t)(i % 120);
        rc = device_create(db, &d, NULL, NULL, &err);
        struct reading batch[25]; /* a BatchWriteItem's most */
        size_t nb = 0;
        for (long j = 0; j < s->readings && !rc; j++) {
            struct reading *r = &batch[nb++];
            memset(r, 0, sizeof *r);
            snprintf(r->device, sizeof r->device, "d%05d", (int)(i % 100000));
            r->seq = (int32_t)j;
            day_of(j, r->day);
            r->value = (int32_t)(i + j);
            if (nb == 25 || j + 1 == s->readings) {
                rc = reading_batch_put(db, batch, nb, NULL, NULL, &err);
                nb = 0;
            }
        }
    }
    for (long k = 0; k < s->drivers && !rc; k++) {
        struct driver v;
        memset(&v, 0, sizeof v);
        snprintf(v.id, sizeof v.id, "r%05d", (int)(k % 100000));
        snprintf(v.badge, sizeof v.badge, "B%05d", k == 1 ? 0 : (int)(k % 100000)); /* drivers 0 and 1: one badge */
        rc = driver_create(db, &v, NULL, NULL, &err);
    }
    if (rc)
        return fail("populate", rc, &err);
    printf("fleet v1: %ld devices (%ld shard items), %ld readings, %ld drivers: %ld items\n", s->devices,
           2 * s->devices, s->devices * s->readings, s->drivers, 2 * s->devices + s->devices * s->readings + s->drivers);
    return 0;
}
#endif

/* The raw items: each type's count, and every reading's sort key in this version's form. */
static int raw_counts(ddb *db, const sizes *s, ddb_arena *a)
{
    const char *form = FLEET_V >= 3 ? "R#2026-11-" : "READ#";
    long devices = 0, readings = 0, drivers = 0, claims = 0, st = 0;
    ddb_error err = {0};
    ddb_scan_params sp = {.table = "Fleet", .consistent = true};
    for (;;) {
        ddb_page pg = {0};
        int rc = ddb_scan(db, &sp, a, &pg, &err);
        if (rc)
            return fail("scan", rc, &err);
        for (size_t i = 0; i < pg.count; i++) {
            const ddb_value *t = ddb_item_get(pg.items[i], "Type"), *sk = ddb_item_get(pg.items[i], "SK");
            const char *type = t && t->type == DDB_TS ? t->u.s : "", *sks = sk && sk->type == DDB_TS ? sk->u.s : "";
            devices += !strcmp(type, "Device");
#if FLEET_V >= 2
            /* a device's firmware (and its ByFirmware key) is stored on its spec shard item, alone */
            const ddb_value *fw = ddb_item_get(pg.items[i], "firmware"), *fk = ddb_item_get(pg.items[i], "FwPK");
            const ddb_value *ms = ddb_item_get(pg.items[i], "max_speed");
            bool spec = !strcmp(sks, "DEVICE#spec");
            if (!strcmp(type, "Device") && (spec ? ms != NULL : !ms || ms->type != DDB_TN || strcmp(ms->u.s, "130")) &&
                st++ < 3) /* max_speed, on the live shard item alone */
                fprintf(stderr, "fleet v%d: device shard item %s %s max_speed\n", FLEET_V, sks, ms ? "holds" : "lacks");
            if (!strcmp(type, "Device") && (spec ? !fw || fw->type != DDB_TS || strcmp(fw->u.s, "1.0") || !fk : fw || fk) &&
                st++ < 3)
                fprintf(stderr, "fleet v%d: device shard item %s %s firmware \"%s\" and %s ByFirmware key\n", FLEET_V, sks,
                        fw ? "holds" : "lacks", fw && fw->type == DDB_TS ? fw->u.s : "", fk ? "a" : "no");
#endif
            drivers += !strcmp(type, "Driver");
            claims += !strcmp(type, "ddb:unique");
            if (!strcmp(type, "Reading")) {
                readings++;
                if (strncmp(sks, form, strlen(form)) && st++ < 3)
                    fprintf(stderr, "fleet v%d: reading with sort key %s, not in the form %s...\n", FLEET_V, sks,
                            form);
            }
        }
        if (!pg.last_key)
            break;
        sp.start_key = ddb_item_copy(a, pg.last_key);
    }
    if (devices != 2 * s->devices || readings != s->devices * s->readings || drivers != s->drivers)
        st = fprintf(stderr, "fleet v%d: the table holds %ld device shard items, %ld readings, %ld drivers; want %ld, "
                             "%ld, %ld\n",
                     FLEET_V, devices, readings, drivers, 2 * s->devices, s->devices * s->readings, s->drivers) > 0;
    if (FLEET_V == 4 && claims != s->drivers)
        st = fprintf(stderr, "fleet v4: %ld badges claimed of %ld drivers\n", claims, s->drivers) > 0;
    return st ? 1 : 0;
}

/* Every device and reading read once by the typed scans, with its values. */
static int typed_reads(ddb *db, const sizes *s, ddb_arena *a)
{
    ddb_error err = {0};
    int rc = DDB_OK, st = 0;
    unsigned char *seen = calloc((size_t)(s->devices * (s->readings + 1)), 1);
    if (!seen)
        return fail("calloc", DDB_ENOMEM, &err);
    reading_scan_iter ri;
    reading_scan_begin(&ri, db, 0, 0, &(ddb_ent_read_opts){.consistent = true});
    reading_page rp;
    while (!st && (rc = reading_scan_next(&ri, a, &rp, &err)) == DDB_OK && ri.pages.has_page) {
        for (size_t i = 0; i < rp.count && !st; i++) {
            const struct reading *r = &rp.items[i];
            long dev = atol(r->device + 1);
            char day[11];
            day_of(r->seq, day);
            if (dev < 0 || dev >= s->devices || r->seq < 0 || r->seq >= s->readings ||
                seen[dev * s->readings + r->seq]++ || r->value != dev + r->seq || strcmp(r->day, day))
                st = fprintf(stderr, "fleet v%d: reading %s/%d read twice or with other values\n", FLEET_V, r->device,
                             (int)r->seq) > 0;
#if FLEET_V >= 2
            if (strcmp(r->unit, "C"))
                st = fprintf(stderr, "fleet v%d: reading %s/%d has unit \"%s\"\n", FLEET_V, r->device, (int)r->seq,
                             r->unit) > 0;
#endif
        }
        ddb_arena_reset(a);
    }
    reading_scan_end(&ri);
    long devices = 0;
    device_scan_iter di;
    device_scan_begin(&di, db, 0, 0, &(ddb_ent_read_opts){.consistent = true});
    device_page dp;
    while (!st && !rc && (rc = device_scan_next(&di, a, &dp, &err)) == DDB_OK && di.pages.has_page) {
        for (size_t i = 0; i < dp.count && !st; i++, devices++) {
            const struct device *d = &dp.items[i];
            long id = atol(d->id + 1);
            char model[24];
            snprintf(model, sizeof model, "model-%ld", id % 7);
            if (strcmp(d->model, model) || d->odometer != id * 10 || d->speed != id % 120)
                st = fprintf(stderr, "fleet v%d: device %s read with other values\n", FLEET_V, d->id) > 0;
#if FLEET_V >= 2
            if (strcmp(d->firmware, "1.0") || d->max_speed != 130)
                st = fprintf(stderr, "fleet v%d: device %s has firmware \"%s\"\n", FLEET_V, d->id, d->firmware) > 0;
#endif
        }
        ddb_arena_reset(a);
    }
    device_scan_end(&di);
    free(seen);
    if (rc)
        return fail("typed scan", rc, &err);
    if (!st && devices != s->devices)
        st = fprintf(stderr, "fleet v%d: the typed scan read %ld devices of %ld\n", FLEET_V, devices, s->devices) > 0;
    return st;
}

#if FLEET_V >= 2
/* The new indexes hold every device (ByFirmware, from its spec shard) and every reading (ByUnit). */
static int index_counts(ddb *db, const sizes *s, ddb_arena *a)
{
    ddb_error err = {0};
    long devices = 0, readings = 0;
    int rc;
    device_ByFirmware_iter fi;
    device_ByFirmware_begin(&fi, db, "1.0", device_ByFirmware_all(), &(ddb_ent_read_opts){0});
    device_page dp;
    while ((rc = device_ByFirmware_next(&fi, a, &dp, &err)) == DDB_OK && fi.pages.has_page) {
        devices += (long)dp.count;
        ddb_arena_reset(a);
    }
    device_ByFirmware_end(&fi);
    if (rc)
        return fail("device_ByFirmware", rc, &err);
    reading_ByUnit_iter ui;
    reading_ByUnit_begin(&ui, db, "C", reading_ByUnit_all(), &(ddb_ent_read_opts){0});
    reading_page rp;
    while ((rc = reading_ByUnit_next(&ui, a, &rp, &err)) == DDB_OK && ui.pages.has_page) {
        readings += (long)rp.count;
        ddb_arena_reset(a);
    }
    reading_ByUnit_end(&ui);
    if (rc)
        return fail("reading_ByUnit", rc, &err);
    if (devices != s->devices || readings != s->devices * s->readings)
        return fprintf(stderr, "fleet v%d: ByFirmware holds %ld devices of %ld, ByUnit %ld readings of %ld\n",
                       FLEET_V, devices, s->devices, readings, s->devices * s->readings) > 0;
    return 0;
}
#endif

static int verify(ddb *db, const sizes *s)
{
    ddb_error err = {0};
    int rc = fleet_open(db, &err), st = 0;
    if (rc)
        return fail("fleet_open", rc, &err);
    ddb_arena *a = ddb_arena_new();
    st = raw_counts(db, s, a) || typed_reads(db, s, a);
#if FLEET_V >= 2
    st = st || index_counts(db, s, a);
#endif
#if FLEET_V == 4
    if (!st) { /* a stored badge is taken: a new driver holding it is refused */
        struct driver v;
        memset(&v, 0, sizeof v);
        snprintf(v.id, sizeof v.id, "new");
        snprintf(v.badge, sizeof v.badge, "B%05d", (int)((s->drivers - 1) % 100000));
        rc = driver_create(db, &v, NULL, NULL, &err);
        if (rc != DDB_ECONDITION)
            st = fail("driver_create with a stored badge (must be refused)", rc, &err);
    }
#endif
    ddb_arena_free(a);
    if (!st)
        printf("fleet v%d: every item once in its form: %ld devices, %ld readings, %ld drivers\n", FLEET_V,
               s->devices, s->devices * s->readings, s->drivers);
    return st;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: fleet_v%d populate|verify|refused URI N [TEXT]\n", FLEET_V);
        return 2;
    }
    const char *cmd = argv[1];
    sizes s = sizes_of(atol(argv[3]));
    ddb *db = NULL;
    ddb_error err = {0};
    int rc = migrate_test_open(argv[2], &db, &err), st = 1;
    if (rc)
        return fail("ddb_open", rc, &err);
    if (!strcmp(cmd, "verify"))
        st = verify(db, &s);
#if FLEET_V == 2
    else if (!strcmp(cmd, "backfill")) { /* the first change by open's backfill instead of a migration */
        rc = fleet_open_with(db, &(ddb_ent_open_opts){.backfill = true}, &err);
        st = rc ? fail("fleet_open_with(.backfill = true)", rc, &err) : 0;
    }
#endif
    else if (!strcmp(cmd, "refused") && argc > 4) {
        rc = fleet_open(db, &err);
        st = rc == DDB_EMODEL && strstr(err.message, argv[4]) ? 0 : fail("fleet_open (must be refused)", rc, &err);
        if (!st)
            printf("fleet v%d: refused: %s\n", FLEET_V, err.message);
    }
#if FLEET_V == 1
    else if (!strcmp(cmd, "populate"))
        st = populate(db, &s);
#endif
    else
        fprintf(stderr, "fleet v%d: unknown command %s\n", FLEET_V, cmd);
    ddb_close(db);
    return st;
}
