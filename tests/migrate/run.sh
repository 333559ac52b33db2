#!/bin/sh
# The migration test: run.sh BINDIR DB N DDB_TOOL  (DB: a directory, or an
# http:// endpoint when DDB_TOOL is "-", e.g. dynalite).
set -eu
bin=$1 db=$2 n=$3 tool=$4
step() { echo "== $*"; "$@"; }
killed() { # the command must die by SIGKILL (exit status 137 from the shell)
    echo "== $* (to be killed)"
    set +e; "$@"; st=$?; set -e
    [ "$st" -eq 137 ] || { echo "expected SIGKILL (137), got $st" >&2; exit 1; }
}
check() { [ "$tool" = "-" ] || step "$tool" check "$db"; }
case "$db" in http*) ;; *) rm -rf "$db" ;; esac
n1=$((n + 1))

step "$bin/migrate_v1" populate "$db" "$n"
# 1. a new optional field: no migration
step "$bin/migrate_v2" grow "$db" "$n"
# 2. a new GSI the customers join: open refuses until it is backfilled
step "$bin/migrate_v3" refuse "$db" "$n1" "Customer joins index ByZip"
step "$bin/migrate_v3" dry-run "$db" "$n1"
killed "$bin/migrate_v3" migrate "$db" "$n1" 3
step "$bin/migrate_v3" refuse "$db" "$n1" "a migration is in progress"
step "$bin/migrate_v3" migrate "$db" "$n1"
step "$bin/migrate_v3" verify "$db" "$n1"
check
# 3. a changed key template and a field type change with a transform
step "$bin/migrate_v4" refuse "$db" "$n1" "CITY#{home.city|lower}"
killed "$bin/migrate_v4" migrate "$db" "$n1" $((n / 3))
step "$bin/migrate_v4" refuse "$db" "$n1" "a migration is in progress"
step "$bin/migrate_v4" migrate "$db" "$n1"
step "$bin/migrate_v4" verify "$db" "$n1"
check
echo "test_migrate: ok"
