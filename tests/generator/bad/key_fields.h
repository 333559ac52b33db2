/* DDB_KEY_FIELDS (a GSI keyed on the entity's own fields, DynamoDB's
 * multi-attribute keys: at most four attributes a side, each S, N or B,
 * global secondary indexes only — developer guide, "Multi-attribute keys
 * pattern"): five fields in a partition key, an unknown field, a bool
 * field, a field named twice, on the primary key and on an LSI, a template
 * index keyed by fields and a fields index keyed by a template, two
 * entities disagreeing on the attributes, and a declared index no entity
 * keys. */
#include <ddb/schema.h>

DDB_TABLE(games, "Games", DDB_PRIMARY("PK", "SK"),
          DDB_GSI("ByRound"),
          DDB_GSI("ByPlayer", "GSI1PK", "GSI1SK"),
          DDB_GSI("Unused"),
          DDB_LSI("Recent", "LSI1SK"));

struct DDB_ENTITY(games, "Match")
       DDB_KEY("table", "MATCH#{id}", "MATCH")
       DDB_KEY_FIELDS("ByRound", DDB_PK(t1, t2, t3, t4, t5), DDB_SK(round, rounds, final, round))
       DDB_KEY_FIELDS("ByPlayer", DDB_PK(t1))
       DDB_KEY_FIELDS("Recent", DDB_PK(t1), DDB_SK(round))
match {
    char id[16];
    char t1[8], t2[8], t3[8], t4[8], t5[8];
    int32_t round;
    bool final;
};

struct DDB_ENTITY(games, "Bracket")
       DDB_KEY("table", "BRACKET#{id}", "BRACKET")
       DDB_KEY("ByRound", "{t1}", "{round}")
bracket {
    char id[16];
    char t1[8];
    int32_t round;
};

struct DDB_ENTITY(games, "Seed")
       DDB_KEY_FIELDS("table", DDB_PK(id))
       DDB_KEY_FIELDS("ByRound", DDB_PK(t1, t2, t3, t4), DDB_SK(round))
seed {
    char id[16];
    char t1[8], t2[8], t3[8], t4[8];
    char round[8];
};
