#!/usr/bin/env python3
"""dynamodb-admin (npm: the data browser people use with a local DynamoDB)
against `ddb serve` (issue 15, item 4): a table list page and an item page
loaded over HTTP must show the tables and items the test wrote.

    test_dynamodb_admin.py DDB WORKDIR NPMDIR

The test writes two tables through DynamoDB's JSON protocol (plain HTTP
from Python, no SDK), starts dynamodb-admin with --dynamo-endpoint on the
server and a port the kernel picks, then loads
  /                              the table list (HTML)
  /tables/books/items            the first page of the table's scan (JSON)
  /tables/books/items/PK,SK      one item's page (HTML)
and looks for the expected names and values on them.  dynamodb-admin is
installed at run time into NPMDIR (pinned below; see node_env.py); without
node/npm the test prints SKIP and exits 77.  Pinned: dynamodb-admin 5.3.3
(Node >= 20 through its AWS SDK dependency: skipped on an older Node)."""
import html
import json
import os
import signal
import subprocess
import sys
import urllib.parse
import urllib.request

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import node_env  # noqa: E402
from serve_proc import Server  # noqa: E402

PACKAGES = {"dynamodb-admin": "5.3.3"}
NODE_MIN = 20


def call(endpoint, op, body):
    req = urllib.request.Request(endpoint, data=json.dumps(body).encode(), method="POST", headers={
        "Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "DynamoDB_20120810." + op})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.load(r)


def fill(endpoint):
    for name in ("books", "authors"):
        call(endpoint, "CreateTable", {
            "TableName": name, "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                     {"AttributeName": "sk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                          {"AttributeName": "sk", "KeyType": "RANGE"}]})
    for i in range(1, 6):
        call(endpoint, "PutItem", {"TableName": "books", "Item": {
            "pk": {"S": "author#%d" % (i % 2)}, "sk": {"S": "book#%03d" % i},
            "title": {"S": "Title number %d" % i}, "pages": {"N": str(100 * i)}}})


def get(url):
    with urllib.request.urlopen(url, timeout=60) as r:
        return r.status, r.read().decode()


def check(cond, what, page):
    if not cond:
        sys.stderr.write("FAIL: %s\n--- page ---\n%s\n" % (what, page[:4000]))
        sys.exit(1)


def main():
    ddb, workdir, npmdir = sys.argv[1:4]
    node_env.need_node()
    major = int(subprocess.check_output(["node", "-p", "process.versions.node.split('.')[0]"], text=True))
    if major < NODE_MIN:
        print("SKIP: dynamodb-admin %s needs Node >= %d (this is %d)" % (PACKAGES["dynamodb-admin"], NODE_MIN, major))
        return 77
    modules = node_env.install(npmdir, PACKAGES)
    with Server(ddb, workdir) as s:
        fill(s.endpoint)
        log = open(os.path.join(workdir, "admin.log"), "w")
        admin = subprocess.Popen(
            ["node", os.path.join(modules, "dynamodb-admin", "dist", "dynamodb-admin.js"),
             "--host", "127.0.0.1", "--port", "0", "--dynamo-endpoint", s.endpoint],
            stdout=subprocess.PIPE, stderr=log, text=True, stdin=subprocess.DEVNULL)
        try:
            line = ""
            for _ in range(10):  # "  database endpoint: ...", "  dynamodb-admin listening on http://127.0.0.1:PORT"
                line = admin.stdout.readline()
                if not line or "listening on http://" in line:
                    break
            check("listening on http://" in line, "dynamodb-admin did not start (see admin.log)", line)
            base = line.split("listening on ")[1].split()[0]

            status, page = get(base + "/")
            check(status == 200, "table list status %d" % status, page)
            for name in ("books", "authors"):
                check("/tables/%s'" % name in page, "table %s linked on the table list" % name, page)

            status, body = get(base + "/tables/books/items")
            scan = json.loads(body)
            titles = sorted(item["title"] for item in scan["Items"])
            check(titles == ["Title number %d" % i for i in range(1, 6)], "the scan page's items: %s" % titles, body)

            key = urllib.parse.quote("author#1,book#003", safe="")
            status, page = get(base + "/tables/books/items/" + key)
            text = html.unescape(page)
            check(status == 200, "item page status %d" % status, page)
            for want in ('"title": "Title number 3"', '"pages": 300', '"sk": "book#003"'):
                check(want in text, "%s on the item page" % want, text)
            check("Title number 1" not in text, "only the one item on its page", text)
        finally:
            admin.send_signal(signal.SIGTERM)
            admin.wait(timeout=30)
            admin.stdout.close()
            log.close()
        rc = s.stop()
    if rc != 0:
        sys.stderr.write("ddb serve exited %d at SIGTERM (see %s/server.log)\n" % (rc, workdir))
        return 1
    print("dynamodb-admin: table list and item page show the expected tables and items")
    return 0


if __name__ == "__main__":
    sys.exit(main())
