"""An independent stand-in for APNs, FCM and Google's OAuth token endpoint, on the Python `h2`
library over TLS (ALPN h2; HTTP/1.1 for a client that does not offer h2), that records every
request it gets. Used by Tests/PushRelayTests/RelayGorushUpstreamTests.swift to compare the
upstream requests `pushlab relay` makes for gorush notifications with the ones gorush makes;
never imported by pushlab, and it shares no code with pushlab's emulator.

  upstream_recorder.py CERT KEY RECORD_FILE

Binds 127.0.0.1 on a free port and prints "listening on PORT". Each request is appended to
RECORD_FILE as one JSON line {"method", "path", "headers": {name: value}, "body"} BEFORE it is
answered, so a client that has its answer knows the line is written. Answers:
  POST /3/device/<token>                 200, apns-id: the request's, or one made here
  POST /v1/projects/<p>/messages:send   200 {"name": "projects/<p>/messages/<n>"}
  POST /token                            200 {"access_token": …, "expires_in": 3600}
"""
import asyncio
import json
import ssl
import sys
import uuid

import h2.config
import h2.connection
import h2.events

RECORD = None
COUNTER = [0]


def answer(method, path, headers, body):
    """Records the request, returns (status, headers, body)."""
    with open(RECORD, "a", encoding="utf-8") as f:
        f.write(json.dumps({"method": method, "path": path, "headers": headers,
                            "body": body.decode("utf-8", "replace")}) + "\n")
        f.flush()
    COUNTER[0] += 1
    if path.startswith("/3/device/"):
        return 200, [("apns-id", headers.get("apns-id") or str(uuid.uuid4()).upper())], b""
    if path.endswith("/messages:send"):
        project = path.split("/")[3]
        return 200, [("content-type", "application/json")], json.dumps(
            {"name": f"projects/{project}/messages/{COUNTER[0]}"}).encode()
    if path.startswith("/token"):
        return 200, [("content-type", "application/json")], json.dumps(
            {"access_token": "ya29.recorder-token", "token_type": "Bearer", "expires_in": 3600}).encode()
    return 404, [("content-type", "application/json")], b'{"error":"unknown path"}'


class H2Peer(asyncio.Protocol):
    def connection_made(self, transport):
        self.transport = transport
        protocol = transport.get_extra_info("ssl_object").selected_alpn_protocol()
        self.h2 = protocol == "h2"
        self.buffer = b""
        if self.h2:
            self.conn = h2.connection.H2Connection(
                config=h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
            self.conn.initiate_connection()
            self.transport.write(self.conn.data_to_send())
            self.streams = {}

    def data_received(self, data):
        if not self.h2:
            return self.http1(data)
        try:
            events = self.conn.receive_data(data)
        except Exception:
            self.transport.write(self.conn.data_to_send())
            self.transport.close()
            return
        for event in events:
            if isinstance(event, h2.events.RequestReceived):
                self.streams[event.stream_id] = [event.headers, b""]
            elif isinstance(event, h2.events.DataReceived):
                self.streams[event.stream_id][1] += event.data
                self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded):
                fields, body = self.streams.pop(event.stream_id)
                pseudo = {k: v for k, v in fields if k.startswith(":")}
                headers = {}
                for k, v in fields:
                    if not k.startswith(":"):
                        headers[k] = v if k not in headers else headers[k] + ", " + v
                status, extra, out = answer(pseudo[":method"], pseudo[":path"], headers, body)
                self.conn.send_headers(event.stream_id, [(":status", str(status)), ("content-length", str(len(out)))] + extra,
                                       end_stream=not out)
                if out:
                    self.conn.send_data(event.stream_id, out, end_stream=True)
        self.transport.write(self.conn.data_to_send())

    def http1(self, data):
        self.buffer += data
        while b"\r\n\r\n" in self.buffer:
            head, rest = self.buffer.split(b"\r\n\r\n", 1)
            lines = head.decode("latin-1").split("\r\n")
            method, path, _ = lines[0].split(" ", 2)
            headers = {}
            for line in lines[1:]:
                k, v = line.split(":", 1)
                headers[k.strip().lower()] = v.strip()
            length = int(headers.get("content-length", "0"))
            if len(rest) < length:
                return
            body, self.buffer = rest[:length], rest[length:]
            status, extra, out = answer(method, path, headers, body)
            response = f"HTTP/1.1 {status} X\r\ncontent-length: {len(out)}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in extra) + "\r\n"
            self.transport.write(response.encode() + out)


async def main():
    global RECORD
    cert, key, RECORD = sys.argv[1], sys.argv[2], sys.argv[3]
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    context.set_alpn_protocols(["h2", "http/1.1"])
    server = await asyncio.get_running_loop().create_server(H2Peer, "127.0.0.1", 0, ssl=context)
    print(f"listening on {server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


asyncio.run(main())
