/* A schema that states every table option the infrastructure outputs
 * carry (tests/infra/test_infra.py): a provisioned table with a stream,
 * deletion protection, TTL, a GSI with a numeric sort key and an INCLUDE
 * projection, a KEYS_ONLY GSI, an LSI; and an on-demand table beside it. */
#include <ddb/schema.h>
#include <stdint.h>

DDB_TABLE(events, "Events", DDB_PRIMARY("PK", "SK"),
          DDB_GSI("ByKind", "KindPK", "AtSK", DDB_PROJECT_INCLUDE("title", "note \"quoted\" ${x}")),
          DDB_GSI("ByOwner", "OwnerPK", DDB_PROJECT_KEYS_ONLY), DDB_LSI("ByTitle", "TitleSK"),
          DDB_STREAM("NEW_AND_OLD_IMAGES"), DDB_PROVISIONED(7, 3), DDB_DELETION_PROTECTION);

struct DDB_ENTITY(events, "Event") DDB_KEY("table", "EV#{id}", "EV#{id}")
    DDB_KEY("ByKind", "KIND#{kind}", "{at}") DDB_KEY("ByOwner", "OWNER#{owner}")
    DDB_KEY("ByTitle", "EV#{id}", "T#{title}") event {
    char id[16];
    char kind[16];
    int64_t at;
    char owner[16];
    char title[32];
    char *note DDB_ATTR("note \"quoted\" ${x}");
    int64_t expires DDB_TTL;
};

DDB_TABLE(audit, "Audit.log-2", DDB_PRIMARY("id"));

struct DDB_ENTITY(audit, "Entry") DDB_KEY("table", "{n}") entry {
    int64_t n;
    char what[32];
};
