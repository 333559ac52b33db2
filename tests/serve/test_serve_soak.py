#!/usr/bin/env python3
"""A bounded soak of `ddb serve` (issue 22 §4): for SOAK_SECONDS (default
40, at most 60) 200 keep-alive clients run a mix of operations (PutItem,
GetItem, UpdateItem, Query, Scan, DeleteItem, BatchWriteItem) with a short
pause between requests, while 40 slow clients from another address trickle
requests a byte at a time and reconnect whenever the server closes them.

What must hold (loose bounds: a loaded CI machine must pass, a hang or a
starved client must not): every normal request answered, none with a 5xx,
none slower than 5 s, p99 under 2 s; every slow connection closed by the
server at its deadline; the server's resident memory under 512 MB and not
growing by more than 64 MB over the second half of the run.

usage: test_serve_soak.py DDB_TOOL WORKDIR
"""
import json
import os
import random
import selectors
import shutil
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rawhttp  # noqa: E402
from rawhttp import call, parse_head, request_bytes  # noqa: E402
from serve_proc import Server  # noqa: E402

DDB, WORK = sys.argv[1], sys.argv[2]
SECONDS = min(60.0, float(os.environ.get("SOAK_SECONDS", "40")))
NORMAL, SLOW = 200, 40


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def rss_mb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return 0.0


def next_request(rng):
    k = "k%d" % rng.randrange(2000)
    pk = {"pk": {"S": "p%d" % rng.randrange(50)}, "sk": {"S": k}}
    op = rng.choice(["PutItem", "PutItem", "GetItem", "GetItem", "UpdateItem", "Query", "Scan", "DeleteItem",
                     "BatchWriteItem"])
    if op == "PutItem":
        body = {"TableName": "soak", "Item": dict(pk, v={"S": "x" * rng.randrange(1, 2000)})}
    elif op == "GetItem":
        body = {"TableName": "soak", "Key": pk}
    elif op == "UpdateItem":
        body = {"TableName": "soak", "Key": pk, "UpdateExpression": "ADD n :one",
                "ExpressionAttributeValues": {":one": {"N": "1"}}}
    elif op == "Query":
        body = {"TableName": "soak", "KeyConditionExpression": "pk = :p", "Limit": 20,
                "ExpressionAttributeValues": {":p": pk["pk"]}}
    elif op == "Scan":
        body = {"TableName": "soak", "Limit": 20}
    elif op == "DeleteItem":
        body = {"TableName": "soak", "Key": pk}
    else:
        body = {"RequestItems": {"soak": [{"PutRequest": {"Item": {"pk": pk["pk"], "sk": {"S": "b%d" % i}}}}
                                          for i in range(rng.randrange(1, 10))]}}
    return request_bytes(op, body)


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    check(rawhttp.raise_fd_limit(NORMAL + SLOW + 64), "cannot open enough sockets here")
    args = ["--sync", "lazy", "--timeout", "10", "--request-timeout", "4", "--log-level", "warn"]
    with Server(DDB, WORK, args) as s:
        r = call(s.port, "CreateTable", {
            "TableName": "soak", "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                     {"AttributeName": "sk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]})
        check(r.status == 200, "CreateTable: %r" % (r and r.body))
        rng = random.Random(22)
        sel = selectors.DefaultSelector()
        normal = []
        for _ in range(NORMAL):
            c = rawhttp.connect(s.port)
            c.setblocking(False)
            st = {"s": c, "buf": b"", "sent": None, "wake": time.monotonic() + rng.random()}
            normal.append(st)
            sel.register(c, selectors.EVENT_READ, ("n", st))
        slow = []

        def open_slow():
            c = socket.socket()
            c.bind(("127.0.0.2", 0))
            c.setblocking(False)
            c.connect_ex(("127.0.0.1", s.port))
            st = {"s": c, "data": request_bytes("ListTables", {}), "at": 0, "next": time.monotonic() + 0.5}
            slow.append(st)
            sel.register(c, selectors.EVENT_READ, ("s", st))

        for _ in range(SLOW):
            open_slow()
        latencies, statuses, slow_closed = [], {}, 0
        start = time.monotonic()
        end = start + SECONDS
        rss_mid = None
        while True:
            now = time.monotonic()
            if now >= end and all(st["sent"] is None for st in normal):
                break
            check(now < end + 30, "normal requests still unanswered 30 s after the end")
            if rss_mid is None and now >= start + SECONDS / 2:
                rss_mid = rss_mb(s.proc.pid)
            for st in normal:
                if st["sent"] is None and now < end and now >= st["wake"]:
                    st["s"].sendall(next_request(rng))
                    st["sent"] = now
            for st in list(slow):
                if now >= st["next"] and now < end:
                    try:
                        st["s"].send(st["data"][st["at"]:st["at"] + 1])
                        st["at"] = (st["at"] + 1) % len(st["data"])
                    except OSError:
                        pass  # closed by the server: seen as EOF below
                    st["next"] = now + 0.5
            for key, _ in sel.select(timeout=0.05):
                kind, st = key.data
                chunk = rawhttp.recv_ready(st["s"])
                if chunk is None:
                    continue
                if kind == "s":
                    if not chunk:
                        sel.unregister(st["s"])
                        st["s"].close()
                        slow.remove(st)
                        slow_closed += 1
                        if time.monotonic() < end:
                            open_slow()
                    continue
                check(chunk, "the server closed a normal keep-alive connection")
                st["buf"] += chunk
                head = parse_head(st["buf"])
                if head and len(st["buf"]) >= head[2] + head[1]:
                    resp = head[0]
                    body = st["buf"][head[2]:head[2] + head[1]]
                    st["buf"] = st["buf"][head[2] + head[1]:]
                    latencies.append(time.monotonic() - st["sent"])
                    statuses[resp.status] = statuses.get(resp.status, 0) + 1
                    check(resp.status < 500, "a 5xx answer: %d %s" % (resp.status, body[:300]))
                    check(resp.status == 200, "a normal request refused: %d %s" % (resp.status, body[:300]))
                    json.loads(body)
                    st["sent"] = None
                    st["wake"] = time.monotonic() + 0.2 + rng.random() * 0.4
        rss_end = rss_mb(s.proc.pid)
        for st in normal + slow:
            st["s"].close()
        latencies.sort()
        p99 = latencies[int(len(latencies) * 0.99)] if latencies else 0
        print("soak: %d requests in %.0f s, statuses %s, p99 %.3f s, max %.3f s, slow connections closed %d, "
              "RSS %.0f MB at half time, %.0f MB at the end" %
              (len(latencies), SECONDS, statuses, p99, latencies[-1], slow_closed, rss_mid or 0, rss_end))
        check(len(latencies) >= NORMAL * SECONDS / 2, "only %d requests answered" % len(latencies))
        check(latencies[-1] < 5.0, "a normal request took %.1f s" % latencies[-1])
        check(p99 < 2.0, "p99 latency %.2f s" % p99)
        check(slow_closed >= SLOW, "only %d slow connections were closed by the server" % slow_closed)
        check(rss_end < 512, "RSS %.0f MB" % rss_end)
        check(rss_mid is None or rss_end < rss_mid + 64, "RSS grew from %.0f to %.0f MB" % (rss_mid, rss_end))
        check(s.stop() == 0, "the server did not shut down cleanly")


if __name__ == "__main__":
    main()
    print("ok: soak")
