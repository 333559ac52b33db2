/* reservations.h — seed 003: a reservations catalogue whose keys follow one
 * shared, human-guessable convention.
 *
 * Every pk starts with the schema name of what it identifies, scoped by
 * the collectionId; the type attribute is called "schema" here:
 *   geozone::bcparks_1 / golden-ears                  a geozone of a collection
 *   productDate::bcparks_1::dayuse::1 / 1::2025-12-31 availability of a product
 *                                                     on a day (bounded: one item
 *                                                     per day, natural sort key)
 *   booking::bcparks_1 / 0000000042                   a booking (unbounded partition:
 *                                                     an atomically incremented,
 *                                                     ordered, readable identifier)
 * GSI globalId: a UUID per booking and productDate, for direct lookups by
 * that id alone.
 *
 * A day's counter moves with the declared update product_date_reserve()
 * ("SET reserved = reserved + :party" when "reserved <= :most"): one
 * request, no read first, refused when the day is full.  A booking is one
 * transaction: booking_tx_create() and product_date_tx_reserve() (the
 * declared update's transaction form), so a full day cancels the booking
 * and consumes no booking number.  A booking starts
 * "held" (DDB_DEFAULT) and carries its creation and last-change times
 * (DDB_CREATED_AT in epoch ms, DDB_UPDATED_AT in ISO-8601).
 *
 * A geozone's polygon can exceed the 400 KB item limit: the geometry lives
 * outside the item (S3 in production, a blob directory next to an embedded
 * database) and the item keeps its reference, size and content hash. */
#ifndef RESERVATIONS_H
#define RESERVATIONS_H

#include <ddb/schema.h>

DDB_TABLE(reservations, "Reservations",
          DDB_PRIMARY("pk", "sk"),
          DDB_GSI("globalId", "gpk"),
          DDB_TYPE_ATTRIBUTE("schema"),
          DDB_STREAM("NEW_IMAGE"),   /* the search index follows the table through it */
          DDB_DELETION_PROTECTION);  /* in the infrastructure outputs (ddbgen --emit-infra) */

struct lat_lon {
    double lat;
    double lon;
};

struct DDB_ENTITY(reservations, "geozone")
       DDB_KEY("table", "geozone::{collection_id}", "{geozone_id}")
       DDB_PATTERN("in_collection", "table")
geozone {
    char collection_id[32] DDB_ATTR("collectionId");
    char geozone_id[32] DDB_ATTR("geozoneId");
    char name[64];
    struct lat_lon centroid;
    char geometry_ref[128] DDB_ATTR("geometryRef");     /* where the polygon lives */
    char geometry_hash[33] DDB_ATTR("geometryHash");    /* XXH3-128 of its bytes, hex */
    int64_t geometry_bytes DDB_ATTR("geometryBytes");
};

struct DDB_ENTITY(reservations, "productDate")
       DDB_KEY("table", "productDate::{collection_id}::{activity}::{product}", "{product}::{date}")
       DDB_KEY("globalId", "{global_id}")
       DDB_PATTERN("days", "table")
       DDB_PATTERN("by_global_id", "globalId")
       DDB_UPDATE("reserve", "SET reserved = reserved + :party", "reserved <= :most")
product_date {
    char collection_id[32] DDB_ATTR("collectionId");
    char activity[32];
    char product[16];
    char date[11];
    char global_id[37] DDB_UUID DDB_ATTR("globalId");
    int32_t capacity;
    int32_t reserved;
    uint32_t version DDB_VERSION;   /* two agents reserving the last spot: one wins */
};

struct DDB_ENTITY(reservations, "booking")
       DDB_KEY("table", "booking::{collection_id}", "{booking_no:010}")
       DDB_KEY("globalId", "{global_id}")
       DDB_PATTERN("by_collection", "table")
       DDB_PATTERN("by_global_id", "globalId")
       DDB_QUERY("parties", "by_collection", "", "party_size >= :min_party")
       DDB_CONDITION("unpaid", "attribute_exists(hold_until)")
booking {
    char collection_id[32] DDB_ATTR("collectionId");
    uint64_t booking_no DDB_AUTO_ID("booking::{collection_id}") DDB_ATTR("bookingNo");
    char global_id[37] DDB_UUID DDB_UNIQUE DDB_ATTR("globalId");
    char activity[32];
    char product[16];
    char date[11];
    char guest[64];
    char status[8] DDB_DEFAULT("held");                  /* until paid */
    int64_t created_at DDB_CREATED_AT DDB_ATTR("createdAt");
    char updated_at[25] DDB_UPDATED_AT DDB_ATTR("updatedAt");
    int32_t party_size DDB_ATTR("partySize");
    int64_t hold_until DDB_TTL DDB_ATTR("holdUntil");  /* unpaid hold: expires unless confirmed */
};

#endif
