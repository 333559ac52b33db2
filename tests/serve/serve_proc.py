"""Start and stop `ddb serve` for the tests in tests/serve (and for any later
client test): a fresh database directory, port 0 with --port-file, the
server's stderr kept for the failure report.

    with Server(ddb, workdir, extra_args) as s:
        s.endpoint   # "http://127.0.0.1:PORT"
"""
import os
import select
import shutil
import signal
import subprocess
import time


class Server:
    def __init__(self, ddb, workdir, args=(), now=None, db=None, fresh=True, listen="127.0.0.1:0", sweep_ms=100):
        self.ddb, self.workdir, self.args, self.now, self.listen = ddb, workdir, list(args), now, listen
        self.sweep_ms = sweep_ms
        self.db = db or os.path.join(workdir, "db")
        self.fresh = fresh
        self.proc = None

    def start(self):
        os.makedirs(self.workdir, exist_ok=True)
        if self.fresh:
            shutil.rmtree(self.db, ignore_errors=True)
        self.port_file = os.path.join(self.workdir, "port")
        if os.path.exists(self.port_file):
            os.unlink(self.port_file)
        cmd = [self.ddb, "--db", self.db]
        if self.now is not None:
            cmd += ["--now", str(self.now)]
        cmd += ["serve", "--listen", self.listen, "--port-file", self.port_file, "--sweep-ms", str(self.sweep_ms)] + self.args
        self.log = open(os.path.join(self.workdir, "server.log"), "w")
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=self.log, text=True)
        # "ddb serve: listening on http://HOST:PORT ...": a generous, bounded wait (a
        # sanitizer build on a loaded machine starts slowly)
        limit = float(os.environ.get("DDB_SERVE_START_TIMEOUT", "180"))
        ready, _, _ = select.select([self.proc.stdout], [], [], limit)
        line = self.proc.stdout.readline() if ready else ""
        if not line.startswith("ddb serve: listening on "):
            if not ready:
                self.proc.kill()
            self.proc.wait()
            self.log.close()
            with open(self.log.name) as f:
                log = f.read()[-4000:]
            raise RuntimeError("ddb serve did not start%s: %r (exit %s); its log (%s):\n%s" %
                               ("" if ready else " within %g s (DDB_SERVE_START_TIMEOUT; load average %.1f)" %
                                (limit, os.getloadavg()[0]), line, self.proc.returncode, self.log.name, log))
        with open(self.port_file) as f:
            self.port = int(f.read())
        self.endpoint = "http://127.0.0.1:%d" % self.port
        return self

    def stop(self):
        """SIGTERM, then the exit status (0 = a clean shutdown)."""
        if not self.proc:
            return None
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
        self.proc.stdout.close()
        self.log.close()
        self.proc = None
        return rc

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def wait_for(pred, what, tries=600):
    """Poll pred() until true (the TTL sweeper runs in the background)."""
    for _ in range(tries):
        if pred():
            return
        time.sleep(0.05)
    raise AssertionError("timed out waiting for " + what)


class Dynalite:
    """dynalite started by tests/remote/dynalite.sh (its installation in DIR),
    for a test that runs its cases against dynalite too:

        with Dynalite(sh, dir) as d:
            d.endpoint

    Without node/npm it prints the reason and exits 77 (skipped)."""

    def __init__(self, sh, directory):
        self.sh, self.dir = sh, directory

    def __enter__(self):
        p = subprocess.run(["sh", self.sh, "start", self.dir, str(os.getpid())], capture_output=True, text=True)
        if p.returncode == 77:
            print(p.stdout.strip())
            raise SystemExit(77)
        if p.returncode:
            raise RuntimeError("dynalite.sh start failed: %s %s" % (p.stdout, p.stderr))
        self.endpoint = "http://127.0.0.1:%s" % p.stdout.split()[0]
        return self

    def __exit__(self, *exc):
        subprocess.run(["sh", self.sh, "stop", self.dir])
