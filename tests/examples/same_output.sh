# Sourced by against_dynalite.sh and against_serve.sh: same_output BIN
# REMOTE_URI WORK runs the example BIN on the embedded engine and through
# the remote backend at REMOTE_URI and compares what they print, with the
# Database line and capacity figures masked (a remote service may report
# table capacity only, without per-index units).  Prints ok or FAIL; the
# status is 1 on a difference.  Calls only the shell and sed, diff.
mask() {
    sed -E -e '1d' -e 's/[0-9][0-9.]* (RCU|WCU)/N \1/g' -e 's/ \(table [^)]*\)//g' "$1"
}
same_output() {
    bin=$1 uri=$2 work=$3
    name=$(basename "$bin")
    rm -rf "$work/$name-db"
    if ! "$bin" "$work/$name-db" > "$work/$name.embedded" 2>&1; then
        echo "FAIL: $name on the embedded engine"; return 1
    fi
    if ! "$bin" "$uri" > "$work/$name.remote" 2>&1; then
        echo "FAIL: $name through the remote backend:"; cat "$work/$name.remote"; return 1
    fi
    mask "$work/$name.embedded" > "$work/$name.embedded.masked"
    mask "$work/$name.remote" > "$work/$name.remote.masked"
    if diff -u "$work/$name.embedded.masked" "$work/$name.remote.masked"; then
        echo "ok: $name gives the same results on both backends"
    else
        echo "FAIL: $name differs between the backends"; return 1
    fi
}
