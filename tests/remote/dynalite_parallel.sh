#!/bin/sh
# Two servers started at once from one dynalite.sh DIR (as ctest -j does:
# test_remote_dynalite, its _via_serve variant and conformance_dynalite share
# one) are two servers: each start prints its own port and pid, both
# servers are up, and stopping one leaves the other running.  Exit 77
# (skip) without node/npm.
#   dynalite_parallel.sh DYNALITE_SH DIR WORK
set -u
dyn=$1
dir=$2
work=$3
mkdir -p "$work"
sh "$dyn" install "$dir" >"$work/install.out" 2>&1
rc=$?
[ $rc -eq 77 ] && { cat "$work/install.out"; exit 77; }
[ $rc -eq 0 ] || { echo "FAIL: install"; cat "$work/install.out"; exit 1; }
fail=0
for round in 1 2 3; do
    sh "$dyn" start "$dir" $$ >"$work/a.out" 2>&1 &
    a=$!
    sh "$dyn" start "$dir" $$ >"$work/b.out" 2>&1 &
    b=$!
    wait $a || { echo "FAIL: start A: $(cat "$work/a.out")"; exit 1; }
    wait $b || { echo "FAIL: start B: $(cat "$work/b.out")"; exit 1; }
    read -r pa ida <"$work/a.out"
    read -r pb idb <"$work/b.out"
    if [ "$pa" = "$pb" ] || [ "$ida" = "$idb" ]; then
        echo "FAIL: round $round: both starts got port $pa / $pb, pid $ida / $idb"
        fail=1
    fi
    for p in "$ida" "$idb"; do
        kill -0 "$p" 2>/dev/null || { echo "FAIL: round $round: server $p is not running"; fail=1; }
    done
    kill "$ida" 2>/dev/null
    sleep 0.5
    kill -0 "$idb" 2>/dev/null || { echo "FAIL: round $round: stopping A stopped B ($idb)"; fail=1; }
    kill "$idb" 2>/dev/null
done
[ $fail -eq 0 ] && echo "ok: parallel starts from one DIR get servers of their own"
exit $fail
