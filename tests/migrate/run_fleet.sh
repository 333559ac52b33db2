#!/bin/sh
# The fleet-telemetry scenario: run_fleet.sh SRCDIR BINDIR DB N DDB_TOOL
# DDBGEN MODULE_V2 MODULE_V3 MODULE_V4 (each version's generated module,
# linked with libddb.so, for `ddb migrate --module`).  About N items of
# version 1 (velocity-sharded devices, readings, drivers) go through three
# changes as a team runs them, each planned from the model recorded in the
# table (ddbgen --plan-migration --from-table), dry-run and run:
#   1. fields with a DDB_DEFAULT and a new index on each (the sharded
#      device's in its "spec" shard): backfilled by the plan, no code;
#   2. a reading's sort key template changed: every reading moves; the run
#      is killed by SIGKILL at a checkpoint (DDB_MIGRATE_KILL_AFTER) and
#      resumed; then taken back down to version 2 (--down, run with version
#      2's module, which reads everything again) and up again;
#   3. DDB_UNIQUE on a driver's badge with one duplicate: the dry run and
#      the run report it, `ddb update` fixes it, the resumed run claims
#      every badge.
# After each: every item once in its new form, the indexes complete, `ddb
# check` clean.  docs/SCHEMA.md ("A migration, as a team runs it") walks
# through these same commands.  DB "-": the endpoint in DDB_TEST_URI (a
# private `ddb serve`).
set -eu
src=$1 bin=$2 db=$3 n=$4 tool=$5 ddbgen=$6 mod2=$7 mod3=$8 mod4=$9
remote_work=fleet_remote
. "$src/target.sh"
migrate() { step "$tool" --db "$db" migrate "$@"; }
# run MODULE ARGS...: a migration run with MODULE (the target version's); a
# resumable run survives a crash of its process with lazy syncs
run() { mod=$1; shift; migrate --module "$mod" --sync lazy "$@"; }
status() { migrate status Fleet | tee "$w/status.txt"; }
# plan V OUT: the plan from the model recorded in the table to fleet_vV.h
plan() { step "$ddbgen" --plan-migration --from-table "$db" Fleet --plan-out "$2" -I "$src" "$src/fleet_v$1.h"; }
id_of() { sed -n 's/^  "id": "\(plan-[0-9a-f]*\)",$/\1/p' "$1"; }
fails() { # the command must fail (exit 1), its output in $w/fail.txt
    echo "== $* (must fail)"
    if "$@" > "$w/fail.txt" 2>&1; then cat "$w/fail.txt"; echo "it did not fail" >&2; exit 1; fi
    cat "$w/fail.txt"
}

# 0. version 1 is deployed; its model is recorded in the table as the baseline
step "$bin/fleet_v1" populate "$db" "$n"
step "$ddbgen" --emit-model "$w/v1.model.json" -I "$src" "$src/fleet_v1.h"
status
grep -q "^Fleet: no schema model recorded" "$w/status.txt"
fails "$ddbgen" --plan-migration --from-table "$db" Fleet -I "$src" "$src/fleet_v2.h"
grep -q "records no schema model: record the deployed one first (ddb migrate baseline Fleet MODEL.json" "$w/fail.txt"
migrate baseline Fleet "$w/v1.model.json"
# a mistyped directory is an error, not a new database; --from-table needs both its arguments
if [ "$3" != "-" ]; then
    fails "$ddbgen" --plan-migration --from-table "$w/no-such-db" Fleet -I "$src" "$src/fleet_v2.h"
    grep -q "no database in .*no-such-db" "$w/fail.txt"
    [ ! -e "$w/no-such-db" ]
fi
set +e; "$ddbgen" --plan-migration --from-table "$db" -I "$src" "$src/fleet_v2.h" 2> "$w/fail.txt"; st=$?; set -e
[ "$st" -eq 2 ] && grep -q "needs the database URI and the table" "$w/fail.txt"

# 1. defaults and new indexes
plan 2 "$w/plan2.json"
grep -q "new field 'firmware' with DDB_DEFAULT(\\\\\"1.0\\\\\")" "$w/plan2.json"
grep -q "new field 'unit' with DDB_DEFAULT" "$w/plan2.json"
if grep -q '"migration": "transform"' "$w/plan2.json"; then echo "the plan asks for a transform" >&2; exit 1; fi
if [ "$3" != "-" ]; then # endpoint-independent: once, embedded
    step "$ddbgen" --plan-migration "$w/v1.model.json" --plan-out "$w/plan2.file.json" -I "$src" "$src/fleet_v2.h"
    [ "$(id_of "$w/plan2.json")" = "$(id_of "$w/plan2.file.json")" ] # the recorded model is the file's
    # the way back to version 1 is not reversible: version 1 cannot read trips
    fails "$ddbgen" --plan-migration "$w/v1.model.json" --down -I "$src" "$src/fleet_v2.h"
    grep -q "fleet_v2.h:[0-9]*:[0-9]*: error: not reversible: entity 'Trip' is new" "$w/fail.txt"
fi
step "$bin/fleet_v2" refused "$db" "$n" "ByFirmware"
run "$mod2" --dry-run "$w/plan2.json" | tee "$w/dry.txt"
grep -q "dry run (nothing written)" "$w/dry.txt"
run "$mod2" "$w/plan2.json" | tee "$w/run.txt"
step "$bin/fleet_v2" verify "$db" "$n"
check
status
grep -q "^Fleet: data model $(id_of "$w/plan2.json")$" "$w/status.txt"
grep -q "^  2\\. $(id_of "$w/plan2.json") ok .* (schema model recorded)$" "$w/status.txt"
# the same change by fleet_open_with(.backfill = true) on a database of version 1
# (embedded): the defaults are written on the shard items that hold them
if [ "$3" != "-" ]; then
    rm -rf "$db.backfill"
    step "$bin/fleet_v1" populate "$db.backfill" 2000
    step "$bin/fleet_v2" backfill "$db.backfill" 2000
    step "$bin/fleet_v2" verify "$db.backfill" 2000
    step "$tool" check "$db.backfill"
fi
# the model the data is in now, kept for the way back from the next change
echo "== ddb migrate model Fleet"; "$tool" --db "$db" migrate model Fleet > "$w/v2.model.json"

# 2. a sort key template changed: every reading moves; killed once, resumed
plan 3 "$w/plan3.json"
grep -q "moved to their new primary key" "$w/plan3.json"
run "$mod3" --dry-run --samples 2 "$w/plan3.json" | tee "$w/dry.txt"
grep -q "Reading DEV#d[0-9]*/READ#[0-9]* -> DEV#d[0-9]*/R#2026-11-[0-9]*#[0-9]*" "$w/dry.txt"
DDB_MIGRATE_KILL_AFTER=$((n / 3)) killed "$tool" --db "$db" migrate --module "$mod3" --sync lazy "$w/plan3.json"
status
grep -q "^Fleet: in progress: $(id_of "$w/plan3.json"), step 1/1, [0-9]* items scanned" "$w/status.txt"
step "$bin/fleet_v3" refused "$db" "$n" "a migration is in progress"
run "$mod3" "$w/plan3.json" | tee "$w/run.txt"
grep -q "resumed from its checkpoint" "$w/run.txt"
step "$bin/fleet_v3" verify "$db" "$n"
check

# down: back to version 2 (the readings move back), read by version 2's module again
step "$ddbgen" --plan-migration "$w/v2.model.json" --down --plan-out "$w/down3.json" -I "$src" "$src/fleet_v3.h"
run "$mod2" "$w/down3.json" | tee "$w/run.txt"
step "$bin/fleet_v2" verify "$db" "$n"
check
# the model recorded by the way down is version 2's: the plan up is the same again
plan 3 "$w/plan3.again.json"
[ "$(id_of "$w/plan3.json")" = "$(id_of "$w/plan3.again.json")" ]
run "$mod3" "$w/plan3.again.json"
step "$bin/fleet_v3" verify "$db" "$n"

# 3. DDB_UNIQUE on a badge two drivers hold
plan 4 "$w/plan4.json"
# the old forms (for transforms; once, embedded: the model is read as for the plans) and the
# build-time check from the recorded model too
if [ "$3" != "-" ]; then
    mkdir -p "$w/old4"
    step "$ddbgen" -o "$w/old4" --old-model --from-table "$db" Fleet -I "$src" "$src/fleet_v4.h"
    grep -q "struct driver_old {" "$w/old4/fleet_v4_old.h"
fi
fails "$ddbgen" --check-compat --from-table "$db" Fleet -I "$src" "$src/fleet_v4.h"
grep -q "fleet_v4.h:[0-9]*:[0-9]*: error: .*badge.*DDB_UNIQUE" "$w/fail.txt"
step "$ddbgen" --check-compat --from-table "$db" Fleet --migration-plan "$w/plan4.json" -I "$src" "$src/fleet_v4.h"
grep -q '"claims": \[' "$w/plan4.json"
step "$bin/fleet_v4" refused "$db" "$n" "before badge was DDB_UNIQUE"
fails "$tool" --db "$db" migrate --module "$mod4" --sync lazy --dry-run "$w/plan4.json"
grep -q 'duplicate: Driver.badge = "B00000": items DRIVER#r0000[01]/DRIVER and DRIVER#r0000[01]/DRIVER' "$w/fail.txt"
fails "$tool" --db "$db" migrate --module "$mod4" --sync lazy "$w/plan4.json"
grep -q 'Driver.badge is DDB_UNIQUE, but the value "B00000" is held by item' "$w/fail.txt"
status
grep -q "^Fleet: in progress: $(id_of "$w/plan4.json")" "$w/status.txt"
# the fix, while both versions' programs refuse the table
migrate_update() { step "$tool" --db "$db" update Fleet "$@"; }
migrate_update --pk DRIVER#r00001 --sk DRIVER --update 'SET #b = :b' --names '{"#b":"badge"}' \
    --values '{":b":{"S":"B00001"}}'
run "$mod4" "$w/plan4.json" | tee "$w/run.txt"
grep -q "resumed from its checkpoint" "$w/run.txt"
grep -q "Fleet: $(($n / 200)) unique values claimed, each checked (every stored value has its claim)" "$w/run.txt"
step "$bin/fleet_v4" verify "$db" "$n"
check
status
grep -q "^Fleet: no migration in progress" "$w/status.txt"
grep -q "^Fleet: 6 applied migrations recorded:" "$w/status.txt"
grep -q "^Fleet: schema model recorded by entry 6 ($(id_of "$w/plan4.json")" "$w/status.txt"
echo "test_migrate_fleet: ok"
