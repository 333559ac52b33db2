#!/bin/sh
# The default-backfill migration test (issue 25, defect 5):
# run_default.sh SRCDIR BINDIR DB N DDB_TOOL DDBGEN MODULE.
# Version 2 adds two fields with a DDB_DEFAULT (a required int64_t, an
# optional char *) and an index on the string.  N devices of version 1
# are migrated by the plan (a rewrite, no transform, no C code: MODULE is
# version 2's generated code alone), then N more devices written by
# version 1 are backfilled by site_open_with(.backfill = true); every
# device then reads with the defaults and is in the new index.
# DB "-": the endpoint in DDB_TEST_URI (a private `ddb serve`).
set -eu
src=$1 bin=$2 db=$3 n=$4 tool=$5 ddbgen=$6 module=$7
remote_work=default_remote
. "$src/target.sh"
step "$bin/default_v1" populate "$db" 0 "$n"
step "$ddbgen" --emit-model "$w/v1.model.json" -I "$src" "$src/default_v1.h"
step "$bin/default_v2" refused "$db" 0 "$n"
step "$ddbgen" --plan-migration "$w/v1.model.json" --plan-out "$w/plan.json" -I "$src" "$src/default_v2.h"
cat "$w/plan.json"
if grep -q '"transform"' "$w/plan.json"; then echo "the plan asks for a transform" >&2; exit 1; fi
grep -q 'DDB_DEFAULT' "$w/plan.json"
# the way back (--down): the devices leave ByZone, which is dropped; the new fields stay, unread
step "$ddbgen" --plan-migration "$w/v1.model.json" --down --plan-out "$w/down.json" -I "$src" "$src/default_v2.h"
grep -q '"ByZone"' "$w/down.json"
grep -q "leaves index 'ByZone'" "$w/down.json"
step "$tool" --db "$db" migrate --module "$module" "$w/plan.json" | tee "$w/report.txt"
grep -q " $n rewritten" "$w/report.txt"
step "$bin/default_v2" verify "$db" 0 "$n"
check
# version 1 writes more devices (it leaves the index: accepted), version 2's open backfills them
step "$bin/default_v1" populate "$db" "$n" $((2 * n))
step "$bin/default_v2" refused "$db" 0 "$n"
step "$bin/default_v2" backfill "$db" 0 "$n"
step "$bin/default_v2" verify "$db" 0 $((2 * n))
check
echo "test_migrate_default: ok"
