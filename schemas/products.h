/* products.h — seed 001: split a product by attribute velocity, and
 * decorate keys so they read well (pr-000001, or-324910).
 *
 * A product has a small attribute that changes all the time (its stock)
 * and large ones that rarely change (description, specifications).
 * DynamoDB charges a write for the whole item, in 1 KB units, so on a
 * 40 KB item every stock change costs 40 WCU.
 *
 *   ProductsOneItem  the "before" design: the product is one item.
 *   Products         the "after" design: the same product is an item
 *                    collection of two shard items with the product's key
 *                    and the shard suffix, pr-000001 / PRODUCT#A (stock,
 *                    price: small, high velocity) and pr-000001 / PRODUCT#B
 *                    (name, description, specifications: large, low
 *                    velocity).  A stock update writes shard A only:
 *                    the declared update product_take_stock() decrements
 *                    it atomically and is refused when fewer are left;
 *                    product_tx_take_stock() does the same inside an
 *                    order's transaction (its line and the stock together).
 *
 * Orders (or-324910) sit in the same table: an order line per product. */
#ifndef PRODUCTS_H
#define PRODUCTS_H

#include <ddb/schema.h>

DDB_TABLE(products_v1, "ProductsOneItem", DDB_PRIMARY("PK", "SK"));
DDB_TABLE(products, "Products", DDB_PRIMARY("PK", "SK"));

/* Before: everything in one item. */
struct DDB_ENTITY(products_v1, "ProductItem")
       DDB_KEY("table", "pr-{id:06}", "PRODUCT")
       DDB_UPDATE("take_stock", "SET stock = stock - :n", "stock >= :n")
product_item {
    uint32_t id;
    int32_t stock;
    int64_t price_cents;
    char name[64];
    char *description;   /* tens of KB of text and markup */
    char *specs;         /* a few KB */
};

/* After: the same attributes, sharded by velocity. */
struct DDB_ENTITY(products, "Product")
       DDB_KEY("table", "pr-{id:06}", "PRODUCT")
       DDB_UPDATE("take_stock", "SET stock = stock - :n", "stock >= :n")
       DDB_SHARD_SUFFIX("#")
       DDB_PATTERN("by_id", "table")
product {
    uint32_t id;
    int32_t stock DDB_SHARD("A");
    int64_t price_cents DDB_SHARD("A");
    char name[64] DDB_SHARD("B");
    char *description DDB_SHARD("B");
    char *specs DDB_SHARD("B");
};

/* One line of an order: or-324910 / pr-000001. */
struct DDB_ENTITY(products, "OrderLine")
       DDB_KEY("table", "or-{order_id:06}", "pr-{product_id:06}")
       DDB_PATTERN("lines", "table")
       DDB_QUERY("bulk_lines", "lines", "", "quantity >= :min_quantity")
order_line {
    uint32_t order_id;
    uint32_t product_id;
    int32_t quantity;
    int64_t unit_price_cents;
};

#endif
