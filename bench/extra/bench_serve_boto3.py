#!/usr/bin/env python3
"""ddb-bench-serve's second client: boto3 from one process (issue 15 item 5),
`ddb serve` vs dynalite, PutItem / GetItem / a 100-item Query; ops/s and
p99 per operation.  A benchmark, not a test.

    bench_serve_boto3.py DDB_TOOL DYNALITE_DIR [--seconds S]

DDB_TOOL: the `ddb` binary (e.g. build-bx/tools/ddb/ddb); DYNALITE_DIR:
where tests/remote/dynalite.sh installs dynalite (once, with npm).  The
workload is ddb-bench-serve's (bench/extra/remote_work.c): 20 partitions x
100 items of ~200 bytes.  Calls boto3 (Debian python3-boto3),
tests/serve/serve_proc.py and tests/remote/dynalite.sh."""
import os
import random
import subprocess
import sys
import tempfile
import time

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(root, "tests", "serve"))
from serve_proc import Server  # noqa: E402

PARTS, PER_PART, DATA_LEN = 20, 100, 150
TABLE = "remote_bench"


def client(endpoint):
    import boto3
    from botocore.config import Config
    return boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="x",
                        aws_secret_access_key="y", config=Config(retries={"max_attempts": 1}))


def item(i, version):
    return {"pk": {"S": "user#%08u" % (i // PER_PART)}, "sk": {"S": "order#%04u" % (i % PER_PART)},
            "version": {"N": str(version)}, "data": {"B": bytes((i * 13 + version * 7 + k) & 255 for k in range(DATA_LEN))}}


def load(c):
    c.create_table(TableName=TABLE, BillingMode="PAY_PER_REQUEST",
                   AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                         {"AttributeName": "sk", "AttributeType": "S"}],
                   KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}])
    n = PARTS * PER_PART
    for base in range(0, n, 25):
        c.batch_write_item(RequestItems={TABLE: [{"PutRequest": {"Item": item(i, 0)}} for i in range(base, base + 25)]})


def run(c, op, secs):
    rng = random.Random(1)
    lat, version, end = [], 0, time.monotonic() + secs
    while time.monotonic() < end:
        i = rng.randrange(PARTS * PER_PART)
        t0 = time.monotonic()
        if op == "put":
            version += 1
            c.put_item(TableName=TABLE, Item=item(i, version))
        elif op == "get":
            r = c.get_item(TableName=TABLE, Key={"pk": {"S": "user#%08u" % (i // PER_PART)},
                                                 "sk": {"S": "order#%04u" % (i % PER_PART)}})
            assert len(r["Item"]["data"]["B"]) == DATA_LEN
        else:
            r = c.query(TableName=TABLE, KeyConditionExpression="pk = :p",
                        ExpressionAttributeValues={":p": {"S": "user#%08u" % (i % PARTS)}})
            assert r["Count"] == PER_PART and "LastEvaluatedKey" not in r
        lat.append(time.monotonic() - t0)
    lat.sort()
    return len(lat) / sum(lat), lat[max(0, (len(lat) * 99 + 99) // 100 - 1)] * 1e3


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: bench_serve_boto3.py DDB_TOOL DYNALITE_DIR [--seconds S]")
    ddb, dyn_dir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    secs = float(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "--seconds" else 3.0
    for var in ("AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"):
        os.environ[var] = "/nonexistent"
    out = subprocess.run(["sh", os.path.join(root, "tests", "remote", "dynalite.sh"), "start", dyn_dir, str(os.getpid())],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("dynalite: %s%s" % (out.stdout, out.stderr))
    port, pid = out.stdout.split()
    try:
        with tempfile.TemporaryDirectory() as work, \
                Server(ddb, work, ["--sync", "none", "--log-level", "none", "--threads", "8"]) as s:
            ends = {"ddb serve": s.endpoint, "dynalite": "http://127.0.0.1:%s" % port}
            res = {}
            for name, ep in ends.items():
                c = client(ep)
                load(c)
                for op in ("put", "get", "query"):
                    res[name, op] = run(c, op, secs)
                    print("  %-9s %-5s %8.0f ops/s p99 %.2f ms" % (name, op, *res[name, op]), file=sys.stderr)
    finally:
        subprocess.call(["kill", pid])
    print("boto3 %s, one process, one thread, %g-second phases; load average %.2f\n" %
          (__import__("boto3").__version__, secs, os.getloadavg()[0]))
    print("| operation | ddb serve ops/s | dynalite ops/s | serve / dynalite | ddb serve p99 ms | dynalite p99 ms |")
    print("|---|---:|---:|---:|---:|---:|")
    for op, label in (("put", "put"), ("get", "get"), ("query", "query (100 items)")):
        a, b = res["ddb serve", op], res["dynalite", op]
        print("| %s | %.0f | %.0f | %.2fx | %.2f | %.2f |" % (label, a[0], b[0], a[0] / b[0], a[1], b[1]))


if __name__ == "__main__":
    main()
