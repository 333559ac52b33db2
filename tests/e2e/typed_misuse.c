/* Compile-time checks of the typed reads (tests/e2e/CMakeLists.txt): this
 * file compiles as it is, and each MISUSE_* variant must fail to compile
 * for the reason it names (the test matches the compiler's message).
 * Issue 12: "a wrong struct or level does not compile". */
#include "fleet_ddb.h"

int typed_use(ddb *db, ddb_arena *a, ddb_error *err);

int typed_use(ddb *db, ddb_arena *a, ddb_error *err)
{
    device_page dp;
    reading_page rp;
#if defined(MISUSE_PATTERN)
    /* another pattern's sort-key condition */
    return device_by_site(db, "s1", reading_table_all(), NULL, a, &dp, err);
#elif defined(MISUSE_LEVEL)
    /* a level the sort key "DEV#{kind}#{device_id}" does not have */
    return device_by_site(db, "s1", device_by_site_site_id(DDB_ENT_SK_EQ, "s1"), NULL, a, &dp, err);
#elif defined(MISUSE_STRUCT)
    /* another entity's structs as keys */
    struct reading keys[1] = {{.device_id = "d1"}};
    struct device out[1];
    bool found[1];
    return device_batch_get(db, keys, 1, NULL, a, out, NULL, found, err);
#elif defined(MISUSE_PARAM)
    /* :min is compared with celsius, a double */
    return reading_hot(db, "d1", "2024", "2025", "21.5", NULL, a, &rp, err);
#else
    int rc = device_by_site(db, "s1", device_by_site_device_id_between("sensor", "d1", "d9"), NULL, a,
                            &dp, err);
    if (!rc)
        rc = reading_hot(db, "d1", "2024", "2025", 21.5, NULL, a, &rp, err);
    /* a char * key field takes a const char * (the usual string) */
    const char *site = "s1";
    alert_page ap;
    if (!rc)
        rc = alert_open_at_site(db, site, alert_open_at_site_all(), NULL, a, &ap, err);
    return rc;
#endif
}
