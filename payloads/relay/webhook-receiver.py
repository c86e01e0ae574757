#!/usr/bin/env python3
"""A webhook receiver for `pushlab relay` that checks every POST's signature (docs/relay.md
"Webhooks"): Pushlab-Signature is v1=<hex HMAC-SHA256(secret, "<Pushlab-Timestamp>." + body)>.

Usage: python3 webhook-receiver.py --secret-file FILE [--port 0] [--max-age 300] [--save DIR]
Prints "listening on http://127.0.0.1:PORT/hook", then "verified APP TYPE [STATUS]" for each event
of each POST whose signature and timestamp check out (answered 204); a bad signature or an old
timestamp gets 401 and a "refused:" line. --save DIR keeps the last POST's raw body, timestamp
and signature (body.json, timestamp, signature) for a check with other tools. Standard library only.
"""
import argparse
import hashlib
import hmac
import json
import os
import signal
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--secret-file", required=True, help="the file relay.json's webhook.secret_file names")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--max-age", type=int, default=300, help="refuse timestamps older than this many seconds")
    parser.add_argument("--save", metavar="DIR", help="keep the last POST's body.json, timestamp and signature here")
    args = parser.parse_args()
    with open(args.secret_file, encoding="utf-8") as f:
        secret = f.readline().strip().encode()

    class Hook(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            timestamp = self.headers.get("pushlab-timestamp", "")
            expected = "v1=" + hmac.new(secret, timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
            given = self.headers.get("pushlab-signature", "")
            if args.save:
                os.makedirs(args.save, exist_ok=True)
                for name, data in (("body.json", body), ("timestamp", timestamp.encode()), ("signature", given.encode())):
                    with open(os.path.join(args.save, name), "wb") as f:
                        f.write(data)
            if not hmac.compare_digest(expected, given):
                return self.refuse("signature does not match")
            if not timestamp.isdigit() or abs(time.time() - int(timestamp)) > args.max_age:
                return self.refuse("timestamp %r is not within %d s" % (timestamp, args.max_age))
            batch = json.loads(body)
            for event in batch["events"]:
                print(" ".join(["verified", batch["app"], event["type"]] + ([event["status"]] if "status" in event else [])), flush=True)
            self.send_response(204)
            self.end_headers()

        def refuse(self, why):
            print("refused:", why, flush=True)
            self.send_response(401)
            self.end_headers()

        def log_message(self, *_):
            pass

    # Stop cleanly on SIGTERM, even when started by a process that blocks it (the mask is inherited).
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    server = HTTPServer(("127.0.0.1", args.port), Hook)
    print("listening on http://127.0.0.1:%d/hook" % server.server_port, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
