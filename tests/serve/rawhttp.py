"""Raw HTTP/1.1 over sockets for the connection tests of `ddb serve`
(test_serve_limits.py, test_serve_soak.py): DynamoDB requests written by
hand, so that a test controls every byte and its timing (a trickled header,
a body that never ends, a thousand keep-alive connections in one process),
and responses read with a bound on size and time.
"""
import json
import resource
import select
import socket
import time

TARGET = "DynamoDB_20120810."


def raise_fd_limit(need):
    """This process opens many sockets: take the hard limit if need be."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(need, hard), hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0] >= need


def request_bytes(op, body, host="127.0.0.1", extra=()):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    head = ["POST / HTTP/1.1", "Host: " + host, "X-Amz-Target: " + TARGET + op,
            "Content-Type: application/x-amz-json-1.0", "Content-Length: %d" % len(data)]
    head += list(extra)
    return ("\r\n".join(head) + "\r\n\r\n").encode() + data


def connect(port, source="127.0.0.1", timeout=10):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.bind((source, 0))
    s.connect(("127.0.0.1", port))
    return s


class Response:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    def json(self):
        return json.loads(self.body)


def parse_head(buf):
    """(Response without body, content length, header end) or None while incomplete."""
    end = buf.find(b"\r\n\r\n")
    if end < 0:
        return None
    lines = buf[:end].decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for ln in lines[1:]:
        k, _, v = ln.partition(":")
        headers[k.strip().lower()] = v.strip()
    return Response(status, headers, b""), int(headers.get("content-length", "0")), end + 4


def read_response(s, deadline):
    """One response from s, or None when the server closed the connection
    first; raises TimeoutError past deadline (time.monotonic())."""
    buf = b""
    while True:
        head = parse_head(buf)
        if head and len(buf) >= head[2] + head[1]:
            r = head[0]
            r.body = buf[head[2]:head[2] + head[1]]
            return r
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("no response")
        s.settimeout(left)
        try:
            chunk = s.recv(65536)
        except (ConnectionResetError, BrokenPipeError):
            return None
        if not chunk:
            return None
        buf += chunk


def call(port, op, body, timeout=30, source="127.0.0.1", extra=()):
    s = connect(port, source, timeout)
    try:
        s.sendall(request_bytes(op, body, extra=extra))
        return read_response(s, time.monotonic() + timeout)
    finally:
        s.close()


def recv_ready(s):
    """What a non-blocking socket holds: bytes, b"" once closed (EOF or
    reset), None when nothing has arrived yet."""
    try:
        return s.recv(65536)
    except BlockingIOError:
        return None
    except OSError:
        return b""


def closed_by_server(s, wait):
    """True when the server closes s (EOF or reset) within wait seconds."""
    end = time.monotonic() + wait
    while time.monotonic() < end:
        r, _, _ = select.select([s], [], [], max(0.0, end - time.monotonic()))
        if not r:
            continue
        try:
            if not s.recv(65536):
                return True
        except (ConnectionResetError, BrokenPipeError):
            return True
    return False


def trickle(s, data, interval, limit):
    """Send data one byte every interval seconds, at most limit bytes;
    returns the number of bytes sent before the server closed s (limit
    when it never did)."""
    for i in range(min(limit, len(data))):
        try:
            s.send(data[i:i + 1])
        except (ConnectionResetError, BrokenPipeError):
            return i
        if closed_by_server(s, interval):
            return i + 1
    return min(limit, len(data))
