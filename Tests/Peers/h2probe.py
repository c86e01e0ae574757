#!/usr/bin/env python3
"""A raw HTTP/2 client (Python `h2`, cleartext prior knowledge) that reports, as one JSON object
on stdout, what the server did at the frame level. Used by the PushHTTP server tests as an
independent peer; never imported by pushlab.

  h2probe.py settings HOST PORT PATH          GET PATH; report every SETTINGS the server sent
  h2probe.py goaway HOST PORT PATH            GET PATH; report the GOAWAY (code, last stream, debug data)
  h2probe.py burst HOST PORT PATH N [--acked] open N streams at once; report responses and resets
  h2probe.py idle HOST PORT SECONDS           do nothing; report the GOAWAY the server sends
  h2probe.py head HOST PORT PATH              HEAD PATH; report the response's fields and every DATA byte
  h2probe.py sequence HOST PORT PATH N        GET PATH N times, one after another on one connection;
                                              report each response's fields, the names the server
                                              sent never-indexed (RFC 7541 §6.2.3) and the names in
                                              the HPACK dynamic table at the end
"""
import json
import socket
import sys
import time

import h2.config
import h2.connection
import h2.events
import h2.settings
from h2.settings import SettingCodes
from hpack import NeverIndexedHeaderTuple


def connect(host, port):
    sock = socket.create_connection((host, int(port)), timeout=10)
    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    conn.initiate_connection()
    sock.sendall(conn.data_to_send())
    return sock, conn


def headers(host, port, path, method="GET"):
    return [(":method", method), (":scheme", "http"), (":authority", f"{host}:{port}"), (":path", path)]


def pump(sock, conn, report, until, deadline=10.0):
    """Reads frames, recording events, until `until(report)` or the connection ends."""
    end = time.time() + deadline
    while not until(report) and time.time() < end:
        try:
            data = sock.recv(65536)
        except socket.timeout:
            break
        if not data:
            report["closed"] = True
            break
        for event in conn.receive_data(data):
            record(event, report)
        out = conn.data_to_send()
        if out:
            try:
                sock.sendall(out)
            except OSError:
                report["closed"] = True
                return


def record(event, report):
    if isinstance(event, h2.events.RemoteSettingsChanged):
        report.setdefault("settings", []).append(
            {SettingCodes(k).name if k in SettingCodes._value2member_map_ else str(k): v.new_value
             for k, v in event.changed_settings.items()})
    elif isinstance(event, h2.events.ResponseReceived):
        fields = dict(event.headers)
        report.setdefault("responses", {})[str(event.stream_id)] = int(fields[":status"])
        report.setdefault("fields", {})[str(event.stream_id)] = {k: v for k, v in fields.items() if not k.startswith(":")}
        report.setdefault("never_indexed", {})[str(event.stream_id)] = sorted(
            h[0] for h in event.headers if isinstance(h, NeverIndexedHeaderTuple))
    elif isinstance(event, h2.events.DataReceived):
        report.setdefault("bodies", {}).setdefault(str(event.stream_id), "")
        report["bodies"][str(event.stream_id)] += event.data.decode("utf-8", "replace")
    elif isinstance(event, h2.events.PingAckReceived):
        report["ping_acked"] = True
    elif isinstance(event, h2.events.StreamEnded):
        report.setdefault("ended", []).append(event.stream_id)
    elif isinstance(event, h2.events.StreamReset):
        report.setdefault("resets", {})[str(event.stream_id)] = event.error_code.name \
            if hasattr(event.error_code, "name") else int(event.error_code)
    elif isinstance(event, h2.events.ConnectionTerminated):
        report["goaway"] = {
            "error": event.error_code.name if hasattr(event.error_code, "name") else int(event.error_code),
            "last_stream_id": event.last_stream_id,
            "debug": (event.additional_data or b"").decode("utf-8", "replace"),
        }


def main(argv):
    mode, host, port = argv[1], argv[2], argv[3]
    sock, conn = connect(host, port)
    report = {}
    if mode == "settings":
        conn.send_headers(1, headers(host, port, argv[4]), end_stream=True)
        sock.sendall(conn.data_to_send())
        # The initial SETTINGS, then the response, then the changed SETTINGS (any order after the first).
        pump(sock, conn, report, lambda r: len(r.get("settings", [])) >= 2 and 1 in r.get("ended", []))
    elif mode == "goaway":
        conn.send_headers(1, headers(host, port, argv[4]), end_stream=True)
        sock.sendall(conn.data_to_send())
        pump(sock, conn, report, lambda r: "goaway" in r and r.get("closed", False))
    elif mode == "burst":
        count = int(argv[5])
        if "--acked" in argv:
            # Let the server's SETTINGS arrive and be acknowledged first, so its limit is in force.
            pump(sock, conn, report, lambda r: "settings" in r)
            # Then a PING: the server answers it after everything sent before it, our SETTINGS
            # acknowledgement included, so its ACK is the event (no fixed sleep).
            conn.ping(b"settled!")
            sock.sendall(conn.data_to_send())
            pump(sock, conn, report, lambda r: r.get("ping_acked", False))
            if not report.get("ping_acked"):
                sys.exit("h2probe: the server never acknowledged the PING sent after the SETTINGS ACK")
        # Bypass the client-side limit on purpose: this peer misbehaves.
        conn.remote_settings._settings[SettingCodes.MAX_CONCURRENT_STREAMS] = __import__("collections").deque([1 << 20])
        for i in range(count):
            conn.send_headers(1 + 2 * i, headers(host, port, argv[4]), end_stream=True)
        sock.sendall(conn.data_to_send())
        pump(sock, conn, report,
             lambda r: len(r.get("ended", [])) + len(r.get("resets", {})) >= count or "goaway" in r, deadline=15)
    elif mode == "head":
        conn.send_headers(1, headers(host, port, argv[4], method="HEAD"), end_stream=True)
        sock.sendall(conn.data_to_send())
        pump(sock, conn, report, lambda r: 1 in r.get("ended", []) or "1" in r.get("resets", {}))
        report["data_bytes"] = len(report.get("bodies", {}).get("1", "").encode("utf-8"))
    elif mode == "sequence":
        for i in range(int(argv[5])):
            stream = 1 + 2 * i
            conn.send_headers(stream, headers(host, port, argv[4]), end_stream=True)
            sock.sendall(conn.data_to_send())
            pump(sock, conn, report, lambda r: stream in r.get("ended", []) or str(stream) in r.get("resets", {}))
        report["dynamic_table_names"] = sorted(
            name.decode("utf-8", "replace") for name, _ in conn.decoder.header_table.dynamic_entries)
    elif mode == "idle":
        pump(sock, conn, report, lambda r: "goaway" in r and r.get("closed", False), deadline=float(argv[4]) + 10)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    print(json.dumps(report, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
