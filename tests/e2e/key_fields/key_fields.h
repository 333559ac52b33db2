/* key_fields.h — a global secondary index keyed on the entity's own fields
 * (DDB_KEY_FIELDS: DynamoDB's multi-attribute keys) for test_key_fields.c:
 * a partition of two strings, a sort key of a number, a string and a
 * floating number, a declared query over it, a sparse index on an
 * optional field, and one whose sort key is binary. */
#ifndef KEY_FIELDS_H
#define KEY_FIELDS_H

#include <ddb/schema.h>

DDB_TABLE(mk, "Matches", DDB_PRIMARY("PK", "SK"), DDB_GSI("ByRound"), DDB_GSI("ByReferee", DDB_PROJECT_KEYS_ONLY),
          DDB_GSI("BySeal"));

struct DDB_ENTITY(mk, "Match")
       DDB_KEY("table", "MATCH#{match_id}", "MATCH")
       DDB_KEY_FIELDS("ByRound", DDB_PK(tournament, region), DDB_SK(round, bracket, score))
       DDB_PATTERN("by_round", "ByRound")
       DDB_QUERY("in_bracket", "by_round", "round = :r AND bracket = :b AND score >= :s", "winner <> :w")
       DDB_KEY_FIELDS("ByReferee", DDB_PK(referee), DDB_SK(round), DDB_SPARSE)
       DDB_PATTERN("by_referee", "ByReferee")
       DDB_KEY_FIELDS("BySeal", DDB_PK(region), DDB_SK(seal), DDB_SPARSE)
       DDB_PATTERN("by_seal", "BySeal")
       DDB_QUERY("sealed", "by_seal", "begins_with(seal, :prefix)")
match {
    char match_id[16];
    char tournament[16];
    char region[8];
    int32_t round;
    char bracket[8];
    double score;
    char winner[16];
    char *referee;
    ddb_bytes seal;
};

#endif
