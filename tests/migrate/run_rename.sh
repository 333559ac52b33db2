#!/bin/sh
# The rename/remove migration test (issue 25, defect 2):
# run_rename.sh SRCDIR BINDIR DB N DDB_TOOL DDBGEN MODULE.
# Version 1 stores alerts, probes and tags; version 2 renames Alert to
# Notice (DDB_RENAMED_FROM, with new key templates) and its field severity
# to level, removes Probe (DDB_REMOVED "delete") and Tag ("keep").  A
# version 2 that says nothing of them cannot be planned (located errors:
# the items would be orphaned) nor pass --check-compat with an empty plan;
# bad uses of the decorators are located errors; the plan renames and
# deletes; the dry run counts; the run (one item a page, interrupted by
# SIGKILL and resumed) renames every alert and deletes every probe, keeps
# the tags; run again (ddb migrate, and the generated
# fleet_migrate_from_old) it changes nothing; version 2 reads the notices.
# DB "-": the endpoint in DDB_TEST_URI (a private `ddb serve`), the work
# files in BINDIR/rename_remote.work, and no `ddb check`.
set -eu
src=$1 bin=$2 db=$3 n=$4 tool=$5 ddbgen=$6 module=$7
remote_work=rename_remote
. "$src/target.sh"
step "$bin/rename_v1" populate "$db" "$n"
step "$ddbgen" --emit-model "$w/v1.model.json" -I "$src" "$src/rename_v1.h"
# nothing said: no plan, and the build gate does not take an empty one
echo '{"format": "ddbgen-migration-plan", "version": 1, "id": "plan-0000000000000000", "tables": []}' > "$w/empty.json"
if "$ddbgen" --plan-migration "$w/v1.model.json" --plan-out "$w/unsaid.json" -I "$src" "$src/rename_unsaid.h" \
    > "$w/unsaid.txt" 2>&1; then
    cat "$w/unsaid.txt"; echo "a plan was written for entities removed without a word" >&2; exit 1
fi
cat "$w/unsaid.txt"
grep -q "rename_unsaid.h:[0-9]*:[0-9]*: error: entity 'Alert' was removed or renamed" "$w/unsaid.txt"
grep -q "DDB_RENAMED_FROM(\"Alert\")" "$w/unsaid.txt"
if "$ddbgen" --check-compat "$w/v1.model.json" --migration-plan "$w/empty.json" -I "$src" "$src/rename_unsaid.h" \
    > "$w/gate.txt" 2>&1; then
    cat "$w/gate.txt"; echo "--check-compat accepted removed entities" >&2; exit 1
fi
# bad uses, each located
if "$ddbgen" --emit-model "$w/bad.json" -I "$src" "$src/rename_bad.h" > "$w/bad.txt" 2>&1; then
    echo "rename_bad.h was accepted" >&2; exit 1
fi
cat "$w/bad.txt"
grep -q "rename_bad.h:7:[0-9]*: error: DDB_REMOVED(\"Notice\", ...) in table 'fleet': entity 'Notice' is still declared" "$w/bad.txt"
grep -q "rename_bad.h:7:[0-9]*: error: DDB_REMOVED takes" "$w/bad.txt"
grep -q "rename_bad.h:9:[0-9]*: error: DDB_RENAMED_FROM(\"Notice\") on 'Notice' names the entity itself" "$w/bad.txt"
grep -q "rename_bad.h:13:[0-9]*: error: DDB_RENAMED_FROM(\"level\") on field 'level'" "$w/bad.txt"
grep -q "rename_bad.h:16:[0-9]*: error: DDB_RENAMED_FROM(\"Notice\") on 'Memo'" "$w/bad.txt"
# said: the change is breaking alone, planned, and covered by its plan
if "$ddbgen" --check-compat "$w/v1.model.json" -I "$src" "$src/rename_v2.h" > "$w/compat.txt" 2>&1; then
    echo "--check-compat accepted a rename without a plan" >&2; exit 1
fi
grep -q "entity 'Alert' is now 'Notice' (DDB_RENAMED_FROM)" "$w/compat.txt"
grep -q "entity 'Tag' was removed (DDB_REMOVED, \"keep\"): compatible" "$w/compat.txt"
step "$ddbgen" --plan-migration "$w/v1.model.json" --plan-out "$w/plan.json" -I "$src" "$src/rename_v2.h"
grep -q '"renamed_from": "Alert"' "$w/plan.json"
grep -q '"migration": "delete"' "$w/plan.json"
step "$ddbgen" --check-compat "$w/v1.model.json" --migration-plan "$w/plan.json" -I "$src" "$src/rename_v2.h"
# no way back: a down plan says why, located
if "$ddbgen" --plan-migration "$w/v1.model.json" --down -I "$src" "$src/rename_v2.h" > "$w/down.txt" 2>&1; then
    cat "$w/down.txt"; echo "a down plan was written for a rename and a deletion" >&2; exit 1
fi
grep -q "error: not reversible: entity 'Probe' was removed and its items deleted" "$w/down.txt"
grep -q "rename_v2.h:[0-9]*:[0-9]*: error: not reversible by a plan: 'Notice' was renamed from 'Alert'" "$w/down.txt"
step "$tool" --db "$db" migrate --module "$module" --dry-run "$w/plan.json" | tee "$w/dry.txt"
grep -q "$((n / 2 + n % 2)) items of removed entities to delete" "$w/dry.txt"
grep -q "$n moved to a new key" "$w/dry.txt"
# the dry run's capacity counts the writes too (issue 25: reads only): at
# least two write units (DynamoDB's transactional write of an item up to
# 1 KB) for each alert's put and delete and each probe's delete
cu=$(sed -n 's/.*already in their new form, \([0-9]*\) capacity units (the reads, and the writes.*/\1/p' "$w/dry.txt")
[ -n "$cu" ] && [ "$cu" -ge $((2 * (2 * n + n / 2))) ] || { echo "dry run capacity \"$cu\" counts no writes" >&2; exit 1; }
echo "== ddb migrate, killed after its first pages"
"$tool" --db "$db" migrate --module "$module" --page-size 1 "$w/plan.json" > "$w/killed.txt" 2>&1 &
pid=$!
i=0
until grep -q "scanned" "$w/killed.txt" 2>/dev/null || [ $i -ge 200 ]; do sleep 0.05; i=$((i + 1)); done
kill -9 $pid 2>/dev/null || true
wait $pid 2>/dev/null || true
cat "$w/killed.txt"
# the progress says "moved" as the report does (it said "rewritten")
grep -q "items scanned, [0-9]* moved, [0-9]* rewritten, " "$w/killed.txt"
step "$tool" --db "$db" migrate --module "$module" "$w/plan.json" | tee "$w/report.txt"
check
step "$tool" --db "$db" migrate --module "$module" "$w/plan.json" | tee "$w/again.txt"
grep -q " 0 moved to a new key, 0 rewritten" "$w/again.txt"
step "$bin/rename_v2" migrate-generated "$db" "$n"
step "$bin/rename_v2" verify "$db" "$n"
check
echo "test_migrate_rename: ok"
