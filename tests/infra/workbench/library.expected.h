/* A draft schema from the NoSQL Workbench model "Library" (workbench/library.json), written by
 * ddbgen --import-workbench.  Review every TODO, then run ddbgen on it. */
#include <ddb/schema.h>

#include <stdbool.h>
#include <stdint.h>

DDB_TABLE(library, "Library", DDB_PRIMARY("pk", "sk"),
          DDB_GSI("ByAuthor", "byAuthorPK", "byAuthorSK", DDB_PROJECT_INCLUDE("title")),
          DDB_TYPE_ATTRIBUTE("entity"),
          DDB_PROVISIONED(5, 2));

struct DDB_ENTITY(library, "Branch")
       DDB_KEY("table", "BRANCH#{branchId}", "INFO")
branch {
    char branchId[64];
    char *city;
};

struct DDB_ENTITY(library, "Book")
       DDB_KEY("table", "BRANCH#{branchId}", "BOOK#{bookNo:06}")
       DDB_KEY("ByAuthor", "AUTHOR#{author}", "{title}")
book {
    char branchId[64];
    int64_t bookNo;
    char title[64];
    double price;
    char author[64];
    /* TODO: attribute "shelf" is of type M: declare a struct or a list for it */
};
