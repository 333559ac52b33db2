#!/usr/bin/env python3
"""`ddb serve` against slow, many and hostile clients (issue 22, section 4),
over loopback with raw sockets (rawhttp.py): every case asserts an outcome
(a request answered, a connection closed by the server, a request refused),
each wait bounded so a regression fails instead of hanging.

usage: test_serve_hardening.py DDB_TOOL WORKDIR CASE
CASE: keepalive | trickle | crowd | auth | nul | tls | decodecost | slowread | headers
"""
import json
import os
import selectors
import shutil
import socket
import ssl
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rawhttp  # noqa: E402
from rawhttp import call, closed_by_server, connect, parse_head, request_bytes, trickle  # noqa: E402
from serve_proc import Server  # noqa: E402

DDB, WORK, CASE = sys.argv[1], sys.argv[2], sys.argv[3]

TABLE = {"TableName": "tbl", "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
         "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST"}


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def answered(port, source="127.0.0.1"):
    r = call(port, "ListTables", {}, timeout=30, source=source)
    return r is not None and r.status == 200


def keepalive_clients(port, n, rounds, wait):
    """n keep-alive connections, each sending rounds requests one after the
    other; (answers, connections left hanging, connections closed)."""
    check(rawhttp.raise_fd_limit(n + 64), "cannot open %d sockets here (ulimit -Hn)" % n)
    sel = selectors.DefaultSelector()
    req = request_bytes("DescribeLimits", {})
    conns = []
    for _ in range(n):
        s = socket.socket()
        s.setblocking(False)
        s.connect_ex(("127.0.0.1", port))
        st = {"s": s, "buf": b"", "done": 0, "closed": False}
        conns.append(st)
        sel.register(s, selectors.EVENT_WRITE, st)
    end = time.monotonic() + wait
    connecting = n
    while connecting and time.monotonic() < end:
        for key, _ in sel.select(timeout=1):
            st = key.data
            sel.unregister(st["s"])
            connecting -= 1
            try:
                st["s"].send(req)
                sel.register(st["s"], selectors.EVENT_READ, st)
            except OSError:
                st["closed"] = True
    pending = sum(1 for st in conns if not st["closed"])
    while pending and time.monotonic() < end:
        for key, _ in sel.select(timeout=1):
            st = key.data
            chunk = rawhttp.recv_ready(st["s"])
            if chunk is None:
                continue
            if not chunk:
                sel.unregister(st["s"])
                st["closed"] = True
                pending -= 1
                continue
            st["buf"] += chunk
            head = parse_head(st["buf"])
            if head and len(st["buf"]) >= head[2] + head[1]:
                check(head[0].status == 200, "status %d" % head[0].status)
                st["buf"] = st["buf"][head[2] + head[1]:]
                st["done"] += 1
                if st["done"] == rounds:
                    sel.unregister(st["s"])
                    pending -= 1
                else:
                    st["s"].send(req)
    answers = sum(st["done"] for st in conns)
    hung = sum(1 for st in conns if st["done"] < rounds and not st["closed"])
    closed = sum(1 for st in conns if st["closed"])
    for st in conns:
        st["s"].close()
    return answers, hung, closed


def case_keepalive():
    # 1,000 keep-alive clients, below the documented 1,024 (docs/SERVER.md,
    # default settings): libmicrohttpd 0.9.75 split the limit into 256 per
    # worker thread and a worker holding exactly 256 stopped serving them
    # (256 requests hung until the client gave up).  Every request answered.
    # A burst of 1,000 connections must fit the listen queue too: with a
    # backlog of 512, a slow server (the ASan build) found every connection
    # reset before it accepted them.
    with Server(DDB, WORK, ["--log-level", "warn"]) as s:
        answers, hung, closed = keepalive_clients(s.port, 1000, 30, 120)
        check(hung == 0 and closed == 0, "%d of 1000 connections hung, %d closed (%d answers)" %
              (hung, closed, answers))
        check(answers == 30000, "answers: %d" % answers)


def case_trickle():
    # Slowloris: a byte every 0.5 s resets libmicrohttpd's idle timer
    # (--timeout), so a trickled request used to live for ever.  With
    # --request-timeout 2 the server closes it; 60 bytes (30 s) never arrive.
    with Server(DDB, WORK, ["--timeout", "3", "--request-timeout", "2", "--log-level", "warn"]) as s:
        # the request line trickled (due within --timeout of the opening)
        c = connect(s.port)
        sent = trickle(c, request_bytes("ListTables", {}), 0.5, 60)
        c.close()
        check(sent < 60, "a trickled request line lived %d bytes (30 s)" % sent)
        # the request line at once, the headers trickled (due within --request-timeout)
        c = connect(s.port)
        whole = request_bytes("ListTables", {})
        line = whole.index(b"\r\n") + 2
        c.sendall(whole[:line])
        sent = trickle(c, whole[line:], 0.5, 60)
        c.close()
        check(sent < 60, "trickled headers lived %d bytes (30 s)" % sent)
        # the headers at once, the body trickled
        c = connect(s.port)
        whole = request_bytes("PutItem", {"TableName": "tbl", "Item": {"pk": {"S": "x" * 200}}})
        split = whole.index(b"\r\n\r\n") + 4
        c.sendall(whole[:split])
        sent = trickle(c, whole[split:], 0.5, 60)
        c.close()
        check(sent < 60, "a trickled body lived %d bytes (30 s)" % sent)
        # an idle keep-alive connection is closed by --timeout, a normal one answered
        c = connect(s.port)
        check(closed_by_server(c, 15), "an idle connection outlived --timeout 3")
        c.close()
        check(answered(s.port), "a normal request was not answered")
        with open(s.log.name) as f:
            check("past their deadline" in f.read(), "the deadline closes are not logged")


def slow_connection(port, source):
    """A connection that sent the first bytes of a request and stops: None
    when the server refused it (closed at once)."""
    try:
        c = connect(port, source, timeout=5)
        c.send(b"POST / HTTP/1.1\r\nHost: x\r\n")
    except OSError:
        return None
    if closed_by_server(c, 0.05):
        c.close()
        return None
    return c


def case_crowd():
    # Many slow clients: per address at most --max-per-address, in all at
    # most --max-connections, and past the limit a new connection is closed
    # at once (not queued); the slow ones are closed at their deadline and
    # a normal client is answered throughout.
    args = ["--max-connections", "120", "--max-per-address", "40", "--timeout", "15", "--request-timeout", "15",
            "--threads", "4", "--log-level", "warn"]
    with Server(DDB, WORK, args) as s:
        slow = [slow_connection(s.port, "127.0.0.2") for _ in range(50)]
        kept = [c for c in slow if c]
        check(len(kept) == 40, "127.0.0.2 holds %d connections (--max-per-address 40)" % len(kept))
        check(answered(s.port), "a normal client was not answered next to 40 slow ones")
        for src in ("127.0.0.3", "127.0.0.4"):
            kept += [c for c in (slow_connection(s.port, src) for _ in range(40)) if c]
        check(len(kept) == 120, "%d slow connections open (120 expected)" % len(kept))
        # the limit is reached: a new connection is refused at once
        late = connect(s.port, "127.0.0.5", timeout=5)
        try:
            late.sendall(request_bytes("ListTables", {}))
            r = rawhttp.read_response(late, time.monotonic() + 10)
            check(r is None or r.status == 503, "past the limit: %r" % (r and r.status))
        except TimeoutError:
            raise AssertionError("past --max-connections a connection waited instead of being refused")
        except OSError:
            pass  # reset: refused
        late.close()
        # the deadline closes every slow connection; the server serves again
        still = [c for c in kept if not closed_by_server(c, 40)]
        for c in kept:
            c.close()
        check(not still, "%d slow connections outlived their deadline" % len(still))
        rawhttp.time.sleep(0.5)
        check(answered(s.port, "127.0.0.5"), "not answered once the slow clients were gone")
        with open(s.log.name) as f:
            log = f.read()
        check("refused" in log, "refusals are not logged")


def case_auth():
    # SigV4 (AWS General Reference, "Create a signed AWS API request"): the
    # host and x-amz-date headers are signed, and so is every x-amz-* header
    # sent.  A request whose SignedHeaders leave out X-Amz-Target could be
    # replayed as another operation with the same body.
    try:
        from botocore.auth import SigV4Auth
        from botocore.awsrequest import AWSRequest
        from botocore.credentials import Credentials
    except ImportError:
        print("skipped: botocore is not installed")
        sys.exit(77)
    os.makedirs(WORK, exist_ok=True)
    keys = os.path.join(WORK, "keys")
    with open(keys, "w") as f:
        f.write("AKIDHARDEN secret-harden\n")
    creds = Credentials("AKIDHARDEN", "secret-harden")

    def signed(port, op, body, sign_target=True):
        """A request signed by botocore; its X-Amz-Target added after signing
        when sign_target is false (what a replay with another operation is)."""
        headers = {"Content-Type": "application/x-amz-json-1.0"}
        if sign_target:
            headers["X-Amz-Target"] = rawhttp.TARGET + op
        req = AWSRequest(method="POST", url="http://127.0.0.1:%d/" % port, data=body, headers=headers)
        SigV4Auth(creds, "dynamodb", "us-east-1").add_auth(req)
        lines = ["POST / HTTP/1.1", "Host: 127.0.0.1:%d" % port, "Content-Length: %d" % len(body)]
        lines += ["%s: %s" % (k, v) for k, v in req.headers.items()]
        if not sign_target:
            lines.append("X-Amz-Target: " + rawhttp.TARGET + op)
        c = connect(port)
        try:
            c.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + body.encode())
            return rawhttp.read_response(c, time.monotonic() + 30)
        finally:
            c.close()

    import json
    with Server(DDB, WORK, ["--auth", keys, "--log-level", "warn"]) as s:
        def post(op, body, sign_target=True):
            return signed(s.port, op, json.dumps(body), sign_target)
        # a properly signed request works (the baseline of the cases below)
        r = post("CreateTable", TABLE)
        check(r.status == 200, "signed CreateTable: %d %s" % (r.status, r.body))
        r = post("DeleteTable", {"TableName": "tbl"}, sign_target=False)
        check(r.status == 400 and b"IncompleteSignatureException" in r.body and b"x-amz-target" in r.body,
              "an unsigned X-Amz-Target was accepted: %d %s" % (r.status, r.body))
        r = post("DescribeTable", {"TableName": "tbl"})
        check(r.status == 200, "the table is gone: %d %s" % (r.status, r.body))


def case_nul():
    # A raw NUL byte is not JSON (RFC 8259: no control character outside a
    # string, none unescaped inside one); DynamoDB answers a body that is not
    # JSON with a SerializationException (API_Operations: Common Errors).
    with Server(DDB, WORK, ["--log-level", "warn"]) as s:
        check(call(s.port, "CreateTable", TABLE).status == 200, "CreateTable")
        good = b'{"TableName":"tbl","Item":{"pk":{"S":"a"}}}'
        for i in (0, len(good) // 2, len(good), good.index(b'"a"') + 2):
            body = good[:i] + b"\x00" + good[i:]
            r = call(s.port, "PutItem", body)
            check(r.status == 400 and b"SerializationException" in r.body,
                  "a NUL at %d: %d %s" % (i, r.status, r.body))
        r = call(s.port, "Scan", {"TableName": "tbl"})
        check(r.json()["Count"] == 0, "an item was written from a body with a NUL")
        # an escaped NUL (\u0000) inside a string value is data (RFC 8259
        # escapes; DynamoDB's String type is any UTF-8, and U+0000 is UTF-8):
        # stored and read back whole
        for item in ({"pk": {"S": "a\u0000b"}, "ss": {"SS": ["x\u0000", "x"]}}, {"pk": {"S": "\u0000"}}):
            r = call(s.port, "PutItem", {"TableName": "tbl", "Item": item})
            check(r.status == 200, "PutItem with \\u0000 in a string: %d %s" % (r.status, r.body))
            r = call(s.port, "GetItem", {"TableName": "tbl", "Key": {"pk": item["pk"]}})
            got = r.json().get("Item", {}) if r.status == 200 else {}
            if "ss" in got:
                got["ss"]["SS"].sort()
                item["ss"]["SS"].sort()
            check(got == item, "read back: %s" % r.body)
        # where the server would cut a name short, it refuses instead
        for body in ({"TableName": "tb\u0000l", "Key": {"pk": {"S": "a"}}},
                     {"TableName": "tbl", "Key": {"pk": {"S": "a"}}, "ProjectionExpression": "#n",
                      "ExpressionAttributeNames": {"#n": "p\u0000k"}},
                     {"TableName": "tbl", "Key": {"pk": {"S": "a"}}, "ProjectionExpression": "#n",
                      "ExpressionAttributeNames": {"#n\u0000x": "pk"}}):
            r = call(s.port, "GetItem", body)
            # (jansson itself refuses a NUL in a member name: SerializationException)
            check(r.status == 400 and (b"ValidationException" in r.body or b"SerializationException" in r.body)
                  and b"NUL" in r.body,
                  "a NUL in a name: %d %s" % (r.status, r.body))


def case_tls():
    # --tls-cert/--tls-key: HTTPS with a self-signed certificate made here;
    # a client given the certificate as its CA is answered, plain HTTP is not.
    openssl = shutil.which("openssl")
    if not openssl:
        print("skipped: no openssl command")
        sys.exit(77)
    os.makedirs(WORK, exist_ok=True)
    cert, key = os.path.join(WORK, "cert.pem"), os.path.join(WORK, "key.pem")
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                    "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    with Server(DDB, WORK, ["--tls-cert", cert, "--tls-key", key, "--log-level", "warn"]) as s:
        ctx = ssl.create_default_context(cafile=cert)
        raw = connect(s.port)
        c = ctx.wrap_socket(raw, server_hostname="127.0.0.1")
        c.sendall(request_bytes("ListTables", {}))
        r = rawhttp.read_response(c, time.monotonic() + 30)
        c.close()
        check(r is not None and r.status == 200 and r.json() == {"TableNames": []}, "over TLS: %r" % (r and r.body))
        # plain HTTP to the TLS port gets no DynamoDB answer
        raw = connect(s.port)
        raw.sendall(request_bytes("ListTables", {}))
        try:
            r = rawhttp.read_response(raw, time.monotonic() + 10)
        except (TimeoutError, ValueError, IndexError):
            r = None
        raw.close()
        check(r is None or r.status != 200, "plain HTTP was answered on the TLS port")
        try:
            import boto3
            from botocore.config import Config
        except ImportError:
            return
        ddb = boto3.client("dynamodb", endpoint_url="https://127.0.0.1:%d" % s.port, region_name="us-east-1",
                           aws_access_key_id="k", aws_secret_access_key="s", verify=cert,
                           config=Config(retries={"max_attempts": 1}))
        ddb.create_table(**TABLE)
        check(ddb.list_tables()["TableNames"] == ["tbl"], "boto3 over TLS")
    # a missing or malformed certificate is refused before serving
    bad = subprocess.run([DDB, "--db", os.path.join(WORK, "db2"), "serve", "--listen", "127.0.0.1:0",
                          "--tls-cert", key + ".missing", "--tls-key", key], capture_output=True, text=True,
                         timeout=60)
    check(bad.returncode != 0 and "tls-cert" in bad.stderr, "missing certificate: %d %s" % (bad.returncode, bad.stderr))


def case_slowread():
    # A client that reads its answer a little at a time also resets the idle
    # timer: the answer must be computed and read within --response-timeout,
    # after which the server resets the connection (queued data dropped).
    # BatchGetItem answers up to 16 MB (API_BatchGetItem), more than the
    # socket buffers hold.
    with Server(DDB, WORK, ["--response-timeout", "3", "--timeout", "60", "--sync", "none",
                            "--log-level", "warn"]) as s:
        check(call(s.port, "CreateTable", TABLE).status == 200, "CreateTable")
        big = "x" * (390 * 1024)
        for i in range(40):
            r = call(s.port, "PutItem", {"TableName": "tbl", "Item": {"pk": {"S": "b%d" % i}, "v": {"S": big}}})
            check(r.status == 200, "PutItem %d: %d" % (i, r.status))
        c = socket.socket()
        c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        c.settimeout(10)
        c.connect(("127.0.0.1", s.port))
        c.sendall(request_bytes("BatchGetItem", {"RequestItems": {"tbl": {
            "Keys": [{"pk": {"S": "b%d" % i}} for i in range(40)]}}}))
        got, closed = 0, False
        end = time.monotonic() + 30
        while time.monotonic() < end and not closed:
            try:
                chunk = c.recv(1024)
                closed = not chunk
                got += len(chunk)
            except (ConnectionResetError, BrokenPipeError):
                closed = True
            time.sleep(0.1)
        c.close()
        check(closed, "a slow reader held its connection 30 s (%d bytes read)" % got)
        check(answered(s.port), "a normal request was not answered")


def null_list_item(n):
    return {"TableName": "tbl", "Item": {"pk": {"S": "l%d" % n}, "l": {"L": [{"NULL": True}] * n}}}


def case_decodecost():
    # --body-memory bounds the request bodies held at once and, since a body
    # of tiny values decodes into many times its size (400 MB for a 14 MB
    # PutItem of 640,000 map keys), the memory their decoding takes while
    # they are handled: past it a ThrottlingException, which the SDKs retry
    # (DynamoDB developer guide, Programming.Errors "Error retries and
    # exponential backoff").
    import json
    with Server(DDB, WORK, ["--body-memory", "16", "--log-level", "warn"]) as s:
        check(call(s.port, "CreateTable", TABLE).status == 200, "CreateTable")
        # A holds 4 MB of the budget: a 3 MB body, 2.5 MB of it sent
        total = 3 << 20
        first = b'{"x":"' + b"a" * (5 << 19)
        a = connect(s.port, timeout=60)
        a.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n"
                  b"Content-Length: %d\r\n\r\n" % total + first)
        # B: a 300 KB body of 20,000 list elements decodes into about 13 MB
        small = null_list_item(20000)
        deadline = time.monotonic() + 30
        while True:
            r = call(s.port, "PutItem", small)
            if r.status == 400 and b"ThrottlingException" in r.body:
                break
            check(time.monotonic() < deadline, "B was not throttled while A holds the budget: %d %s" %
                  (r.status, r.body[:200]))
            time.sleep(0.1)
        a.sendall(b"a" * (total - len(first) - 2) + b'"}')
        ra = rawhttp.read_response(a, time.monotonic() + 60)
        a.close()
        check(ra is not None and ra.status == 200, "A: %r" % (ra and ra.body[:200]))
        r = call(s.port, "PutItem", small)
        check(r.status == 200, "B once A is done: %d %s" % (r.status, r.body[:200]))
        # C alone costs more than the whole budget (100,000 elements, 1.5 MB):
        # it runs, since nothing else holds memory
        r = call(s.port, "PutItem", null_list_item(100000))
        check(r.status == 200, "C alone: %d %s" % (r.status, r.body[:200]))
        r = call(s.port, "GetItem", {"TableName": "tbl", "Key": {"pk": {"S": "l100000"}}})
        check(len(json.loads(r.body)["Item"]["l"]["L"]) == 100000, "C read back")


def case_headers():
    # libmicrohttpd keeps 8 KiB per connection (http.c, CONNECTION_MEMORY):
    # a request whose line and headers fit is answered, one whose headers do
    # not is answered 431 (RFC 6585, Request Header Fields Too Large) and the
    # server goes on; the next requests on a kept-alive connection are
    # answered after a large one.
    with Server(DDB, WORK, ["--log-level", "error"]) as s:
        check(call(s.port, "CreateTable", TABLE).status == 200, "CreateTable")
        r = call(s.port, "ListTables", {}, extra=["X-Pad: " + "p" * 6000])
        check(r is not None and r.status == 200, "6 KB of headers: %r" % (r and r.status))
        r = call(s.port, "ListTables", {}, extra=["X-Pad: " + "p" * 9000])
        check(r is not None and r.status == 431, "9 KB of headers: %r" % (r and r.status))
        c = connect(s.port)
        item = {"TableName": "tbl", "Item": {"pk": {"S": "big"}, "v": {"S": "x" * 100000}}}
        for body in (item, {"TableName": "tbl", "Key": {"pk": {"S": "big"}}}):
            c.sendall(request_bytes("PutItem" if "Item" in body else "GetItem", body))
            r = rawhttp.read_response(c, time.monotonic() + 30)
            check(r is not None and r.status == 200, "kept-alive request: %r" % (r and r.body[:200]))
        check(len(json.loads(r.body)["Item"]["v"]["S"]) == 100000, "the 100 KB value read back")
        c.close()


CASES = {"keepalive": case_keepalive, "headers": case_headers, "trickle": case_trickle, "crowd": case_crowd, "auth": case_auth,
         "nul": case_nul, "tls": case_tls, "decodecost": case_decodecost,
         "slowread": case_slowread}

if __name__ == "__main__":
    shutil.rmtree(WORK, ignore_errors=True)
    CASES[CASE]()
    print("ok:", CASE)
