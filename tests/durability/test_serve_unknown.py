"""`ddb serve` and a write whose outcome is unknown (issue 22, section 3).

A sync that fails after a write's transaction was written (meta page
included) leaves the write on disk or not: libddb answers DDB_EUNKNOWN,
and the server answers it as DynamoDB answers a write it cannot vouch for,
an InternalServerError (HTTP 500; Developer Guide, "Error handling with
DynamoDB"), whose message says the outcome is unknown; the SDKs retry it,
and ClientRequestToken / conditions make that retry safe.  The next write
is refused: "a sync failed; reopen the database".

The server runs under the power-loss shim, started by its environment
(DDBT_SHIM_DIR, DDBT_SHIM_SHADOW), failing the second sync: the first
PutItem's commit syncs its data (the first), then its meta page is synced
(the second).  The table is created by a run of the server without the shim.

    test_serve_unknown.py DDB_TOOL SHIM WORKDIR
"""
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import urllib.error
import urllib.request


def start(ddb, db, work, env=None):
    port_file = os.path.join(work, "port")
    if os.path.exists(port_file):
        os.unlink(port_file)
    log = open(os.path.join(work, "server.log"), "a")
    proc = subprocess.Popen([ddb, "--db", db, "serve", "--listen", "127.0.0.1:0", "--port-file", port_file,
                             "--sweep-ms", "0", "--log-level", "error"],
                            stdout=subprocess.PIPE, stderr=log, text=True, env=env)
    ready, _, _ = select.select([proc.stdout], [], [], 180)
    line = proc.stdout.readline() if ready else ""
    if not line.startswith("ddb serve: listening on "):
        proc.kill()
        proc.wait()
        sys.exit("ddb serve did not start: %r (see %s)" % (line, log.name))
    with open(port_file) as f:
        return proc, "http://127.0.0.1:%d" % int(f.read())


def stop(proc):
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=60)
    proc.stdout.close()


def call(endpoint, op, body):
    req = urllib.request.Request(endpoint, data=json.dumps(body).encode(),
                                 headers={"X-Amz-Target": "DynamoDB_20120810." + op,
                                          "Content-Type": "application/x-amz-json-1.0"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def put(endpoint, pk):
    return call(endpoint, "PutItem", {"TableName": "Tab", "Item": {"PK": {"S": pk}}})


def main():
    ddb, shim, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    db, shadow = os.path.join(work, "db"), os.path.join(work, "shadow")
    os.makedirs(shadow)
    proc, endpoint = start(ddb, db, work)
    status, body = call(endpoint, "CreateTable", {
        "TableName": "Tab", "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST"})
    assert status == 200, (status, body)
    stop(proc)

    env = dict(os.environ, LD_PRELOAD=shim, DDBT_SHIM_DIR=db, DDBT_SHIM_SHADOW=shadow, DDBT_SHIM_FAIL_SYNC="2")
    proc, endpoint = start(ddb, db, work, env)
    try:
        status, body = put(endpoint, "first")
        message = body.get("message", body.get("Message", ""))
        if status != 500 or not body.get("__type", "").endswith("InternalServerError") or \
                "the outcome of this commit is unknown" not in message:
            sys.exit("the write whose meta page's sync failed: %s %s" % (status, body))
        status, body = put(endpoint, "second")
        message = body.get("message", body.get("Message", ""))
        if status != 500 or "a sync failed; reopen the database" not in message:
            sys.exit("a write after the failed sync: %s %s" % (status, body))
    finally:
        stop(proc)
    print("ok: InternalServerError \"the outcome of this commit is unknown\", then the refusal")


if __name__ == "__main__":
    main()
