/* The bounded fields alone can exceed DynamoDB's 400 KB item limit, and a
 * bounded key template can exceed the key size limits. */
#include <ddb/schema.h>

DDB_TABLE(docs, "Docs", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(docs, "Document")
       DDB_KEY("table", "DOC#{id}", "DOC")
document {
    char id[32];
    char body[300000];
    char summary[120000];
};

struct DDB_ENTITY(docs, "Page")
       DDB_KEY("table", "PAGE#{path}", "PAGE#{title}")
page {
    char path[3000];
    char title[1100];
};

/* Sharded: each shard is its own item and is checked alone (these fit). */
struct DDB_ENTITY(docs, "Book")
       DDB_KEY("table", "BOOK#{id}", "BOOK")
book {
    char id[32];
    char text[300000] DDB_SHARD("T");
    char notes[120000] DDB_SHARD("N");
};
