#!/bin/sh
# dynalite (an implementation of DynamoDB's API on Node.js) for the remote
# backend's tests.
#
#   dynalite.sh install DIR           install the pinned version into DIR (once; cached)
#   dynalite.sh start DIR [WATCH_PID] install if needed, start on 127.0.0.1 with a port the
#                                     kernel picks; prints "PORT PID".  The server exits by
#                                     itself when WATCH_PID dies, and after 30 minutes.
#   dynalite.sh stop DIR              stop the servers started from DIR
#
# Without node or npm it prints "SKIP: <reason>" and exits 77.
#
# Several tests start servers from one DIR at once (ctest -j): each start
# keeps its port, pid and log in a run directory of its own (DIR/run.XXXXXX,
# removed by a later start once its server is gone), and the npm install
# is done under a lock (flock on DIR/install.lock).  Waits are generous and
# bounded, for a loaded machine (a sanitizer build, ctest -j): up to
# DYNALITE_INSTALL_TIMEOUT seconds (default 600) for another start's
# install, up to DYNALITE_START_TIMEOUT seconds (default 180) for the
# server's port; past them the script says which wait ran out (with the
# server's log) and exits 1.
#
# Pinned: dynalite 3.2.2, the last 3.x.  4.0.0 requires Node >= 20 while
# Debian bookworm ships Node 18; 3.2.2 runs on both.  Its optional native
# leveldown is not installed (--omit=optional): the server keeps its tables
# in memory.  Tables become ACTIVE at once (createTableMs 0 etc.).
set -eu
VERSION=3.2.2

usage() {
    echo "usage: $0 install|start|stop DIR [WATCH_PID]" >&2
    exit 2
}
[ $# -ge 2 ] || usage
cmd=$1
dir=$2
watch=${3:-0}

need_node() {
    for tool in node npm; do
        if ! command -v "$tool" >/dev/null 2>&1; then
            echo "SKIP: $tool is not installed (apt-get install nodejs npm)"
            exit 77
        fi
    done
}

installed_version() {
    node -e "try { process.stdout.write(require('$dir/node_modules/dynalite/package.json').version) } catch (e) {}" 2>/dev/null || true
}

install_unlocked() {
    [ "$(installed_version)" = "$VERSION" ] && return 0
    if ! npm install --prefix "$dir" --no-audit --no-fund --no-package-lock --omit=optional --loglevel=error \
        "dynalite@$VERSION" >"$dir/npm.log" 2>&1; then
        echo "npm install dynalite@$VERSION failed:" >&2
        tail -20 "$dir/npm.log" >&2
        exit 1
    fi
    [ "$(installed_version)" = "$VERSION" ] || { echo "dynalite $VERSION did not install" >&2; exit 1; }
}

install() {
    need_node
    mkdir -p "$dir"
    [ "$(installed_version)" = "$VERSION" ] && return 0
    if ! command -v flock >/dev/null 2>&1; then
        install_unlocked
        return 0
    fi
    limit=${DYNALITE_INSTALL_TIMEOUT:-600}
    (
        if ! flock -w "$limit" 9; then
            echo "dynalite.sh: another start held $dir/install.lock (installing) for more than $limit s" \
                "(DYNALITE_INSTALL_TIMEOUT)" >&2
            exit 1
        fi
        install_unlocked
    ) 9>"$dir/install.lock"
}

# Remove the run directories whose server is gone (another start may be
# removing them too; one without a pid yet is being started).
sweep_runs() {
    for r in "$dir"/run.*; do
        p=$(cat "$r/pid" 2>/dev/null) || continue
        [ -n "$p" ] || continue
        kill -0 "$p" 2>/dev/null || rm -rf "$r"
    done
}

start() {
    install
    sweep_runs
    run=$(mktemp -d "$dir/run.XXXXXX")
    cat >"$run/launch.js" <<'EOF'
// Start dynalite on 127.0.0.1, port chosen by the kernel; print the port.
const dynalite = require(process.argv[2]);
const watch = Number(process.argv[3] || 0);
const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\n'));
if (watch > 0)
  setInterval(() => { try { process.kill(watch, 0); } catch (e) { process.exit(0); } }, 500);
setTimeout(() => process.exit(0), 30 * 60 * 1000);
EOF
    node "$run/launch.js" "$dir/node_modules/dynalite" "$watch" >"$run/port" 2>"$run/server.log" </dev/null &
    pid=$!
    echo "$pid" >"$run/pid"
    limit=${DYNALITE_START_TIMEOUT:-180}
    i=0
    while [ ! -s "$run/port" ]; do
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "dynalite exited at start:" >&2
            cat "$run/server.log" >&2
            exit 1
        fi
        i=$((i + 1))
        if [ "$i" -gt $((limit * 10)) ]; then
            echo "dynalite.sh: dynalite did not print its port within $limit s (DYNALITE_START_TIMEOUT;" \
                "load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)); its log:" >&2
            cat "$run/server.log" >&2
            kill "$pid" 2>/dev/null || true
            exit 1
        fi
        sleep 0.1
    done
    echo "$(head -n1 "$run/port") $pid"
}

stop() {
    for r in "$dir"/run.*; do
        [ -d "$r" ] || continue
        if [ -s "$r/pid" ]; then
            kill "$(cat "$r/pid")" 2>/dev/null || true
        fi
        rm -rf "$r"
    done
}

case $cmd in
install) install ;;
start) start ;;
stop) stop ;;
*) usage ;;
esac
