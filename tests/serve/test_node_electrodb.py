#!/usr/bin/env python3
"""The AWS SDK for JavaScript v3 and ElectroDB against `ddb serve` (issue 15,
item 4): node/electro.mjs runs a single-table design (two entities, a GSI,
a collection query, write transactions, pagination) and its stdout must
equal node/electro.expected.

    test_node_electrodb.py DDB WORKDIR NPMDIR

The npm packages are installed at run time into NPMDIR (pinned below; see
node_env.py); without node/npm the test prints SKIP and exits 77.
Pinned: the SDK 3.896.0 (still supports Node 18, Debian bookworm's) and
ElectroDB 3.9.3."""
import difflib
import os
import shutil
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import node_env  # noqa: E402
from serve_proc import Server  # noqa: E402

PACKAGES = {
    "@aws-sdk/client-dynamodb": "3.896.0",
    "@aws-sdk/lib-dynamodb": "3.896.0",
    "electrodb": "3.9.3",
}


def main():
    ddb, workdir, npmdir = sys.argv[1:4]
    node_env.install(npmdir, PACKAGES)
    # ES modules resolve packages from the script's own directory upwards.
    script = os.path.join(npmdir, "electro.mjs")
    shutil.copyfile(os.path.join(here, "node", "electro.mjs"), script)
    with open(os.path.join(here, "node", "electro.expected")) as f:
        expected = f.read()
    env = dict(os.environ, AWS_CONFIG_FILE="/nonexistent/config",
               AWS_SHARED_CREDENTIALS_FILE="/nonexistent/credentials", AWS_EC2_METADATA_DISABLED="true")
    with Server(ddb, workdir) as s:
        r = subprocess.run(["node", script, s.endpoint], capture_output=True, text=True, env=env, timeout=240)
        rc = s.stop()
    if r.returncode != 0:
        sys.stderr.write("node exited %d:\n%s%s" % (r.returncode, r.stdout, r.stderr))
        return 1
    if r.stdout != expected:
        sys.stderr.write("output differs from node/electro.expected:\n")
        sys.stderr.writelines(difflib.unified_diff(expected.splitlines(True), r.stdout.splitlines(True),
                                                   "expected", "actual"))
        return 1
    if rc != 0:
        sys.stderr.write("ddb serve exited %d at SIGTERM (see %s/server.log)\n" % (rc, workdir))
        return 1
    print("node electro.mjs: %d lines as expected" % len(expected.splitlines()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
