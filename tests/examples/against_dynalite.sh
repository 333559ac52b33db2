#!/bin/sh
# Run examples on the embedded engine and through the remote backend against
# dynalite, and compare their output.  Capacity figures are masked: dynalite
# reports table capacity only (no per-index units).  Exit 77 (skip) when
# dynalite cannot run here.
#   against_dynalite.sh DYNALITE_SH DYNALITE_DIR WORK_DIR EXAMPLE_BINARY...
set -u
dyn=$1
ddir=$2
work=$3
shift 3
out=$(sh "$dyn" start "$ddir" $$) || { rc=$?; echo "$out"; exit "$rc"; }
port=${out%% *}
pid=${out##* }
mkdir -p "$work"
. "$(dirname "$0")/same_output.sh"
status=0
for bin in "$@"; do
    same_output "$bin" "http://127.0.0.1:$port" "$work" || status=1
done
kill "$pid" 2>/dev/null
exit $status
