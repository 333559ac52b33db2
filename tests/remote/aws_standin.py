#!/usr/bin/env python3
"""Local stand-ins for the AWS services the remote backend's credential
chain talks to, on 127.0.0.1 (port chosen by the kernel, printed on the
first line of stdout):

  PUT  /latest/api/token                          IMDSv2 session token
  GET  /latest/meta-data/iam/security-credentials/[ROLE]   (token required)
  GET  /container/creds                           container endpoint (Authorization required)
  POST /sts/                                      STS AssumeRole (SigV4 checked) and
                                                  AssumeRoleWithWebIdentity (token checked)
  POST /                                          DynamoDB: every request's SigV4 signature is
                                                  recomputed with botocore and the result logged
  GET  /_ctl?mode=ok|fail|hang&expiry=S&throttle=N   behaviour of what follows
  GET  /_release                                  let hanging credential requests answer
  GET  /_log                                      what happened, as JSON
DynamoDB requests may also come through it as an HTTP proxy (absolute-form
request targets).

Answers follow the documented formats: IMDS and the container endpoint
send {"AccessKeyId", "SecretAccessKey", "Token", "Expiration"}, STS its
XML <AssumeRoleResponse> / <AssumeRoleWithWebIdentityResponse>.
Usage: aws_standin.py CONTAINER_AUTH WEB_IDENTITY_TOKEN
"""
import datetime
import json
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

CONTAINER_AUTH, WEB_TOKEN = sys.argv[1], sys.argv[2]
IMDS_TOKEN = "imds-session-token-1"
lock = threading.Lock()
release = threading.Event()
state = {"mode": "ok", "expiry": 3600, "throttle": 0, "n": 0}
secrets = {}  # access key id -> secret, of every pair issued or registered
log = []


def issue(prefix):
    with lock:
        state["n"] += 1
        n = state["n"]
        akid, secret, token = f"{prefix}{n:04d}", f"{prefix.lower()}-secret-{n}", f"{prefix.lower()}-token-{n}"
        secrets[akid] = secret
        exp = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=state["expiry"])
    return akid, secret, token, exp.strftime("%Y-%m-%dT%H:%M:%SZ")


def check_sig(h, body, service):
    """Recompute the request's SigV4 signature with botocore."""
    auth = h.headers.get("Authorization", "")
    try:
        parts = dict(p.strip().split("=", 1) for p in auth[len("AWS4-HMAC-SHA256 "):].split(","))
        akid, date, region, svc, _ = parts["Credential"].split("/")
        signed = parts["SignedHeaders"].split(";")
    except Exception:
        return None, False
    secret = secrets.get(akid)
    if secret is None or svc != service:
        return akid, False
    headers = {name: h.headers[name] for name in signed}
    req = AWSRequest(method="POST", url="http://" + h.headers["Host"] + h.path, data=body, headers=headers)
    signer = SigV4Auth(Credentials(akid, secret, h.headers.get("X-Amz-Security-Token")), service, region)
    req.context["timestamp"] = h.headers["X-Amz-Date"]
    sig = signer.signature(signer.string_to_sign(req, signer.canonical_request(req)), req)
    return akid, sig == parts["Signature"]


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send(self, status, body, ctype="application/json"):
        b = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)

    def cred_behaviour(self, what):
        """fail / hang as set; returns True when the request was answered."""
        mode = state["mode"]
        with lock:
            log.append({"kind": what, "mode": mode})
        if mode == "hang":
            release.wait(60)
        elif mode == "fail":
            self.send(500, '{"code":"InternalError","message":"stand-in told to fail"}')
            return True
        return False

    def creds_json(self, prefix):
        akid, secret, token, exp = issue(prefix)
        return json.dumps({"Code": "Success", "LastUpdated": exp, "Type": "AWS-HMAC", "AccessKeyId": akid,
                           "SecretAccessKey": secret, "Token": token, "Expiration": exp})

    def do_PUT(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.path == "/latest/api/token" and self.headers.get("X-aws-ec2-metadata-token-ttl-seconds"):
            with lock:
                log.append({"kind": "imds-token"})
            return self.send(200, IMDS_TOKEN, "text/plain")
        self.send(400, "")

    def do_GET(self):
        u = urllib.parse.urlsplit(self.path)
        q = dict(urllib.parse.parse_qsl(u.query))
        if u.path == "/_ctl":
            with lock:
                for k in ("expiry", "throttle"):
                    if k in q:
                        state[k] = int(q[k])
                if "mode" in q:
                    state["mode"] = q["mode"]
                    if q["mode"] != "hang":
                        release.clear()
                if "akid" in q:
                    secrets[q["akid"]] = q["secret"]
            return self.send(200, "{}")
        if u.path == "/_release":
            release.set()
            return self.send(200, "{}")
        if u.path == "/_log":
            with lock:
                return self.send(200, json.dumps(log))
        if u.path.startswith("/latest/meta-data/iam/security-credentials/"):
            if self.headers.get("X-aws-ec2-metadata-token") != IMDS_TOKEN:
                return self.send(401, "")
            role = u.path[len("/latest/meta-data/iam/security-credentials/"):]
            if not role:
                return self.send(200, "standin-role", "text/plain")
            if role != "standin-role":
                return self.send(404, "")
            if self.cred_behaviour("imds"):
                return
            return self.send(200, self.creds_json("ASIAIMDS"))
        if u.path == "/container/creds":
            if self.headers.get("Authorization") != CONTAINER_AUTH:
                return self.send(401, '{"code":"AccessDenied","message":"bad authorization token"}')
            if self.cred_behaviour("container"):
                return
            return self.send(200, self.creds_json("ASIACONT"))
        self.send(404, "")

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        proxied = self.path.startswith("http://")  # absolute form: we are the client's proxy
        if proxied:
            self.path = urllib.parse.urlsplit(self.path).path or "/"
        if self.path.startswith("/sts"):
            return self.sts(body)
        target = self.headers.get("X-Amz-Target", "")
        akid, ok = check_sig(self, body, "dynamodb")
        with lock:
            log.append({"kind": "dynamodb", "target": target, "akid": akid, "sig_ok": ok,
                        "token": self.headers.get("X-Amz-Security-Token"), "proxied": proxied,
                        "host": self.headers.get("Host")})
            throttle = state["throttle"] > 0
            if throttle:
                state["throttle"] -= 1
        if throttle:
            return self.send(400, json.dumps({"__type": "com.amazonaws.dynamodb.v20120810#ThrottlingException",
                                              "message": "Rate of requests exceeds the allowed throughput."}),
                             "application/x-amz-json-1.0")
        if target.endswith(".ListTables"):
            return self.send(200, '{"TableNames":[]}', "application/x-amz-json-1.0")
        if target.endswith(".PutItem"):
            return self.send(200, '{"ConsumedCapacity":{"TableName":"Music","CapacityUnits":1.0}}',
                             "application/x-amz-json-1.0")
        self.send(400, '{"__type":"com.amazonaws.dynamodb.v20120810#UnknownOperationException"}')

    def sts(self, body):
        form = dict(urllib.parse.parse_qsl(body.decode()))
        action = form.get("Action")
        entry = {"kind": "sts", "action": action, "role": form.get("RoleArn")}
        if action == "AssumeRole":
            entry["akid"], entry["sig_ok"] = check_sig(self, body, "sts")
            ok = entry["sig_ok"]
        elif action == "AssumeRoleWithWebIdentity":
            ok = form.get("WebIdentityToken") == WEB_TOKEN and "Authorization" not in self.headers
        else:
            ok = False
        with lock:
            log.append(entry)
        if not ok:
            return self.send(403, "<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code>"
                                  "<Message>not authorized</Message></Error></ErrorResponse>", "text/xml")
        akid, secret, token, exp = issue("ASIASTS")
        self.send(200, f"<{action}Response xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><{action}Result>"
                       f"<Credentials><SessionToken>{token}</SessionToken><SecretAccessKey>{secret}</SecretAccessKey>"
                       f"<Expiration>{exp}</Expiration><AccessKeyId>{akid}</AccessKeyId></Credentials>"
                       f"<AssumedRoleUser><Arn>{form.get('RoleArn')}/s</Arn><AssumedRoleId>AROA:s</AssumedRoleId>"
                       f"</AssumedRoleUser></{action}Result><ResponseMetadata><RequestId>1</RequestId>"
                       f"</ResponseMetadata></{action}Response>", "text/xml")


srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
srv.daemon_threads = True
print(srv.server_address[1], flush=True)
srv.serve_forever()
