"""Sends FCM messages addressed by Firebase Installation ID (`fid`) to pushlab's gateway with
the real firebase-admin SDK (7.x: `Message(fid=…)`, `MulticastMessage(fids=…)`), the
independent check of the emulator's `fid` target (docs/specs/fcm.md "`fid` beside `token`").

usage: firebase_admin_fid.py BASE_URL SERVICE_ACCOUNT KNOWN_FID [KNOWN_FID …] -- UNKNOWN_FID BAD_FID
BASE_URL is the gateway's https URL (trusted through REQUESTS_CA_BUNDLE / SSL_CERT_FILE).
Prints one JSON line per send: {"name", "status", "exception", "code", "message_id"}.
"""
import json, sys, warnings

import firebase_admin
from firebase_admin import credentials, messaging

base, account_path = sys.argv[1], sys.argv[2]
rest = sys.argv[3:]
split = rest.index("--")
known, (unknown, bad) = rest[:split], rest[split + 1:]
messaging._MessagingService.FCM_URL = base + "/v1/projects/{0}/messages:send"
app = firebase_admin.initialize_app(credentials.Certificate(account_path))

# The SDK itself must not warn about `fid` (it warns only for the deprecated `token`).
warnings.simplefilter("error", DeprecationWarning)


def report(name, fn):
    result = {"name": name}
    try:
        result.update(status=200, exception=None, message_id=fn())
    except messaging.UnregisteredError as e:
        result.update(status=404, exception=type(e).__name__, code=e.code, message=str(e))
    except firebase_admin.exceptions.FirebaseError as e:
        status = e.http_response.status_code if e.http_response is not None else None
        result.update(status=status, exception=type(e).__name__, code=e.code, message=str(e))
    print(json.dumps(result), flush=True)


notification = messaging.Notification(title="Order shipped", body="Order 1042 is on its way.")
report("send-fid", lambda: messaging.send(messaging.Message(fid=known[0], notification=notification)))
report("send-unknown-fid", lambda: messaging.send(messaging.Message(fid=unknown, notification=notification)))
report("send-bad-fid", lambda: messaging.send(messaging.Message(fid=bad, notification=notification)))

batch = messaging.send_each([messaging.Message(fid=f, data={"n": str(i)}) for i, f in enumerate(known + [unknown])])
for i, r in enumerate(batch.responses):
    status = 200 if r.success else (r.exception.http_response.status_code if r.exception.http_response is not None else None)
    print(json.dumps({"name": f"send-each-{i}", "status": status,
                      "exception": None if r.success else type(r.exception).__name__,
                      "code": None if r.success else r.exception.code, "message_id": r.message_id}), flush=True)

multicast = messaging.send_each_for_multicast(messaging.MulticastMessage(fids=known, notification=notification))
print(json.dumps({"name": "multicast-fids", "status": 200 if multicast.failure_count == 0 else None,
                  "success_count": multicast.success_count, "failure_count": multicast.failure_count}), flush=True)
