/* music.h — a music-streaming catalogue written the way a user of ddbgen
 * would, to exercise the READ side: artists split into a hot shard (plays,
 * followers) and a cold one (bio), their tracks under albums (a two-level
 * sort key: album, then track number), a KEYS_ONLY index of tracks by
 * genre and year, an INCLUDE chart index (title, plays), listens that
 * expire (TTL), declared queries with filters and a declared scan.  Trial
 * test schema (tests/trial/). */
#ifndef MUSIC_H
#define MUSIC_H

#include <ddb/schema.h>
#include <stdbool.h>
#include <stdint.h>

DDB_TABLE(mus, "Music",
          DDB_PRIMARY("pk", "sk"),
          DDB_GSI("ByGenre", "gpk", "gsk", DDB_PROJECT_KEYS_ONLY),
          DDB_GSI("Charts", "cpk", "csk", DDB_PROJECT_INCLUDE("title", "plays")));

struct DDB_ENTITY(mus, "Artist")
       DDB_KEY("table", "ARTIST#{artist}", "#META")
       DDB_SHARD_SUFFIX("~")
       DDB_COLLECTION("discography", "table")
artist {
    char artist[24];
    char name[64] DDB_SHARD("A");
    int64_t followers DDB_SHARD("A");
    char *bio DDB_SHARD("B");
};

struct DDB_ENTITY(mus, "Track")
       DDB_KEY("table", "ARTIST#{artist}", "ALBUM#{album}#T#{no:03}")
       DDB_KEY("ByGenre", "GENRE#{genre}", "{year:04}#{track_id}")
       DDB_KEY("Charts", "CHART#{genre}", "{plays:012}#{track_id}")
       DDB_PATTERN("by_genre", "ByGenre")
       DDB_PATTERN("chart", "Charts")
       DDB_COLLECTION("discography", "table")
       DDB_QUERY("long_on_album", "table", "album = :album", "seconds > :s")
       DDB_QUERY("years", "by_genre", "year BETWEEN :lo AND :hi")
       DDB_SCAN("popular", "plays >= :n")
track {
    char artist[24];
    char album[32];
    int32_t no;
    char track_id[16];
    char title[64];
    char genre[16];
    int32_t year;
    int64_t plays;
    int32_t seconds;
};

struct DDB_ENTITY(mus, "Listen")
       DDB_KEY("table", "USER#{user}", "LISTEN#{at_ms:015}")
listen {
    char user[24];
    int64_t at_ms;
    char track_id[16];
    int64_t expires DDB_TTL;
};

#endif
