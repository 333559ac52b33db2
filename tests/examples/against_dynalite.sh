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
mask() {
    # the Database line, capacity numbers and per-index breakdowns
    sed -E -e '1d' -e 's/[0-9][0-9.]* (RCU|WCU)/N \1/g' -e 's/ \(table [^)]*\)//g' "$1"
}
status=0
for bin in "$@"; do
    name=$(basename "$bin")
    rm -rf "$work/$name-db"
    if ! "$bin" "$work/$name-db" > "$work/$name.embedded" 2>&1; then
        echo "FAIL: $name on the embedded engine"; status=1; continue
    fi
    if ! "$bin" "http://127.0.0.1:$port" > "$work/$name.remote" 2>&1; then
        echo "FAIL: $name through the remote backend:"; cat "$work/$name.remote"; status=1; continue
    fi
    mask "$work/$name.embedded" > "$work/$name.embedded.masked"
    mask "$work/$name.remote" > "$work/$name.remote.masked"
    if diff -u "$work/$name.embedded.masked" "$work/$name.remote.masked"; then
        echo "ok: $name gives the same results on both backends"
    else
        echo "FAIL: $name differs between the backends"; status=1
    fi
done
kill "$pid" 2>/dev/null
exit $status
