"""A small HTTP/2 server on the Python `h2` library (cleartext, prior knowledge): an independent
peer for pushlab's NGHTTP2Client tests (Tests/PushHTTPTests/NGHTTP2ClientPeerTests.swift).

Binds 127.0.0.1 on a free port and prints "listening on PORT". Every request is answered with
200, `x-peer: python-h2` and the body "METHOD PATH N" (N: request body bytes), except
/reset (RST_STREAM INTERNAL_ERROR, no answer), /goaway (answered, then GOAWAY and close) and
/goaway-after/K: held (it prints "held /goaway-after/K") until K more requests arrived on its
connection; those K are left unprocessed (one "unprocessed PATH" line each), the held one is
answered and a GOAWAY names it as the last stream processed, so a client must send the K again.
Every answer prints "answered PATH" on stdout.
"""
import asyncio

import h2.config
import h2.connection
import h2.errors
import h2.events


class Peer(asyncio.Protocol):
    def connection_made(self, transport):
        self.transport = transport
        config = h2.config.H2Configuration(client_side=False, header_encoding="utf-8")
        self.conn = h2.connection.H2Connection(config=config)
        self.conn.initiate_connection()
        self.transport.write(self.conn.data_to_send())
        self.requests = {}
        self.held = None  # (stream id, K) of a /goaway-after/K request
        self.unprocessed = []

    def data_received(self, data):
        try:
            events = self.conn.receive_data(data)
        except Exception:  # a protocol error: say GOAWAY (h2 queued it) and close
            self.transport.write(self.conn.data_to_send())
            self.transport.close()
            return
        closing = False
        for event in events:
            if isinstance(event, h2.events.RequestReceived):
                self.requests[event.stream_id] = [dict(event.headers), 0]
            elif isinstance(event, h2.events.DataReceived):
                self.requests[event.stream_id][1] += len(event.data)
                self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded):
                closing = self.answer(event.stream_id) or closing
        self.transport.write(self.conn.data_to_send())
        if closing:
            self.transport.close()

    def answer(self, stream_id):
        headers, length = self.requests.pop(stream_id)
        path = headers[":path"]
        if path.startswith("/goaway-after/"):
            self.held = (stream_id, int(path.rsplit("/", 1)[1]), headers, length)
            print(f"held {path}", flush=True)
            return False
        if self.held is not None:
            held_id, count, held_headers, held_length = self.held
            self.unprocessed.append(path)
            print(f"unprocessed {path}", flush=True)
            if len(self.unprocessed) < count:
                return False
            self.reply(held_id, held_headers, held_length)
            self.conn.close_connection(last_stream_id=held_id)
            return True
        self.reply(stream_id, headers, length)
        if path == "/goaway":
            self.conn.close_connection()
            return True
        return False

    def reply(self, stream_id, headers, length):
        path = headers[":path"]
        if path == "/reset":
            self.conn.reset_stream(stream_id, h2.errors.ErrorCodes.INTERNAL_ERROR)
            return False
        body = f"{headers[':method']} {path} {length}".encode()
        self.conn.send_headers(stream_id, [(":status", "200"), ("x-peer", "python-h2"), ("content-length", str(len(body)))])
        self.conn.send_data(stream_id, body, end_stream=True)
        print(f"answered {path}", flush=True)


async def main():
    server = await asyncio.get_running_loop().create_server(Peer, "127.0.0.1", 0)
    print(f"listening on {server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


asyncio.run(main())
