#!/bin/sh
# The sharded migration test on a remote endpoint: run_shards_remote.sh
# BINDIR N (the endpoint in DDB_TEST_URI, from tests/e2e/with_dynalite.sh).
# dynalite 3.2.2 has no TransactWriteItems, so it cannot hold a DDB_SHARD
# product (a product's shard items are written in one transaction): the
# table holds the write-sharded events only.  The whole plan (whose
# product step needs transactions) is refused before anything is
# written, and the table stays version 1's; the events' step alone (one
# item a logical item: a conditional put and delete) moves them.
set -eu
bin=$1 n=$2 db=$DDB_TEST_URI
step() { echo "== $*"; "$@"; }
step "$bin/shards_v1" populate "$db" "$n" events
step "$bin/shards_v2" no-tx "$db" "$n"
step "$bin/shards_v1" verify "$db" "$n" events
step "$bin/shards_v2" migrate-events "$db" "$n" | tee /dev/stderr | grep -q "moved $n rewritten 0 "
step "$bin/shards_v2" verify "$db" "$n" events
echo "test_migrate_shards_dynalite: ok"
