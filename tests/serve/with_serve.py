#!/usr/bin/env python3
"""Run a test program with DDB_TEST_URI pointing at a private `ddb serve`
(a fresh database directory): the remote backend's suite and the generated
modules' end-to-end tests, which also run against dynalite, run against our
own server too (DDB_TEST_SERVE_ARGS: more options of the server, e.g.
--unprocessed 0.5).  DDB_TEST_SERVE_DIR names the server's database directory
(for a program that also opens it, as a second process would).

    with_serve.py DDB WORKDIR PROGRAM [ARGS...]

Exits with the program's status."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_proc import Server  # noqa: E402


def main():
    if len(sys.argv) < 4:
        print("usage: with_serve.py DDB WORKDIR PROGRAM [ARGS...]", file=sys.stderr)
        return 2
    ddb, workdir, prog = sys.argv[1], sys.argv[2], sys.argv[3:]
    # these programs check the embedded engine's typed reads, which hide
    # expired items at once (ddb_options.ttl_reads' default), through the
    # remote backend: the server is asked for the same (by default it
    # returns them until deleted, as DynamoDB does; tests/serve/test_control.py)
    # DDB_TEST_SERVE_ARGS: more options of the server (--unprocessed 0.5 ...)
    extra = os.environ.get("DDB_TEST_SERVE_ARGS", "").split()
    with Server(ddb, workdir, args=["--ttl-hide-expired"] + extra) as s:
        env = dict(os.environ, DDB_TEST_URI=s.endpoint, DDB_TEST_TRANSACTIONS="1", DDB_TEST_SERVE_DIR=s.db)
        return subprocess.call(prog, env=env)


if __name__ == "__main__":
    sys.exit(main())
