#!/bin/sh
# The unique-claim migration test: run_unique.sh SRCDIR BINDIR DB N DDB_TOOL DDBGEN MODULE [FIX].
# Version 1 stores N guests, two of them with one nick; version 2 makes
# nick DDB_UNIQUE.  --check-compat refuses the change alone and accepts it
# with the plan, whose Guest entry is a "claim" of nick; the dry run lists
# the duplicate with both keys (and fails); the real run stops at it with
# DDB_ECONDITION naming the field, the value and both items, keeping the
# claims made; after the duplicate is fixed the run goes on and claims
# every stored nick; run again (by `ddb migrate`, and by the generated
# club_migrate_from_old) it changes nothing; version 2's writes then hold
# the constraint.  Version 2's open refuses the table before the claims.
# FIX "holder" (default "g7": guest 7's nick changes): one item a scan
# page (--page-size 1, so the item that claimed "nick3" first lies before
# the checkpoint) and the duplicate is fixed on the item that holds the
# claim; the resumed run must claim its new value too, and check that
# every stored value is claimed (issue 25: it reported success with one
# claim missing).
# DB "-": the endpoint in DDB_TEST_URI (a private `ddb serve`, from
# tests/serve/with_serve.py: the remote backend's transactions), the work
# files in BINDIR/unique_remote_FIX.work, and no `ddb check`.
set -eu
src=$1 bin=$2 db=$3 n=$4 tool=$5 ddbgen=$6 module=$7 fix=${8:-g7}
pages=
if [ "$fix" = holder ]; then pages="--page-size 1"; fi
remote_work=unique_remote_$fix
. "$src/target.sh"
step "$bin/unique_v1" populate "$db" "$n"
step "$ddbgen" --emit-model "$w/v1.model.json" -I "$src" "$src/unique_v1.h"
# version 2's module refuses the stored items until their values are claimed
step "$bin/unique_v2" refused "$db" "$n"
if "$ddbgen" --check-compat "$w/v1.model.json" -I "$src" "$src/unique_v2.h" > "$w/compat.txt" 2>&1; then
    echo "--check-compat accepted DDB_UNIQUE without a plan" >&2; exit 1
fi
grep -q "is now DDB_UNIQUE" "$w/compat.txt"
step "$ddbgen" --plan-migration "$w/v1.model.json" --plan-out "$w/plan.json" -I "$src" "$src/unique_v2.h"
grep -q '"migration": "claim"' "$w/plan.json"
grep -q '"claims"' "$w/plan.json"
step "$ddbgen" --check-compat "$w/v1.model.json" --migration-plan "$w/plan.json" -I "$src" "$src/unique_v2.h"
echo "== ddb migrate --dry-run (lists the duplicate, fails)"
if "$tool" --db "$db" migrate --module "$module" --dry-run "$w/plan.json" > "$w/dry.txt" 2>&1; then
    cat "$w/dry.txt"; echo "the dry run did not fail on a duplicate" >&2; exit 1
fi
cat "$w/dry.txt"
grep -q 'duplicate: Guest.nick = "nick3": items GUEST#g[37]/GUEST and GUEST#g[37]/GUEST' "$w/dry.txt"
grep -q "GUEST#g3/" "$w/dry.txt" && grep -q "GUEST#g7/" "$w/dry.txt"
grep -q "$((n - 1)) unique values to claim" "$w/dry.txt"
echo "== ddb migrate (stops at the duplicate)"
if "$tool" --db "$db" migrate --module "$module" $pages "$w/plan.json" > "$w/stop.txt" 2>&1; then
    cat "$w/stop.txt"; echo "the migration went past a duplicate" >&2; exit 1
fi
cat "$w/stop.txt"
grep -q 'Guest.nick is DDB_UNIQUE, but the value "nick3" is held by item GUEST#g[37]|GUEST (its claim) and by item GUEST#g[37]/GUEST' "$w/stop.txt"
# ddb migrate status: the migration in progress, stopped at its first step
step "$tool" --db "$db" migrate status Club | tee "$w/status.txt"
grep -q "Club: in progress: plan-[0-9a-f]*, step 1/1, [0-9]* items scanned" "$w/status.txt"
grep -q "Club: no migration in progress" "$w/status.txt" && exit 1
if [ "$fix" = holder ]; then
    step "$bin/unique_v2" fix-holder "$db" "$n"
else # with ddb update, no JSON item to edit (issue 25)
    step "$tool" --db "$db" update Club --pk GUEST#g7 --sk GUEST --update 'SET #n = :n' --names '{"#n":"nick"}' \
        --values '{":n":{"S":"nick7"}}' | tee "$w/update.txt"
    grep -q '"nick":{"S":"nick7"}' "$w/update.txt"
fi
step "$tool" --db "$db" migrate --module "$module" $pages "$w/plan.json" | tee "$w/report.txt"
grep -q "resumed from its checkpoint" "$w/report.txt"
grep -q "$((n - 1)) unique values claimed, each checked" "$w/report.txt"
step "$bin/unique_v2" verify-claims "$db" "$n"
check
# again from the start: every claim is held by its own item already
step "$tool" --db "$db" migrate --module "$module" "$w/plan.json" | tee "$w/again.txt"
grep -q "$((n - 1)) unique values claimed, each checked" "$w/again.txt"
# the history: both runs that ended, recorded in the table, and the data's model
id=$(sed -n 's/.*"id": "\(plan-[0-9a-f]*\)".*/\1/p' "$w/plan.json")
step "$tool" --db "$db" migrate status Club | tee "$w/status.txt"
grep -q "Club: data model $id" "$w/status.txt"
grep -q "Club: no migration in progress" "$w/status.txt"
grep -q "Club: 2 applied migrations recorded" "$w/status.txt"
[ "$(grep -c "^  [12]\. $id ok [0-9T:-]*Z libddb " "$w/status.txt")" -eq 2 ]
# and through the step generated from the plan (the old forms' club_migrate_from_old)
step "$bin/unique_v2" migrate-generated "$db" "$n"
step "$bin/unique_v2" verify "$db" "$n"
# which records the plan's model too (the old forms carry it): the model the
# table records is the schema's, so the next plan from it changes nothing
step "$tool" --db "$db" migrate status Club | tee "$w/status.txt"
grep -q "^  3\. $id ok .* (schema model recorded)$" "$w/status.txt"
step "$ddbgen" --plan-migration --from-table "$db" Club --plan-out "$w/next.json" -I "$src" "$src/unique_v2.h"
grep -q '"tables": \[\]' "$w/next.json"
check
echo "test_migrate_unique: ok"
