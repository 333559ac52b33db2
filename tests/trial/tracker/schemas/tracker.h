/* tracker.h — an issue tracker written the way a user of ddbgen would:
 * projects (a unique slug, a version, a declared rename and condition),
 * issues numbered per project (auto ids) on a sparse status index (a
 * closed issue has no status and leaves it), declared queries with and
 * without filters, declared updates guarded by conditions; comments kept
 * under their issue in the project's partition (the `board` collection);
 * notifications that expire (TTL); per-project counters split into a hot
 * shard (bumped on every event) and a cold one.  Trial test schema
 * (tests/trial/). */
#ifndef TRACKER_H
#define TRACKER_H

#include <ddb/schema.h>
#include <stdbool.h>
#include <stdint.h>

DDB_TABLE(trk, "Tracker",
          DDB_PRIMARY("PK", "SK"),
          DDB_GSI("ByStatus", "StatusPK", "StatusSK"),
          DDB_GSI("ByAssignee", "AsgPK", "AsgSK", DDB_PROJECT_INCLUDE("title", "status")),
          DDB_TYPE_ATTRIBUTE("type"));

struct DDB_ENTITY(trk, "Project")
       DDB_KEY("table", "PROJ#{key}", "#PROJECT")
       DDB_COLLECTION("board", "table")
       DDB_UPDATE("rename", "SET title = :t")
       DDB_UPDATE("archive", "SET archived = :yes", "archived = :no")
       DDB_CONDITION("active", "archived = :no")
project {
    char key[12];
    char title[64];
    char *slug DDB_UNIQUE;
    bool archived;
    uint32_t version DDB_VERSION;
    int64_t created_ms DDB_CREATED_AT;
};

struct DDB_ENTITY(trk, "Issue")
       DDB_KEY("table", "PROJ#{project}", "ISSUE#{number:06}")
       DDB_KEY("ByStatus", "PROJ#{project}#{status}", "{priority}#{number:06}")
       DDB_KEY("ByAssignee", "USER#{assignee}", "{project}#{number:06}")
       DDB_COLLECTION("board", "table")
       DDB_PATTERN("by_status", "ByStatus")
       DDB_PATTERN("assigned_to", "ByAssignee")
       DDB_QUERY("numbered", "table", "number BETWEEN :lo AND :hi", "points >= :min")
       DDB_QUERY("urgent", "by_status", "priority <= :p")
       DDB_SCAN("unassigned", "attribute_not_exists(assignee) AND attribute_exists(status)")
       DDB_CONDITION("in_status", "status = :s")
       /* the ByStatus key is written whole: its sort key's priority is set too */
       DDB_UPDATE("move", "SET status = :to, priority = :p", "status = :from")
       /* REMOVE of the sparse key field: the issue leaves ByStatus (trial finding F1) */
       DDB_UPDATE("close", "REMOVE status SET closed_at = :at", "attribute_exists(status)")
       DDB_UPDATE("stamp_closed", "SET closed_at = :at", "attribute_exists(status)")
       DDB_UPDATE("estimate", "SET points = :p")
       DDB_UPDATE("label", "ADD labels :l")
       DDB_HEAT_OK("ByStatus", "a project has a few hundred open issues")
issue {
    char project[12];
    uint32_t number DDB_AUTO_ID("ISSUESEQ#{project}");
    char title[120];
    char *status;                          /* sparse: a closed issue is not on ByStatus */
    char priority[3] DDB_DEFAULT("P2");
    char *assignee;                        /* sparse: unassigned issues are not on ByAssignee */
    int32_t points;
    char *closed_at;
    ddb_string_set labels;
    uint32_t version DDB_VERSION;
};

/* comments right after their issue: "ISSUE#000007", "ISSUE#000007#C#..."
 * (a digit hole never holds '#': no collision, trial finding F2) */
struct DDB_ENTITY(trk, "Comment")
       DDB_KEY("table", "PROJ#{project}", "ISSUE#{issue:06}#C#{posted_ms:015}")
       DDB_COLLECTION("board", "table")
comment {
    char project[12];
    uint32_t issue;
    int64_t posted_ms;
    char author[24];
    char *body;
};

struct DDB_ENTITY(trk, "Notice")
       DDB_KEY("table", "USER#{user}", "NOTICE#{id}")
notice {
    char user[24];
    char id[37] DDB_UUID;
    char text[100];
    int64_t expires DDB_TTL;
};

struct DDB_ENTITY(trk, "Stats")
       DDB_KEY("table", "PROJ#{project}", "#STATS")
       DDB_UPDATE("opened", "ADD open_count :one, events :one")
       DDB_UPDATE("closed", "ADD open_count :minus, events :one")
stats {
    char project[12];
    int64_t open_count DDB_SHARD("hot");
    int64_t events DDB_SHARD("hot");
    char description[200] DDB_SHARD("cold");
};

#endif
