#!/usr/bin/env python3
"""A complete Vigia webhook receiver, Python standard library only.

It follows the receiver rules of Vigia's signature scheme:
  1. read the raw body, byte for byte (never re-serialise the JSON before checking);
  2. recompute sha256=HMAC-SHA256(key = the whole signing secret "whsec_..." as UTF-8,
     message = X-Service-Timestamp + "." + raw body) and compare in constant time;
  3. refuse a timestamp more than 300 seconds from now (answer 400) and a bad signature (401);
  4. deduplicate by Idempotency-Key (the delivery id, the same on every retry): a repeat is
     answered 200 again but not processed twice.

Run:  VIGIA_SECRET=whsec_... TLS_CERT=cert.pem TLS_KEY=key.pem PORT=9443 python3 receiver.py
Each request is reported as one JSON line on stdout.
"""
import hashlib
import hmac
import json
import os
import ssl
import sys
import threading
import time
from collections import OrderedDict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SECRET = os.environ["VIGIA_SECRET"].encode("utf-8")
TOLERANCE_SECONDS = 300
MAX_BODY_BYTES = 1024 * 1024
DEDUP_TTL_SECONDS = 7 * 24 * 3600  # longer than the whole retry schedule
DEDUP_MAX_ENTRIES = 100_000


class Deduplicator:
    """Idempotency-Key -> expiry, bounded in time and size, safe across threads."""

    def __init__(self):
        self._seen = OrderedDict()
        self._lock = threading.Lock()

    def first_seen(self, key):
        now = time.time()
        with self._lock:
            while self._seen and next(iter(self._seen.values())) <= now:
                self._seen.popitem(last=False)
            if key in self._seen:
                return False
            self._seen[key] = now + DEDUP_TTL_SECONDS
            while len(self._seen) > DEDUP_MAX_ENTRIES:
                self._seen.popitem(last=False)
            return True


SEEN = Deduplicator()


def report(**fields):
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


class Handler(BaseHTTPRequestHandler):
    server_version = "vigia-example-python"

    def answer(self, status, message):
        body = json.dumps({"message": message}).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY_BYTES:
            return self.answer(413, "body too large")
        raw = self.rfile.read(length)  # the raw bytes, exactly as sent

        timestamp = self.headers.get("X-Service-Timestamp", "")
        if not timestamp.isdigit() or abs(time.time() - int(timestamp)) > TOLERANCE_SECONDS:
            report(result="stale")
            return self.answer(400, "stale or missing timestamp")

        expected = "sha256=" + hmac.new(SECRET, timestamp.encode("ascii") + b"." + raw, hashlib.sha256).hexdigest()
        given = self.headers.get("X-Service-Signature", "")
        if not hmac.compare_digest(expected.encode("ascii"), given.encode("utf-8", "replace")):
            report(result="bad_signature")
            return self.answer(401, "bad signature")

        event = json.loads(raw)
        key = self.headers.get("Idempotency-Key") or event["id"]
        if not SEEN.first_seen(key):
            report(result="duplicate", id=key, event=event["event"])
            return self.answer(200, "already processed")

        # Process the event here. Order is not guaranteed: use occurredAt and alert.status.
        report(result="accepted", id=key, event=event["event"], alertId=event["alert"]["id"], status=event["alert"]["status"])
        return self.answer(200, "ok")

    def log_message(self, *args):
        pass  # stdout carries one JSON line per delivery; keep it clean


def main():
    port = int(os.environ.get("PORT", "9443"))
    host = os.environ.get("HOST", "127.0.0.1")
    server = ThreadingHTTPServer((host, port), Handler)
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(os.environ["TLS_CERT"], os.environ["TLS_KEY"])
    server.socket = tls.wrap_socket(server.socket, server_side=True)
    report(listening=f"https://{host}:{port}")
    server.serve_forever()


if __name__ == "__main__":
    main()
