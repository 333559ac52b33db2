#!/bin/sh
# End-to-end tests of the `ddb` tool: each folder under CASES is one
# invocation (in name order, all on one database in WORK):
#   cmd      a shell command line; `ddb` runs the built tool with
#            --now 1700000000 (fixed TTL and stream times), DDB_URI=db
#   stdin    (optional) its standard input
#   stdout, stderr, status   what it must print and return, exactly
# DDB_UPDATE_GOLDEN=1 rewrites stdout/stderr/status (review the diff!).
# usage: run_cli_tests.sh DDB_BINARY FIXTURE_BINARY CASES WORK
set -u
DDB_BIN=$1 FIXTURE=$2 CASES=$(cd "$3" && pwd) WORK=$4
rm -rf "$WORK" && mkdir -p "$WORK/bin" || exit 2
WORK=$(cd "$WORK" && pwd)
cat > "$WORK/bin/ddb" <<WRAP
#!/bin/sh
exec "$DDB_BIN" --now 1700000000 "\$@"
WRAP
ln -s "$FIXTURE" "$WORK/bin/cli_fixture"
chmod +x "$WORK/bin/ddb"
PATH="$WORK/bin:$PATH" LC_ALL=C TZ=UTC DDB_URI=db
export PATH LC_ALL TZ DDB_URI
failed=0 total=0
for case in $(ls "$CASES" | sort); do
    c="$CASES/$case"
    [ -f "$c/cmd" ] || continue
    total=$((total + 1))
    in=/dev/null
    [ -f "$c/stdin" ] && in="$c/stdin"
    (cd "$WORK" && sh -c "$(cat "$c/cmd")" < "$in" > "$WORK/.out" 2> "$WORK/.err")
    echo $? > "$WORK/.status"
    if [ "${DDB_UPDATE_GOLDEN:-}" = 1 ]; then
        cp "$WORK/.out" "$c/stdout"; cp "$WORK/.err" "$c/stderr"; cp "$WORK/.status" "$c/status"
        continue
    fi
    ok=1
    for f in stdout stderr status; do
        src=$WORK/.out
        [ $f = stderr ] && src=$WORK/.err
        [ $f = status ] && src=$WORK/.status
        if ! cmp -s "$c/$f" "$src"; then
            [ $ok = 1 ] && echo "FAIL $case: $(cat "$c/cmd")"
            ok=0
            diff -u "$c/$f" "$src" | sed 's/^/    /'
        fi
    done
    [ $ok = 1 ] || failed=$((failed + 1))
done
echo "$((total - failed)) of $total cli cases passed"
[ $failed = 0 ]
