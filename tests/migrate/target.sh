# Sourced by the migration test scripts (run_unique.sh, run_rename.sh):
# "$db" "-" is the endpoint in DDB_TEST_URI (a private `ddb serve`, from
# tests/serve/with_serve.py) with the work files in "$bin/$remote_work.work" and no
# `ddb check`; a directory is emptied, its work files in "$db.work".  Sets
# db and w, defines step, killed (the command must die by SIGKILL) and
# check, and makes w empty.
step() { echo "== $*"; "$@"; }
killed() {
    echo "== $* (to be killed)"
    set +e; "$@"; st=$?; set -e
    [ "$st" -eq 137 ] || { echo "expected SIGKILL (137), got $st" >&2; exit 1; }
}
if [ "$db" = "-" ]; then
    db=$DDB_TEST_URI w=$bin/$remote_work.work
    check() { :; }
else
    w=$db.work
    check() { step "$tool" check "$db"; }
    rm -rf "$db"
fi
rm -rf "$w" && mkdir -p "$w"
