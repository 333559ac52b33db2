/* products — seed 001 on the embedded engine (schema: schemas/products.h).
 *
 * A product with a 40 KB description and specifications, whose stock
 * changes with every order.  The same product is stored twice: as one item
 * (table ProductsOneItem) and split by velocity into shard items A (stock,
 * price) and B (name, description, specifications) (table Products).  An
 * order then updates the stock in both designs, and the program prints
 * what each write costs; a later order writes its line and takes the stock
 * in one transaction (the declared update's transaction form).
 *
 *   products [DIR]      DIR: database directory (default: in the build tree) */
#include "products_ddb.h"
#include "example.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Text of about `size` bytes, the same on every run. */
static char *long_text(const char *para, size_t size)
{
    char *s = malloc(size + 1);
    size_t n = 0, plen = strlen(para);
    for (int i = 1; s && n + plen + 8 < size; i++)
        n += (size_t)snprintf(s + n, size + 1 - n, "%d. %s\n", i, para);
    if (s)
        s[n] = '\0';
    return s;
}

/* The physical items of one partition: key, size, attributes. */
static void print_items(ddb *db, const char *table, const char *pk, ddb_arena *a)
{
    ddb_error err = {0};
    ddb_page pg;
    ddb_query_params q = {.table = table, .pk = ddb_v_str(a, pk)};
    EX_CHECK(ddb_query(db, &q, a, &pg, &err));
    for (size_t i = 0; i < pg.count; i++) {
        const ddb_value *m = ddb_item_map(pg.items[i]);
        printf("    %s / %-10s %6zu bytes:", pk, ddb_item_get(pg.items[i], "SK")->u.s, ddb_item_size(pg.items[i]));
        for (uint32_t j = 0; j < m->len; j++)
            if (strcmp(m->u.m[j].name, "PK") != 0 && strcmp(m->u.m[j].name, "SK") != 0)
                printf(" %s", m->u.m[j].name);
        printf("\n");
    }
}

int main(int argc, char **argv)
{
    ddb_error err = {0};
    char cost[EX_COST_SIZE];
    const ddb_schema_table *tables[] = {&products_v1_table, &products_table};
    ddb *db = ex_open(argc, argv, EX_DEFAULT_DIR, NULL, tables, 2);
    ddb_arena *a = ddb_arena_new();
    EX_CHECK(products_v1_open(db, &err));
    EX_CHECK(products_open(db, &err));

    char *description = long_text("Sea kayak for day trips and expeditions: polyethylene hull, two bulkheads, "
                                  "skeg, adjustable foot braces, deck lines and bungees, a padded seat with "
                                  "a ratcheting back band; tracks straight in wind and carries 150 kg of "
                                  "paddler and gear.",
                                  36 * 1024);
    char *specs = long_text("length 503 cm; width 56 cm; weight 26 kg; cockpit 81 x 42 cm; hatches 2",
                            3 * 1024);
    ddb_capacity cap;

    /* ---- the same product in both designs ---- */
    printf("Product pr-000001 (a %zu-byte description, %zu bytes of specifications):\n\n", strlen(description),
           strlen(specs));
    struct product_item one = {.id = 1, .stock = 40, .price_cents = 129900, .name = "Sea kayak Tern 17",
                               .description = description, .specs = specs};
    EX_CHECK(product_item_create(db, &one, &ex_total, &cap, &err));
    printf("  one item (ProductsOneItem): create %s\n", ex_cost(&cap, cost));
    print_items(db, "ProductsOneItem", "pr-000001", a);

    struct product sharded = {.id = 1, .stock = 40, .price_cents = 129900, .name = "Sea kayak Tern 17",
                              .description = description, .specs = specs};
    EX_CHECK(product_create(db, &sharded, &ex_total, &cap, &err));
    printf("  two shard items (Products): create %s, both shards in one transaction\n"
           "  (a transactional write counts double)\n",
           ex_cost(&cap, cost));
    print_items(db, "Products", "pr-000001", a);

    struct product small = {.id = 2, .stock = 300, .price_cents = 4900, .name = "Paddle float",
                            .description = "Inflatable paddle float for self-rescue.", .specs = "dual chamber"};
    EX_CHECK(product_create(db, &small, NULL, NULL, &err));

    /* ---- an order takes two kayaks: the stock changes ---- */
    printf("\nOrder or-324910: 2 x pr-000001, 1 x pr-000002\n");
    struct order_line lines[] = {{324910, 1, 2, 129900}, {324910, 2, 1, 4900}};
    for (size_t i = 0; i < 2; i++) {
        EX_CHECK(order_line_create(db, &lines[i], &ex_total, &cap, &err));
        printf("  line or-%06u / pr-%06u: %s\n", lines[i].order_id, lines[i].product_id, ex_cost(&cap, cost));
    }
    /* the declared update "SET stock = stock - :n" when "stock >= :n": atomic, no read first */
    EX_CHECK(product_item_take_stock(db, 1, 2, &ex_total, NULL, NULL, &cap, &err));
    printf("  stock update, one item:    %s (the whole item is rewritten)\n", ex_cost(&cap, cost));
    double before = cap.write;
    EX_CHECK(product_take_stock(db, 1, 2, &ex_total, NULL, NULL, &cap, &err));
    printf("  stock update, shard A:     %s (only pr-000001 / PRODUCT#A is written)\n", ex_cost(&cap, cost));
    double after = cap.write;
    printf("  for 1,000 orders a day:    %g WCU versus %g WCU\n", 1000 * before, 1000 * after);
    int rc = product_take_stock(db, 1, 100, &ex_total, NULL, NULL, &cap, &err);
    printf("  taking 100 more:           %s (stock >= 100 is false: nothing is written)\n", ddb_strerror(rc));
    /* an order in one transaction: its line, and the stock taken by the same declared update
     * (product_tx_take_stock): both or neither */
    struct order_line next = {324911, 1, 3, 129900}, huge = {324912, 1, 500, 129900};
    ddb_ent_tx *otx = ddb_ent_tx_new(db, a, &err);
    EX_CHECK(order_line_tx_create(otx, &next, NULL, &err));
    EX_CHECK(product_tx_take_stock(otx, 1, 3, NULL, &err));
    EX_CHECK(ddb_ent_tx_commit(otx, &ex_total, &cap, &err));
    printf("  order or-324911, 3 x pr-000001 in one transaction (line + shard A): %s\n", ex_cost(&cap, cost));
    EX_CHECK(order_line_tx_create(otx, &huge, NULL, &err));
    EX_CHECK(product_tx_take_stock(otx, 1, 500, NULL, &err));
    rc = ddb_ent_tx_commit(otx, &ex_total, &cap, &err);
    printf("  order or-324912, 500 x pr-000001: %s\n    %s (its line is not written either)\n", ddb_strerror(rc),
           err.message);

    sharded.price_cents = 119900;
    EX_CHECK(product_update_fields(db, &sharded, product_mask(PRODUCT_F_PRICE_CENTS), &ex_total, &cap, &err));
    printf("  price change, shard A:     %s\n", ex_cost(&cap, cost));
    strcpy(sharded.name, "Sea kayak Tern 17 HV");
    EX_CHECK(product_update_fields(db, &sharded, product_mask(PRODUCT_F_NAME), &ex_total, &cap, &err));
    printf("  rename, shard B:           %s (the large shard, rarely written)\n", ex_cost(&cap, cost));

    /* ---- reads put the shards back together ---- */
    struct product got;
    EX_CHECK(product_get(db, 1, EX_READS(&cap), a, &got, &err));
    printf("\nGet pr-000001 (one Query over its shard items): %s\n", ex_cost(&cap, cost));
    printf("    %s, %.2f, stock %d, description %zu bytes\n", got.name, (double)got.price_cents / 100, got.stock,
           strlen(got.description));
    struct product_item got1;
    EX_CHECK(product_item_get(db, 1, EX_READS(&cap), a, &got1, &err));
    printf("Get pr-000001 from ProductsOneItem: %s\n", ex_cost(&cap, cost));
    printf("    %s, %.2f, stock %d\n", got1.name, (double)got1.price_cents / 100, got1.stock);

    /* a projection: only the fields of shard A, as a field mask: only the
     * shard A item is read (one GetItem), not the 38 KB of shard B */
    ddb_ent_mask fast = product_mask(PRODUCT_F_STOCK | PRODUCT_F_PRICE_CENTS);
    ddb_ent_read_opts proj = {.fields = &fast, .return_capacity = DDB_CAPACITY_TOTAL, .capacity = &cap};
    product_page pp;
    EX_CHECK(product_by_id(db, 1, product_by_id_all(), &proj, a, &pp, &err));
    printf("Stock and price of pr-000001 (product_by_id with fields STOCK | PRICE_CENTS: shard A only): %s\n", ex_cost(&cap, cost));
    for (size_t i = 0; i < pp.count; i++)
        printf("    stock %d, %.2f, name %s\n", pp.items[i].stock, (double)pp.items[i].price_cents / 100,
               ddb_ent_mask_has(&pp.masks[i], PRODUCT_FN_NAME) ? pp.items[i].name : "(not read)");

    order_line_page pg;
    EX_CHECK(order_line_lines(db, 324910, order_line_lines_all(), EX_READS(&cap), a, &pg, &err));
    printf("\nLines of or-324910 (order_line_lines: PK = \"or-324910\"): %zu, %s\n", pg.count, ex_cost(&cap, cost));
    for (size_t i = 0; i < pg.count; i++)
        printf("    or-%06u / pr-%06u  %d x %.2f\n", pg.items[i].order_id, pg.items[i].product_id,
               pg.items[i].quantity, (double)pg.items[i].unit_price_cents / 100);
    EX_CHECK(order_line_bulk_lines(db, 324910, 2, EX_READS(&cap), a, &pg, &err));
    printf("Lines of 2 or more (order_line_bulk_lines: filter quantity >= :min_quantity): %zu, %s\n", pg.count,
           ex_cost(&cap, cost));
    product_page all;
    EX_CHECK(product_scan(db, 0, 0, EX_READS(&cap), a, &all, &err));
    printf("Every product (product_scan: a Scan keeping type Product, shards merged): %zu, %s\n", all.count,
           ex_cost(&cap, cost));

    free(description);
    free(specs);
    ddb_arena_free(a);
    ddb_close(db);
    return 0;
}
