#!/usr/bin/env python3
"""The memory of `ddb serve` holding N idle keep-alive connections (issue 15
item 5): VmRSS of the server before and after N clients each send one
ListTables request and then stay connected without sending anything.

    serve_idle_memory.py DDB [N]       (N defaults to 1000)

Prints one line per measurement; not a test (no assertion on the numbers)."""
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def main():
    ddb = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, n + 64)), hard))
    work = tempfile.mkdtemp(prefix="ddb-idle-")
    port_file = os.path.join(work, "port")
    proc = subprocess.Popen([ddb, "--db", os.path.join(work, "db"), "serve", "--listen", "127.0.0.1:0",
                             "--port-file", port_file, "--log-level", "none",
                             "--max-connections", str(n + 16), "--timeout", "600"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE,
                                                                  (min(hard, n + 256), hard)))
    try:
        for _ in range(100):
            if os.path.exists(port_file) and open(port_file).read().strip():
                break
            time.sleep(0.05)
        port = int(open(port_file).read())
        time.sleep(0.2)
        before = rss_kib(proc.pid)
        body = json.dumps({}).encode()
        req = (b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n"
               b"Content-Type: application/x-amz-json-1.0\r\nContent-Length: %d\r\n\r\n" % len(body)) + body
        socks, answered = [], 0
        for _ in range(n):
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(req)
            answered += s.recv(65536).startswith(b"HTTP/1.1 200")
            socks.append(s)
        time.sleep(0.5)
        after = rss_kib(proc.pid)
        print("ddb serve RSS: %d KiB idle, %d KiB with %d idle keep-alive connections "
              "(%.1f KiB per connection; %d of them answered 200)" % (before, after, n, (after - before) / n,
                                                                      answered))
        for s in socks:
            s.close()
    finally:
        proc.terminate()
        proc.wait()


if __name__ == "__main__":
    main()
