"""Independent client for pushlab serve's Live Activity channel API (issue 20): httpx over
HTTP/2 + TLS with a PyJWT ES256 provider token. Prints one JSON line with what it saw.

usage: channels_httpx.py APNS_URL CA_FILE P8_FILE KEY_ID TEAM_ID BUNDLE_ID
"""
import json
import sys
import time

import httpx
import jwt

url, ca, p8, key_id, team_id, bundle = sys.argv[1:7]
with open(p8) as f:
    token = jwt.encode({"iss": team_id, "iat": int(time.time())}, f.read(), algorithm="ES256", headers={"kid": key_id})
auth = {"authorization": f"bearer {token}"}
seen = {}

with httpx.Client(http2=True, verify=ca, base_url=url, headers=auth) as c:
    channels = f"/1/apps/{bundle}/channels"
    r = c.post(channels, content=json.dumps({"message-storage-policy": 0, "push-type": "LiveActivity"}))
    seen["http_version"] = r.http_version
    seen["create"] = r.status_code
    seen["create_request_id"] = bool(r.headers.get("apns-request-id"))
    channel = r.headers.get("apns-channel-id", "")
    r = c.get(channels, headers={"apns-channel-id": channel})
    seen["get"] = [r.status_code, r.json()]
    r = c.get(f"/1/apps/{bundle}/all-channels")
    seen["list"] = [r.status_code, channel in r.json().get("channels", [])]
    body = json.dumps({"aps": {"event": "update", "timestamp": int(time.time()), "content-state": {"status": "x"}}})
    push = {"apns-channel-id": channel, "apns-push-type": "liveactivity", "apns-priority": "10"}
    r = c.post(f"/4/broadcasts/apps/{bundle}", headers={**push, "apns-expiration": "0"}, content=body)
    seen["broadcast"] = r.status_code
    r = c.post(f"/4/broadcasts/apps/{bundle}", headers={**push, "apns-expiration": str(int(time.time()) + 60)}, content=body)
    seen["broadcast_expiring"] = [r.status_code, r.json().get("reason")]
    r = c.get(channels)
    seen["missing_header"] = [r.status_code, r.json().get("reason")]
    r = c.post(channels, content=json.dumps({"message-storage-policy": 5, "push-type": "LiveActivity"}))
    seen["bad_policy"] = [r.status_code, r.json().get("reason")]
    r = c.delete(channels, headers={"apns-channel-id": channel})
    seen["delete"] = r.status_code
    r = c.get(channels, headers={"apns-channel-id": channel})
    seen["after_delete"] = [r.status_code, r.json().get("reason")]

print(json.dumps(seen))
