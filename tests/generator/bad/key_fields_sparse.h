/* An optional field in a key of fields keeps items without it out of the
 * index (DynamoDB indexes only items that carry every key attribute of a
 * GSI: developer guide, "Multi-attribute keys pattern", sparse indexes):
 * a warning unless DDB_SPARSE says it is meant.  Malformed DDB_KEY_FIELDS
 * arguments are errors, and so is a collection on an index keyed on fields. */
#include <ddb/schema.h>

DDB_TABLE(svc, "Services", DDB_PRIMARY("PK", "SK"), DDB_GSI("Vouchers"), DDB_GSI("ByCode"), DDB_GSI("Empty"));

struct DDB_ENTITY(svc, "Service")
       DDB_KEY("table", "CLIENT#{client}", "SERVICE#{id}")
       DDB_KEY_FIELDS("Vouchers", DDB_PK(voucher), DDB_SK(id))
       DDB_KEY_FIELDS("ByCode", DDB_PK(code), DDB_SK(id), DDB_SPARSE)
       DDB_COLLECTION("codes", "ByCode")
       DDB_KEY_FIELDS("Empty", DDB_PK())
       DDB_KEY_FIELDS("Empty", DDB_SK(id), DDB_PK(id))
service {
    char client[16];
    char id[16];
    char *voucher;
    ddb_bytes code;
};
