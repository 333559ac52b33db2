/* ddb demo: the embedded engine in one page.
 *
 * Creates a single-table design (organizations and their users, seed 004),
 * writes items, reads one back, queries an item collection and a sparse
 * index, and prints what each call consumed and how the partitions are
 * loaded.  Usage: ddb_demo [DIR]   (default ./demo-db, recreated each run) */
#include <ddb/ddb.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check(int rc, const ddb_error *err, const char *what)
{
    if (rc) {
        fprintf(stderr, "ddb_demo: %s: %s (%s)\n", what, err->message, ddb_strerror(rc));
        exit(1);
    }
    return rc;
}

static void print_item(const ddb_item *it)
{
    const ddb_value *m = ddb_item_map(it);
    printf("    {");
    for (uint32_t i = 0; i < m->len; i++) {
        const ddb_value *v = m->u.m[i].value;
        printf("%s %s: ", i ? "," : "", m->u.m[i].name);
        if (v->type == DDB_TS)
            printf("\"%s\"", v->u.s);
        else if (v->type == DDB_TN)
            printf("%s", v->u.s);
        else if (v->type == DDB_TBOOL)
            printf("%s", v->u.boolean ? "true" : "false");
        else
            printf("<%s>", ddb_type_name(v->type));
    }
    printf(" }\n");
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "demo-db";
    char cmd[1024], uri[1024];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        return 1;
    snprintf(uri, sizeof uri, "file:%s", dir);

    ddb *db;
    ddb_error err = {0};
    check(ddb_open(uri, NULL, &db, &err), &err, "open");
    printf("opened %s (embedded engine, durable commits)\n\n", uri);

    ddb_index_def indexes[] = {
        /* sparse: only users with an open invitation carry GSI1PK */
        {.name = "GSI1", .key = {"GSI1PK", DDB_TS, "GSI1SK", DDB_TS}},
    };
    ddb_table_def def = {.name = "Shop", .key = {"PK", DDB_TS, "SK", DDB_TS}, .indexes = indexes, .n_indexes = 1};
    check(ddb_create_table(db, &def, &err), &err, "create table");
    printf("CreateTable Shop: PK/SK strings, GSI1 (sparse)\n");

    ddb_arena *a = ddb_arena_new();
    ddb_write_opts wo = {.return_capacity = DDB_CAPACITY_INDEXES};
    ddb_write_result res;
    const char *orgs[] = {"acme", "globex"};
    double wcu = 0;
    int n = 0;
    for (int o = 0; o < 2; o++) {
        char pk[64];
        snprintf(pk, sizeof pk, "ORG#%s", orgs[o]);
        ddb_item *org = ddb_item_new(a);
        ddb_item_set_s(org, "PK", pk);
        ddb_item_set_s(org, "SK", "METADATA");
        ddb_item_set_s(org, "Type", "Organization");
        ddb_item_set_s(org, "name", o ? "Globex Corp." : "Acme Inc.");
        ddb_item_set_s(org, "plan", o ? "pro" : "enterprise");
        check(ddb_put_item(db, "Shop", org, &wo, a, &res, &err), &err, "put org");
        wcu += res.capacity.total;
        n++;
        for (int u = 0; u < 5; u++) {
            char sk[64], email[64];
            snprintf(sk, sizeof sk, "USER#user%d", u);
            snprintf(email, sizeof email, "user%d@%s.example", u, orgs[o]);
            ddb_item *user = ddb_item_new(a);
            ddb_item_set_s(user, "PK", pk);
            ddb_item_set_s(user, "SK", sk);
            ddb_item_set_s(user, "Type", "User");
            ddb_item_set_s(user, "email", email);
            ddb_item_set_i64(user, "logins", u * 7);
            if (u % 2 == 0) { /* pending invitation: lands in the sparse index */
                ddb_item_set_s(user, "GSI1PK", "INVITE#pending");
                ddb_item_set_s(user, "GSI1SK", email);
            }
            check(ddb_put_item(db, "Shop", user, &wo, a, &res, &err), &err, "put user");
            wcu += res.capacity.total;
            n++;
        }
    }
    printf("PutItem x%d: %.0f WCU in total (table + index writes)\n\n", n, wcu);

    ddb_item *key = ddb_item_new(a), *got;
    ddb_item_set_s(key, "PK", "ORG#acme");
    ddb_item_set_s(key, "SK", "USER#user3");
    ddb_capacity cap;
    check(ddb_get_item(db, "Shop", key, &(ddb_get_opts){.return_capacity = DDB_CAPACITY_TOTAL}, a, &got, &cap, &err),
          &err, "get");
    printf("GetItem ORG#acme / USER#user3 (eventually consistent): %.1f RCU\n", cap.total);
    print_item(got);

    ddb_page pg;
    ddb_query_params q = {.table = "Shop", .pk = ddb_v_str(a, "ORG#acme"), .return_capacity = DDB_CAPACITY_TOTAL};
    check(ddb_query(db, &q, a, &pg, &err), &err, "query");
    printf("\nQuery PK = ORG#acme (the organization and all its users, one request): %zu items, %.1f RCU\n", pg.count,
           pg.capacity.total);
    for (size_t i = 0; i < pg.count; i++)
        print_item(pg.items[i]);

    q.sk_op = DDB_SK_BEGINS_WITH;
    q.sk1 = ddb_v_str(a, "USER#");
    q.limit = 2;
    printf("\nQuery PK = ORG#globex AND begins_with(SK, \"USER#\"), 2 per page:\n");
    q.pk = ddb_v_str(a, "ORG#globex");
    int page = 0;
    do {
        check(ddb_query(db, &q, a, &pg, &err), &err, "query");
        printf("  page %d: %zu items, %.1f RCU%s\n", ++page, pg.count, pg.capacity.total,
               pg.last_key ? ", more..." : "");
        for (size_t i = 0; i < pg.count; i++)
            print_item(pg.items[i]);
        q.start_key = pg.last_key;
    } while (pg.last_key);

    ddb_query_params gq = {.table = "Shop", .index = "GSI1", .pk = ddb_v_str(a, "INVITE#pending"),
                           .return_capacity = DDB_CAPACITY_INDEXES};
    check(ddb_query(db, &gq, a, &pg, &err), &err, "gsi query");
    printf("\nQuery GSI1 PK = INVITE#pending (sparse index: only invited users): %zu items, %.1f RCU\n", pg.count,
           pg.capacity.total);
    for (size_t i = 0; i < pg.count; i++)
        print_item(pg.items[i]);

    ddb_table_desc *d;
    check(ddb_describe_table(db, "Shop", a, &d, &err), &err, "describe");
    printf("\nDescribeTable Shop: %llu items, %llu bytes, %u partitions\n", (unsigned long long)d->item_count,
           (unsigned long long)d->size_bytes, d->partitions);
    ddb_partition_stats *ps;
    size_t np;
    check(ddb_table_stats(db, "Shop", a, &ps, &np, &err), &err, "stats");
    printf("  partition  hash range                               items  bytes   RCU    WCU\n");
    for (size_t i = 0; i < np; i++)
        printf("  %-9zu  %016llx-%016llx  %5llu  %5llu  %5.1f  %5.1f\n", i, (unsigned long long)ps[i].hash_lo,
               (unsigned long long)ps[i].hash_hi, (unsigned long long)ps[i].item_count,
               (unsigned long long)ps[i].size_bytes, ps[i].read_units, ps[i].write_units);

    ddb_arena_free(a);
    ddb_close(db);
    return 0;
}
