#!/bin/sh
# check_exports must fail on the leaky library and name exactly its two
# differences (expected.txt), one in each direction.
#
#   expect_leaks.sh CHECK_EXPORTS NM LIBRARY HEADER_DIR EXPECTED
set -u
out=$("$1" "$2" "$3" "$4" 2>&1)
status=$?
printf '%s\n' "$out"
[ "$status" -eq 1 ] || { echo "FAIL: check_exports exited $status, expected 1"; exit 1; }
printf '%s\n' "$out" | grep -v 'difference(s) between' | diff -u "$5" - ||
    { echo "FAIL: not exactly the expected differences"; exit 1; }
echo "ok: both leaks reported"
