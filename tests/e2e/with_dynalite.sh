#!/bin/sh
# Run a test program with DDB_TEST_URI pointing at a private dynalite.
#   with_dynalite.sh DYNALITE_SH DIR PROGRAM [ARGS...]
# Exit 77 (skip) when dynalite cannot run here.
set -u
dyn=$1
dir=$2
shift 2
out=$(sh "$dyn" start "$dir" $$) || { rc=$?; echo "$out"; exit "$rc"; }
port=${out%% *}
pid=${out##* }
DDB_TEST_URI="http://127.0.0.1:$port" "$@"
rc=$?
kill "$pid" 2>/dev/null
exit $rc
