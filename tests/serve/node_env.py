"""npm packages for the Node client tests in tests/serve (the ElectroDB
program, dynamodb-admin): installed once, at run time, into a directory of
the build tree, at pinned versions -- the way tests/remote/dynalite.sh
installs dynalite.  Without node or npm, print "SKIP: <reason>" and exit 77.

    node_env.install(DIR, {"electrodb": "3.9.3", ...})   # -> DIR/node_modules
"""
import json
import os
import shutil
import subprocess
import sys


def need_node():
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            print("SKIP: %s is not installed (apt-get install nodejs npm)" % tool)
            sys.exit(77)


def installed_version(directory, name):
    try:
        with open(os.path.join(directory, "node_modules", name, "package.json")) as f:
            return json.load(f).get("version")
    except (OSError, ValueError):
        return None


def install(directory, packages):
    """Install the pinned packages into directory unless they are there."""
    need_node()
    os.makedirs(directory, exist_ok=True)
    if all(installed_version(directory, n) == v for n, v in packages.items()):
        return os.path.join(directory, "node_modules")
    log = os.path.join(directory, "npm.log")
    cmd = ["npm", "install", "--prefix", directory, "--no-audit", "--no-fund", "--no-package-lock",
           "--omit=optional", "--loglevel=error"] + ["%s@%s" % (n, v) for n, v in packages.items()]
    with open(log, "w") as out:
        rc = subprocess.call(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    if rc != 0:
        with open(log) as f:
            sys.stderr.write("npm install failed (%d):\n%s" % (rc, "".join(f.readlines()[-20:])))
        sys.exit(1)
    for n, v in packages.items():
        if installed_version(directory, n) != v:
            sys.stderr.write("%s %s did not install (found %s)\n" % (n, v, installed_version(directory, n)))
            sys.exit(1)
    return os.path.join(directory, "node_modules")
