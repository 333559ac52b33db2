#!/bin/sh
# The migration test on a remote endpoint: run_remote.sh BINDIR N (the
# endpoint in DDB_TEST_URI, from tests/e2e/with_dynalite.sh).  dynalite
# 3.2.2 adds no GSI to an existing table (UpdateTable) and has no
# TransactWriteItems, so this runs the third change only (a changed key
# template with a field type change and a transform) on a table created by
# version 3, with the migration's one-request-at-a-time path; interrupted
# by SIGKILL and resumed as on the embedded engine.  dynalite also accepts
# UpdateTable's Delete of a GSI and deletes nothing (ddb_delete_index then
# says DDB_ENOTSUP), so version 4's dropped index GSI1 is kept here
# (MIGRATE_KEEP_INDEXES); the embedded test deletes it.
set -eu
export MIGRATE_KEEP_INDEXES=1
bin=$1 n=$2 db=$DDB_TEST_URI
step() { echo "== $*"; "$@"; }
step "$bin/migrate_v3" populate "$db" "$n"
step "$bin/migrate_v4" refuse "$db" "$n" "CITY#{home.city|lower}"
echo "== migrate_v4 migrate (to be killed)"
set +e; MIGRATE_KILL_AFTER=$((n / 3)) "$bin/migrate_v4" migrate "$db" "$n"; st=$?; set -e
[ "$st" -eq 137 ] || { echo "expected SIGKILL (137), got $st" >&2; exit 1; }
step "$bin/migrate_v4" refuse "$db" "$n" "a migration is in progress"
step "$bin/migrate_v4" migrate "$db" "$n"
step "$bin/migrate_v4" verify "$db" "$n"
echo "test_migrate_dynalite: ok"
