#!/bin/sh
# The sharded migration test: run_shards.sh BINDIR DB N DDB_TOOL.  Version
# 1 writes N products (two DDB_SHARD items each) and N write-sharded events;
# version 2 changes both key templates (every item moves), moves a field
# between shards and changes an event field's type (a transform from the
# generated struct event_old).  The migration is SIGKILLed after a few pages
# and resumed; its report counts every logical item moved once, the killed
# run's included (2N moved: a product's shard items move together, in one
# transaction); version 2's
# reads answer, `ddb check` is clean, and running the migration again
# changes nothing (idempotent).
set -eu
bin=$1 db=$2 n=$3 tool=$4
step() { echo "== $*"; "$@"; }
rm -rf "$db" "$db.work" && mkdir -p "$db.work"
step "$bin/shards_v1" populate "$db" "$n"
step "$bin/shards_v1" verify "$db" "$n"
step "$bin/shards_v2" refuse "$db" "$n" "migrate the items"
echo "== shards_v2 migrate (to be killed)"
set +e; "$bin/shards_v2" migrate "$db" "$n" 5; st=$?; set -e
[ "$st" -eq 137 ] || { echo "expected SIGKILL (137), got $st" >&2; exit 1; }
step "$bin/shards_v2" refuse "$db" "$n" "a migration is in progress"
step "$bin/shards_v2" migrate "$db" "$n" | tee "$db.work/report.txt"
# (items met again further along the scan, already moved, count as unchanged)
grep -q "resumed 1 moved $((2 * n)) rewritten 0 unchanged [0-9]*$" "$db.work/report.txt"
step "$bin/shards_v2" verify "$db" "$n"
step "$tool" check "$db"
# again: every item is in its new form already
step "$bin/shards_v2" migrate "$db" "$n" | tee "$db.work/again.txt"
grep -q "resumed 0 moved 0 rewritten 0 unchanged $((2 * n))$" "$db.work/again.txt"
step "$bin/shards_v2" verify "$db" "$n"
echo "test_migrate_shards: ok"
