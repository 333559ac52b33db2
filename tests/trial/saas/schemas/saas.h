/* saas.h — a multi-tenant SaaS written the way a user of ddbgen would:
 * organizations, their users (unique email, an inverted index to find a
 * user's organizations, a sparse KEYS_ONLY email index, an LSI by join
 * day), invitations that expire (TTL) and an audit log whose flagged
 * events sit on a sparse INCLUDE index.  Not a copy of schemas/: the trial
 * tests (tests/trial/) build it outside the repository's own build. */
#ifndef SAAS_H
#define SAAS_H

#include <ddb/schema.h>
#include <stdbool.h>
#include <stdint.h>

DDB_TABLE(saas, "Saas",
          DDB_PRIMARY("PK", "SK"),
          DDB_GSI("Inverted", "SK", "PK"),
          DDB_GSI("ByEmail", "EmailPK", "EmailSK", DDB_PROJECT_KEYS_ONLY),
          DDB_GSI("Flagged", "FlagPK", "FlagSK", DDB_PROJECT_INCLUDE("action", "actor")),
          DDB_LSI("ByJoined", "JoinedSK"),
          DDB_TYPE_ATTRIBUTE("kind"));

struct DDB_ENTITY(saas, "Org")
       DDB_KEY("table", "ORG#{org_id}", "#META")
       DDB_COLLECTION("tenant", "table")
       DDB_UPDATE("rename", "SET name = :name")
       DDB_UPDATE("add_seats", "ADD seats :n")
       DDB_CONDITION("on_plan", "plan = :plan")
org {
    char org_id[24];
    char name[64];
    char plan[16] DDB_DEFAULT("free");
    int32_t seats;
    int64_t created_ms DDB_CREATED_AT;
    char updated[25] DDB_UPDATED_AT;
    uint32_t version DDB_VERSION;
};

struct DDB_ENTITY(saas, "User")
       DDB_KEY("table", "ORG#{org_id}", "USER#{user_id}")
       DDB_KEY("Inverted", "USER#{user_id}", "ORG#{org_id}")
       DDB_KEY("ByEmail", "EMAIL#{email|lower}", "USER")
       DDB_KEY("ByJoined", "ORG#{org_id}", "J#{joined}#{user_id}")
       DDB_COLLECTION("tenant", "table")
       DDB_PATTERN("orgs_of", "Inverted")
       DDB_PATTERN("by_email", "ByEmail")
       DDB_PATTERN("by_joined", "ByJoined")
       DDB_QUERY("with_role", "table", "", "role = :role")
       DDB_QUERY("joined_between", "by_joined", "joined BETWEEN :from AND :to")
       DDB_SCAN("idle", "logins < :n AND attribute_not_exists(disabled)")
       DDB_CONDITION("enabled", "attribute_not_exists(disabled)")
       DDB_UPDATE("login", "SET last_login = :at ADD logins :one")
       DDB_UPDATE("disable", "SET disabled = :why", "attribute_not_exists(disabled)")
       DDB_UPDATE("enable", "REMOVE disabled")
       DDB_UPDATE("tag", "ADD tags :t")
       DDB_UPDATE("untag", "DELETE tags :t")
       DDB_UPDATE("set_name", "SET name = if_not_exists(name, :n)")
user {
    char org_id[24];
    char user_id[24];
    char *email DDB_UNIQUE;
    char role[16] DDB_DEFAULT("member");
    char joined[11];                     /* YYYY-MM-DD */
    int32_t logins;
    char *last_login;
    char *disabled;
    char *name DDB_ATTR("n");
    ddb_string_set tags;
    int64_t created_ms DDB_CREATED_AT;
};

struct DDB_ENTITY(saas, "Invite")
       DDB_KEY("table", "ORG#{org_id}", "INVITE#{email|lower}")
       DDB_COLLECTION("tenant", "table")
invite {
    char org_id[24];
    char email[128];
    char token[37] DDB_UUID;
    int64_t expires_at DDB_TTL DDB_ATTR("ttl");
};

struct DDB_ENTITY(saas, "Audit")
       DDB_KEY("table", "ORG#{org_id}", "AUDIT#{seq:010}")
       DDB_KEY("Flagged", "FLAG#{flag}", "{at}#{org_id}")
       DDB_PATTERN("flagged", "Flagged")
       DDB_HEAT_OK("Flagged", "a handful of flagged events a day")
audit {
    char org_id[24];
    uint64_t seq DDB_AUTO_ID("AUDITSEQ#{org_id}");
    char at[25];
    char action[32];
    char actor[24];
    char *flag;                           /* sparse: only flagged events are on Flagged */
    char day[11] DDB_DERIVED("{at|year}-{at|month}-{at|day}");
    ddb_bytes payload;
};

#endif
