/* reservations — seed 003 on the embedded engine (schema: schemas/reservations.h).
 *
 * A parks reservation catalogue: geozones of a collection, the
 * availability of a product per day, and bookings.  Shows
 *   - keys that begin with the schema name and are scoped by collectionId,
 *   - a bounded partition with natural sort keys (one productDate per day),
 *   - an unbounded partition numbered by an atomic counter (bookings),
 *   - a globalId (UUID) GSI that finds an item without knowing its keys,
 *   - a geometry too large for an item, kept in a blob directory next to
 *     the database with its reference and hash in the item,
 *   - search documents whose id is <pk>#<sk>, written as NDJSON (the bulk
 *     format of OpenSearch), and read back to their items one to one,
 *   - unpaid holds expiring by TTL, and the table's change stream turning
 *     those deletions into delete actions for the search index.
 *
 *   reservations [DIR]      DIR: database directory (default: in the build tree)
 * Files written next to the database: DIR/blobs/..., DIR/search/documents.ndjson */
#include "reservations_ddb.h"
#include "example.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <xxhash.h>

/* ---- the blob store: content-addressed files under DIR/blobs ---- */

static void make_dir(const char *path)
{
    if (mkdir(path, 0755) != 0 && errno != EEXIST) {
        perror(path);
        exit(1);
    }
}

static void hash_hex(const char *data, size_t len, char out[33])
{
    XXH128_hash_t h = XXH3_128bits(data, len);
    snprintf(out, 33, "%016llx%016llx", (unsigned long long)h.high64, (unsigned long long)h.low64);
}

/* Store data as DIR/blobs/<kind>/<hash>.geojson; fills the reference
 * (relative to DIR) and the hash. */
static void blob_put(const char *kind, const char *data, size_t len, char ref[128], char hash[33])
{
    char path[4096];
    hash_hex(data, len, hash);
    snprintf(path, sizeof path, "%s/blobs", ex_dir());
    make_dir(path);
    snprintf(path, sizeof path, "%s/blobs/%s", ex_dir(), kind);
    make_dir(path);
    snprintf(ref, 128, "blobs/%s/%s.geojson", kind, hash);
    snprintf(path, sizeof path, "%s/%s", ex_dir(), ref);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
}

/* Read a blob back; NULL when missing or when its hash is not `hash`. */
static char *blob_get(const char *ref, const char *hash, size_t *len)
{
    char path[4096], got[33];
    snprintf(path, sizeof path, "%s/%s", ex_dir(), ref);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
        free(data);
        data = NULL;
    }
    fclose(f);
    if (!data)
        return NULL;
    data[n] = '\0';
    *len = (size_t)n;
    hash_hex(data, *len, got);
    if (strcmp(got, hash) != 0) {
        free(data);
        return NULL;
    }
    return data;
}

/* A park boundary as a GeoJSON polygon with `points` vertices around a
 * centre (micro-degrees, integer arithmetic: the same bytes on every run). */
static char *polygon(long lat_e6, long lon_e6, int points, size_t *len)
{
    size_t cap = (size_t)points * 32 + 64, n = 0;
    char *s = malloc(cap);
    if (!s)
        exit(1);
    n += (size_t)snprintf(s, cap, "{\"type\":\"Polygon\",\"coordinates\":[[");
    unsigned seed = 2025;
    long first_lat = 0, first_lon = 0;
    for (int i = 0; i < points; i++) {
        seed = seed * 1103515245u + 12345u;
        long r = 40000 + (long)(seed >> 16) % 9000;      /* radius, micro-degrees */
        long q = (long)i * 4000000 / points;              /* position on a square path */
        long dx = q < 1000000 ? q * 2 - 1000000 : q < 2000000 ? 1000000 : q < 3000000 ? 5000000 - q * 2 : -1000000;
        long dy = q < 1000000 ? -1000000 : q < 2000000 ? q * 2 - 3000000 : q < 3000000 ? 1000000 : 7000000 - q * 2;
        long la = lat_e6 + dy * r / 1000000, lo = lon_e6 + dx * r / 1000000;
        if (i == 0) {
            first_lat = la;
            first_lon = lo;
        }
        n += (size_t)snprintf(s + n, cap - n, "[%ld.%06ld,%ld.%06ld],", lo / 1000000, labs(lo % 1000000),
                              la / 1000000, labs(la % 1000000));
    }
    n += (size_t)snprintf(s + n, cap - n, "[%ld.%06ld,%ld.%06ld]]]}", first_lon / 1000000,
                          labs(first_lon % 1000000), first_lat / 1000000, labs(first_lat % 1000000));
    *len = n;
    return s;
}

/* ---- search documents: plain JSON of an item ---- */

static void json_string(FILE *f, const char *s, size_t len)
{
    fputc('"', f);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void json_value(FILE *f, const ddb_value *v)
{
    switch (v->type) {
    case DDB_TS: json_string(f, v->u.s, v->len); break;
    case DDB_TN: fputs(v->u.s, f); break;
    case DDB_TBOOL: fputs(v->u.boolean ? "true" : "false", f); break;
    case DDB_TM:
        fputc('{', f);
        for (uint32_t i = 0; i < v->len; i++) {
            json_string(f, v->u.m[i].name, v->u.m[i].name_len);
            fputc(':', f);
            json_value(f, v->u.m[i].value);
            if (i + 1 < v->len)
                fputc(',', f);
        }
        fputc('}', f);
        break;
    case DDB_TL:
    case DDB_TSS:
    case DDB_TNS:
        fputc('[', f);
        for (uint32_t i = 0; i < v->len; i++) {
            json_value(f, v->type == DDB_TL ? v->u.l[i] : v->u.set[i]);
            if (i + 1 < v->len)
                fputc(',', f);
        }
        fputc(']', f);
        break;
    default: fputs("null", f); /* B, BS, NULL: not indexed */
    }
}

/* One document of the bulk file: the action line with _id = <pk>#<sk>,
 * then the item's attributes (a geozone's with its full geometry, read
 * from the blob: the search index is where spatial queries run).
 * Returns the size of the document line. */
static size_t write_document(FILE *f, const char *id, const ddb_item *it, const char *geometry)
{
    fputs("{\"index\":{\"_index\":\"reservations\",\"_id\":", f);
    json_string(f, id, strlen(id));
    fputs("}}\n", f);
    long body = ftell(f);
    const ddb_value *m = ddb_item_map(it);
    fputc('{', f);
    for (uint32_t i = 0; i < m->len; i++) {
        if (i)
            fputc(',', f);
        json_string(f, m->u.m[i].name, m->u.m[i].name_len);
        fputc(':', f);
        json_value(f, m->u.m[i].value);
    }
    if (geometry)
        fprintf(f, "%s\"geometry\":%s", m->len ? "," : "", geometry);
    fputs("}\n", f);
    return (size_t)(ftell(f) - body);
}

/* The example runs on its own clock, starting at 2025-12-30 12:00 UTC, so
 * that holds (DDB_TTL) expire the same way on every run. */
static int64_t clock_now_ms = 1767096000000;

static int64_t example_clock_ms(void *ctx)
{
    (void)ctx;
    return clock_now_ms;
}

int main(int argc, char **argv)
{
    ddb_error err = {0};
    char cost[EX_COST_SIZE];
    const ddb_schema_table *tables[] = {&reservations_table};
    ddb_options opts = {.clock_ms = example_clock_ms};
    ddb *db = ex_open(argc, argv, EX_DEFAULT_DIR, &opts, tables, 1);
    ddb_arena *a = ddb_arena_new();
    ddb_capacity cap;
    EX_CHECK(reservations_open(db, &err));
    /* the search index follows the table through its change stream: the
     * schema's DDB_STREAM("NEW_IMAGE") created the table with it */
    printf("Table Reservations: pk / sk; GSI globalId; type attribute \"schema\"; TTL attribute holdUntil;\n"
           "a change stream (new images); the clock reads 2025-12-30 12:00 UTC\n\n");

    /* ---- geozones: the geometry lives outside the item ---- */
    struct geozone zones[] = {
        {"bcparks_1", "golden-ears", "Golden Ears Park", {49.4, -122.5}, "", "", 0},
        {"bcparks_1", "alice-lake", "Alice Lake Park", {49.78, -123.12}, "", "", 0},
    };
    int vertices[] = {20000, 400};
    printf("Geozones of collection bcparks_1:\n");
    for (size_t i = 0; i < 2; i++) {
        struct geozone *z = &zones[i];
        size_t len;
        char *geo = polygon((long)(z->centroid.lat * 1e6), (long)(z->centroid.lon * 1e6), vertices[i], &len);
        if (i == 0) {
            /* inline, the boundary does not fit in an item */
            ddb_item *it;
            EX_CHECK(geozone_to_item(z, a, &it, &err));
            ddb_item_set(it, "geometry", ddb_v_s(a, geo, len));
            int rc = ddb_put_item(db, "Reservations", it, NULL, NULL, NULL, &err);
            printf("  %s with its %zu-byte boundary inline: %s\n    %s\n", z->geozone_id, len, ddb_strerror(rc),
                   err.message);
        }
        blob_put("geozone", geo, len, z->geometry_ref, z->geometry_hash);
        z->geometry_bytes = (int64_t)len;
        EX_CHECK(geozone_create(db, z, &ex_total, &cap, &err));
        printf("  geozone::%s / %s: %s; the boundary (%zu bytes) is the blob\n    %s\n", z->collection_id,
               z->geozone_id, ex_cost(&cap, cost), len, z->geometry_ref);
        free(geo);
    }
    struct geozone gz;
    EX_CHECK(geozone_get(db, "bcparks_1", "golden-ears", EX_READS(&cap), a, &gz, &err));
    size_t glen;
    char *geometry = blob_get(gz.geometry_ref, gz.geometry_hash, &glen);
    printf("  get geozone::bcparks_1 / golden-ears: %s; its blob: %zu bytes, hash %s\n", ex_cost(&cap, cost),
           geometry ? glen : 0, geometry ? "verified" : "MISMATCH");
    free(geometry);

    /* ---- productDate: bounded, one item per day, natural sort key ---- */
    printf("\nAvailability of dayuse product 1 (one productDate item per day):\n");
    const char *days[] = {"2025-12-29", "2025-12-30", "2025-12-31", "2026-01-01", "2026-01-02"};
    struct product_date pd[5];
    for (int i = 0; i < 5; i++) {
        pd[i] = (struct product_date){.collection_id = "bcparks_1", .activity = "dayuse", .product = "1",
                                      .capacity = 40};
        strcpy(pd[i].date, days[i]);
        EX_CHECK(product_date_create(db, &pd[i], &ex_total, &cap, &err));
    }
    printf("  created 5 items, %s each; pk productDate::bcparks_1::dayuse::1, sk 1::<date>\n",
           ex_cost(&cap, cost));
    product_date_page pp;
    EX_CHECK(product_date_days(db, "bcparks_1", "dayuse", "1",
                               product_date_days_date(DDB_ENT_SK_GE, "1", "2025-12-31"), EX_READS(&cap), a, &pp,
                               &err));
    printf("  from 2025-12-31 on (product_date_days_date, GE: sk >= \"1::2025-12-31\"): %zu days, %s\n", pp.count,
           ex_cost(&cap, cost));
    for (size_t i = 0; i < pp.count; i++)
        printf("    productDate::%s::%s::%s / %s::%s  capacity %d, reserved %d, version %u\n",
               pp.items[i].collection_id, pp.items[i].activity, pp.items[i].product, pp.items[i].product,
               pp.items[i].date, pp.items[i].capacity, pp.items[i].reserved, pp.items[i].version);

    /* ---- bookings: an unbounded partition numbered by an atomic counter ---- */
    printf("\nBookings for 2025-12-31 (each one transaction: the booking, and the day's count moved by the\n"
           "declared update product_date_tx_reserve: \"SET reserved = reserved + :party\" when \"reserved <= :most\"):\n");
    const char *guests[] = {"Ada Kim", "Omar Haddad", "Chloe Martin", "Lena Vogel"};
    int party[] = {4, 2, 3, 35};
    struct booking bookings[4];
    for (int i = 0; i < 4; i++) {
        bookings[i] = (struct booking){.collection_id = "bcparks_1", .activity = "dayuse", .product = "1",
                                       .date = "2025-12-31", .party_size = party[i],
                                       .hold_until = 1767117600}; /* 2025-12-30 18:00 UTC */
        strcpy(bookings[i].guest, guests[i]);
        /* no read first: the day must hold the party (capacity 40), checked where it is stored */
        ddb_ent_tx *tx = ddb_ent_tx_new(db, a, &err);
        EX_CHECK(booking_tx_create(tx, &bookings[i], NULL, &err)); /* draws the next booking number */
        EX_CHECK(product_date_tx_reserve(tx, "bcparks_1", "dayuse", "1", "2025-12-31", party[i], 40 - party[i], NULL,
                                         &err));
        int brc = ddb_ent_tx_commit(tx, &ex_total, &cap, &err);
        if (brc == DDB_ECANCELED) { /* the day is full: nothing written, no booking number used */
            printf("  %-12s party of %d: %s\n    %s\n", bookings[i].guest, bookings[i].party_size,
                   ddb_strerror(brc), err.message);
            continue;
        }
        EX_CHECK(brc);
        printf("  booking::bcparks_1 / %010llu  %-12s party of %d  (%s)\n",
               (unsigned long long)bookings[i].booking_no, bookings[i].guest, bookings[i].party_size,
               ex_cost(&cap, cost));
    }
    struct product_date day;
    EX_CHECK(product_date_get(db, "bcparks_1", "dayuse", "1", "2025-12-31", NULL, a, &day, &err));
    printf("  2025-12-31 now: reserved %d of %d, version %u\n", day.reserved, day.capacity, day.version);

    /* two agents reserve on the same day from the same read: versions decide */
    struct product_date agent_a, agent_b;
    EX_CHECK(product_date_get(db, "bcparks_1", "dayuse", "1", "2026-01-01", NULL, a, &agent_a, &err));
    agent_b = agent_a;
    agent_a.reserved += 5;
    EX_CHECK(product_date_update_fields(db, &agent_a, product_date_mask(PRODUCT_DATE_F_RESERVED), NULL, NULL, &err));
    agent_b.reserved += 7;
    int rc = product_date_update_fields(db, &agent_b, product_date_mask(PRODUCT_DATE_F_RESERVED), NULL, NULL, &err);
    printf("\nTwo agents update 2026-01-01 from the same read (version %u):\n", agent_b.version);
    printf("  agent A: ok, version %u\n  agent B: %s\n    %s\n", agent_a.version, ddb_strerror(rc), err.message);
    EX_CHECK(product_date_get(db, "bcparks_1", "dayuse", "1", "2026-01-01", NULL, a, &agent_b, &err));
    agent_b.reserved += 7;
    EX_CHECK(product_date_update_fields(db, &agent_b, product_date_mask(PRODUCT_DATE_F_RESERVED), NULL, NULL, &err));
    printf("  agent B reads again and retries: ok, reserved %d, version %u\n", agent_b.reserved, agent_b.version);
    /* the same counter as one declared update: no read, no version to race on */
    struct product_date after;
    EX_CHECK(product_date_reserve(db, "bcparks_1", "dayuse", "1", "2026-01-01", 3, 37, &ex_total, a, &after, &cap,
                                  &err));
    printf("  agent C: product_date_reserve(party 3, while reserved <= 37): ok, reserved %d, version %u, %s\n",
           after.reserved, after.version, ex_cost(&cap, cost));
    rc = product_date_reserve(db, "bcparks_1", "dayuse", "1", "2026-01-01", 30, 40 - 30, NULL, NULL, NULL, NULL, &err);
    printf("  agent D: product_date_reserve(party 30, while reserved <= 10): %s\n", ddb_strerror(rc));

    /* the booking partition: numbered in creation order; the counter lives there too */
    booking_page bp;
    EX_CHECK(booking_by_collection(db, "bcparks_1", booking_by_collection_all(), EX_READS(&cap), a, &bp, &err));
    printf("\nBookings of bcparks_1 (booking_by_collection: Query pk = \"booking::bcparks_1\"): %zu, %s\n", bp.count,
           ex_cost(&cap, cost));
    for (size_t i = 0; i < bp.count; i++)
        printf("    %010llu  %-12s %s  party of %d  hold until %lld  %s since %s\n",
               (unsigned long long)bp.items[i].booking_no, bp.items[i].guest, bp.items[i].date, bp.items[i].party_size,
               (long long)bp.items[i].hold_until, bp.items[i].status, bp.items[i].updated_at);
    EX_CHECK(booking_parties(db, "bcparks_1", 3, EX_READS(&cap), a, &bp, &err));
    printf("  parties of 3 or more (booking_parties: filter party_size >= :min_party): %zu of %zu read:", bp.count,
           bp.scanned_count);
    for (size_t i = 0; i < bp.count; i++)
        printf(" %s", bp.items[i].guest);
    printf("\n");
    ddb_item *key = ddb_item_new(a), *counter;
    ddb_item_set_s(key, "pk", "booking::bcparks_1");
    ddb_item_set_s(key, "sk", "#COUNTER");
    EX_CHECK(ddb_get_item(db, "Reservations", key, NULL, a, &counter, NULL, &err));
    printf("  the counter item booking::bcparks_1 / #COUNTER (schema \"%s\") holds %s\n",
           ddb_item_get(counter, "schema")->u.s, ddb_item_get(counter, "Counter")->u.s);

    /* payment confirms booking 2: the hold (a TTL) is removed */
    bookings[1].hold_until = 0;
    EX_CHECK(booking_update_fields(db, &bookings[1], booking_mask(BOOKING_F_HOLD_UNTIL), &ex_total, &cap, &err));
    printf("  booking 0000000002 paid: holdUntil removed (%s); unpaid holds expire by TTL\n", ex_cost(&cap, cost));

    /* ---- globalId: find an item by its UUID alone ---- */
    printf("\nLookups by globalId (a random UUID per item, so not printed here):\n");
    EX_CHECK(booking_by_global_id(db, bookings[2].global_id, booking_by_global_id_all(), EX_READS(&cap), a, &bp, &err));
    printf("  booking's globalId (%zu characters) -> %zu item: booking::%s / %010llu, %s; %s\n",
           strlen(bookings[2].global_id), bp.count, bp.items[0].collection_id,
           (unsigned long long)bp.items[0].booking_no, bp.items[0].guest, ex_cost(&cap, cost));
    EX_CHECK(product_date_by_global_id(db, pd[4].global_id, product_date_by_global_id_all(), EX_READS(&cap), a, &pp,
                                       &err));
    printf("  productDate's globalId -> %zu item: productDate::%s::%s::%s / %s::%s; %s\n", pp.count,
           pp.items[0].collection_id, pp.items[0].activity, pp.items[0].product, pp.items[0].product,
           pp.items[0].date, ex_cost(&cap, cost));

    /* ---- search documents: _id = <pk>#<sk>, one per item ---- */
    char path[4096];
    snprintf(path, sizeof path, "%s/search", ex_dir());
    make_dir(path);
    snprintf(path, sizeof path, "%s/search/documents.ndjson", ex_dir());
    FILE *f = fopen(path, "w+");
    if (!f) {
        perror(path);
        return 1;
    }
    printf("\nSearch documents (%s, bulk NDJSON), from a Scan of the table:\n", path);
    ddb_page pg;
    ddb_scan_params scan = {.table = "Reservations"};
    size_t docs = 0, back = 0;
    do {
        EX_CHECK(ddb_scan(db, &scan, a, &pg, &err));
        for (size_t i = 0; i < pg.count; i++) {
            const ddb_item *it = pg.items[i];
            const char *schema = ddb_item_get(it, "schema")->u.s;
            if (strncmp(schema, "ddb:", 4) == 0)
                continue; /* the id counter is bookkeeping, not a document */
            char *geo = NULL;
            if (strcmp(schema, "geozone") == 0)
                geo = blob_get(ddb_item_get(it, "geometryRef")->u.s, ddb_item_get(it, "geometryHash")->u.s, &glen);
            char id[1024];
            snprintf(id, sizeof id, "%s#%s", ddb_item_get(it, "pk")->u.s, ddb_item_get(it, "sk")->u.s);
            size_t bytes = write_document(f, id, it, geo);
            free(geo);
            printf("  _id %-48s %-11s %7zu bytes\n", id, schema, bytes);
            docs++;
        }
        scan.start_key = pg.last_key;
    } while (pg.last_key);
    printf("  %zu documents\n", docs);

    /* and back: every _id splits at its first '#' into exactly one item's pk and sk */
    rewind(f);
    char *line = NULL;
    size_t cap_line = 0;
    while (getline(&line, &cap_line, f) > 0) {
        char *id = strstr(line, "\"_id\":\"");
        if (strncmp(line, "{\"index\"", 8) != 0 || !id)
            continue;
        id += 7;
        *strchr(id, '"') = '\0';
        char *hash = strchr(id, '#');
        *hash = '\0';
        ddb_item *k = ddb_item_new(a), *it;
        ddb_item_set_s(k, "pk", id);
        ddb_item_set_s(k, "sk", hash + 1);
        EX_CHECK(ddb_get_item(db, "Reservations", k, NULL, a, &it, NULL, &err));
        back++;
    }
    free(line);
    fclose(f);
    printf("  each _id read back as pk and sk: %zu of %zu found, one item each\n", back, docs);
    ddb_stream_desc sd;
    EX_CHECK(ddb_stream_describe(db, "Reservations", &sd, &err));
    uint64_t checkpoint = sd.last_seq; /* the snapshot holds every change up to here */

    /* ---- later that day: unpaid holds expire, the stream carries it on ---- */
    clock_now_ms = 1767121200000; /* 2025-12-30 19:00 UTC */
    printf("\nAt 19:00 the unpaid holds (holdUntil 18:00) have expired:\n");
    EX_CHECK(booking_by_collection(db, "bcparks_1", booking_by_collection_all(), NULL, a, &bp, &err));
    printf("  bookings of bcparks_1: %zu (expired items read as absent at once):", bp.count);
    for (size_t i = 0; i < bp.count; i++)
        printf(" %010llu %s", (unsigned long long)bp.items[i].booking_no, bp.items[i].guest);
    printf("\n");
    uint64_t deleted;
    EX_CHECK(ddb_ttl_sweep(db, "Reservations", 0, &deleted, &err));
    printf("  the TTL sweep deletes them: %llu items, no capacity consumed\n", (unsigned long long)deleted);
    /* the stream consumer: every change after the checkpoint becomes a bulk action */
    ddb_stream_iter *si;
    EX_CHECK(ddb_stream_iter_open(db, "Reservations", DDB_STREAM_AFTER_SEQUENCE, checkpoint, &si, &err));
    ddb_stream_record recs[16];
    size_t nrec;
    f = fopen(path, "a");
    if (!f) {
        perror(path);
        return 1;
    }
    printf("  the stream since the snapshot, appended to the bulk file as actions:\n");
    do {
        EX_CHECK(ddb_stream_read(si, 16, a, recs, &nrec, &err));
        for (size_t i = 0; i < nrec; i++) {
            char id[1024];
            snprintf(id, sizeof id, "%s#%s", ddb_item_get(recs[i].keys, "pk")->u.s,
                     ddb_item_get(recs[i].keys, "sk")->u.s);
            if (recs[i].event == DDB_STREAM_REMOVE) {
                fprintf(f, "{\"delete\":{\"_index\":\"reservations\",\"_id\":\"%s\"}}\n", id);
                printf("    %-6s%s  ->  delete _id %s\n", ddb_stream_event_name(recs[i].event),
                       recs[i].by_ttl ? " (TTL)" : "", id);
            } else {
                write_document(f, id, recs[i].new_image, NULL);
                printf("    %-6s  ->  index _id %s\n", ddb_stream_event_name(recs[i].event), id);
            }
        }
    } while (nrec);
    fclose(f);
    ddb_stream_iter_close(si);

    ddb_arena_free(a);
    ddb_close(db);
    return 0;
}
