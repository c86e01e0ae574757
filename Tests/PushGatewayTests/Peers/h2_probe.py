"""Raw HTTP/2 probe of the gateway's APNs host with the Python h2 library.

usage: h2_probe.py HOST PORT CA_FILE TOKEN JWT TOPIC [IDLE_WAIT_SECONDS]
Reports as JSON: the MAX_CONCURRENT_STREAMS of the server's first SETTINGS, whether PING was
acknowledged, the status of a push, the MAX_CONCURRENT_STREAMS of a later SETTINGS frame,
and (with IDLE_WAIT_SECONDS) the GOAWAY received while idle with its debug data.
"""
import json, socket, ssl, sys, time

import h2.config, h2.connection, h2.events, h2.settings

host, port, ca, token, jwt, topic = sys.argv[1:7]
idle_wait = float(sys.argv[7]) if len(sys.argv) > 7 else 0

ctx = ssl.create_default_context(cafile=ca)
ctx.set_alpn_protocols(["h2"])
sock = ctx.wrap_socket(socket.create_connection((host, int(port))), server_hostname="localhost")
conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True))
conn.initiate_connection()
sock.sendall(conn.data_to_send())
out = {"alpn": sock.selected_alpn_protocol(), "settings": [], "ping_acked": False}


def pump(until, timeout=5.0):
    sock.settimeout(0.2)
    end = time.time() + timeout
    while time.time() < end:
        try:
            data = sock.recv(65536)
        except socket.timeout:
            continue
        if not data:
            out["closed"] = True
            return
        for ev in conn.receive_data(data):
            if isinstance(ev, h2.events.RemoteSettingsChanged):
                m = ev.changed_settings.get(h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS)
                out["settings"].append(m.new_value if m else None)
            elif isinstance(ev, h2.events.PingAckReceived):
                out["ping_acked"] = True
            elif isinstance(ev, h2.events.ResponseReceived):
                out["status"] = int(dict(ev.headers)[b":status"])
            elif isinstance(ev, h2.events.ConnectionTerminated):
                out["goaway"] = {"error_code": int(ev.error_code),
                                 "debug": (ev.additional_data or b"").decode()}
        sock.sendall(conn.data_to_send())
        if until():
            return


pump(lambda: len(out["settings"]) >= 1)
conn.ping(b"pushlab!")
sock.sendall(conn.data_to_send())
pump(lambda: out["ping_acked"])
sid = conn.get_next_available_stream_id()
body = b'{"aps":{"alert":"probe"}}'
conn.send_headers(sid, [(":method", "POST"), (":scheme", "https"), (":authority", "localhost"),
                        (":path", "/3/device/" + token), ("apns-topic", topic),
                        ("authorization", "bearer " + jwt), ("content-length", str(len(body)))])
conn.send_data(sid, body, end_stream=True)
sock.sendall(conn.data_to_send())
pump(lambda: "status" in out and len(out["settings"]) >= 2)
if idle_wait:
    pump(lambda: "goaway" in out, timeout=idle_wait)
print(json.dumps(out))
