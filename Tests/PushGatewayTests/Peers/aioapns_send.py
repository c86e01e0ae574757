"""Sends N notifications through pushlab's gateway with the real aioapns client.

usage: aioapns_send.py HOST PORT CA_FILE KEY_FILE KEY_ID TEAM_ID TOPIC TOKEN COUNT
Prints one JSON line: {"sent": N, "ok": K, "statuses": {...}, "reasons": {...}, "seconds": S}.
aioapns has no host setting; its protocol class names the server, so the script points the
development protocol at the local gateway (documented in docs/gateway.md).
"""
import asyncio, json, ssl, sys, time, uuid, collections

from aioapns import APNs, NotificationRequest
from aioapns import connection as aioapns_connection

host, port, ca, key_file, key_id, team_id, topic, token, count = sys.argv[1:10]
aioapns_connection.APNsDevelopmentClientProtocol.APNS_SERVER = host
aioapns_connection.APNsDevelopmentClientProtocol.APNS_PORT = int(port)


async def main():
    ctx = ssl.create_default_context(cafile=ca)
    client = APNs(key=open(key_file).read(), key_id=key_id, team_id=team_id, topic=topic,
                  use_sandbox=True, ssl_context=ctx, max_connections=1)
    payload = {"aps": {"alert": {"title": "aioapns", "body": "through pushlab"}}}
    statuses, reasons = collections.Counter(), collections.Counter()
    started = time.perf_counter()

    async def one():
        r = await client.send_notification(NotificationRequest(device_token=token, message=payload,
                                                               notification_id=str(uuid.uuid4())))
        statuses[str(r.status)] += 1
        if r.description:
            reasons[r.description] += 1

    await asyncio.gather(*(one() for _ in range(int(count))))
    elapsed = time.perf_counter() - started
    print(json.dumps({"sent": int(count), "ok": statuses.get("200", 0), "statuses": statuses,
                      "reasons": reasons, "seconds": elapsed}))


asyncio.run(main())
