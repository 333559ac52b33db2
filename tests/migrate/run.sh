#!/bin/sh
# The migration test: run.sh BINDIR DB N DDB_TOOL DDBGEN MODULE.  The
# second change runs through the library call (migrate_v3 migrate:
# <table>_migrate), the third through `ddb migrate` with the plan ddbgen
# writes and the module MODULE (version 4's generated code and transform).
set -eu
bin=$1 db=$2 n=$3 tool=$4 ddbgen=$5 module=$6
src=$(cd "$(dirname "$0")" && pwd)
step() { echo "== $*"; "$@"; }
killed() { # the command must die by SIGKILL (exit status 137 from the shell)
    echo "== $* (to be killed)"
    set +e; "$@"; st=$?; set -e
    [ "$st" -eq 137 ] || { echo "expected SIGKILL (137), got $st" >&2; exit 1; }
}
check() { step "$tool" check "$db"; }
rm -rf "$db" "$db.work" && mkdir -p "$db.work"
n1=$((n + 1))

step "$bin/migrate_v1" populate "$db" "$n"
# 1. a new optional field: no migration
step "$bin/migrate_v2" grow "$db" "$n"
# 2. a new GSI the customers join: open refuses until it is backfilled
step "$bin/migrate_v3" refuse "$db" "$n1" "Customer joins index ByZip"
step "$bin/migrate_v3" dry-run "$db" "$n1"
killed "$bin/migrate_v3" migrate "$db" "$n1" 3 2>"$db.work/killed.txt"
cat "$db.work/killed.txt"
step "$bin/migrate_v3" refuse "$db" "$n1" "a migration is in progress"
# the old module keeps reading meanwhile (SCHEMA.md: it was refused, issue 25)
step "$bin/migrate_v2" reads "$db" "$n1"
# the resumed run's progress and report go on from the checkpoint: its first
# progress past the killed run's last, and the report counts every item once
# (each rewritten under its key, none re-read)
MIGRATE_RESUME_FROM=$(sed -n 's/.* at scanned \([0-9]*\) done \([0-9]*\) capacity \([0-9.]*\)$/\1 \2 \3/p' "$db.work/killed.txt")
[ -n "$MIGRATE_RESUME_FROM" ] || {
    echo "the killed run printed no position (\"... at scanned S done D capacity C\"; a stale migrate_v3?):" >&2
    cat "$db.work/killed.txt" >&2
    exit 1
}
export MIGRATE_RESUME_FROM
step "$bin/migrate_v3" migrate "$db" "$n1" | tee "$db.work/report3.txt"
unset MIGRATE_RESUME_FROM
grep -q "resumed 1 scanned $n1 moved 0 rewritten $n1 unchanged 0 " "$db.work/report3.txt"
step "$bin/migrate_v3" verify "$db" "$n1"
check
# 3. a changed key template and a field type change with a transform, planned
# from the deployed model and applied by `ddb migrate`
step "$ddbgen" --emit-model "$db.work/v3.model.json" -I "$src" "$src/v3.h"
step "$ddbgen" --plan-migration "$db.work/v3.model.json" --plan-out "$db.work/plan.json" -I "$src" "$src/v4.h"
grep -q '"migration": "transform"' "$db.work/plan.json"
step "$bin/migrate_v4" refuse "$db" "$n1" "CITY#{home.city|lower}"
step "$tool" --db "$db" migrate --module "$module" --dry-run --samples 2 "$db.work/plan.json"
# the same plan from the program: app_migrate_from_old (generated from the deployed model)
step "$bin/migrate_v4" dry-run "$db" "$n1"
MIGRATE_KILL_AFTER=$((n / 3)) killed "$tool" --db "$db" migrate --module "$module" "$db.work/plan.json"
step "$bin/migrate_v4" refuse "$db" "$n1" "a migration is in progress"
# the refusal counts steps from 1, as the progress does, and shows no raw checkpoint position
step "$bin/migrate_v4" refuse "$db" "$n1" "step 1/1, "
step "$bin/migrate_v3" reads "$db" "$n1"
step "$tool" --db "$db" migrate --module "$module" "$db.work/plan.json" | tee "$db.work/report.txt"
grep -q "resumed from its checkpoint" "$db.work/report.txt"
# the report's totals cover the run before the kill too: every customer moved
# once, but for those of the page the kill interrupted (moved by then, met again
# as already in their new form); 200 is ddb migrate's page size
moved=$(sed -n 's/.* \([0-9]*\) moved to a new key.*/\1/p' "$db.work/report.txt")
[ "$moved" -le "$n1" ] && [ "$moved" -gt $((n1 - 200)) ] || { echo "the report says $moved moved of $n1" >&2; exit 1; }
step "$bin/migrate_v4" verify "$db" "$n1"
check
echo "test_migrate: ok"
