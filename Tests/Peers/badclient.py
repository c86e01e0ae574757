#!/usr/bin/env python3
"""Misbehaving clients for the PushHTTP server's bad-input tests. Each mode prints one JSON
object describing what the server sent back. Never imported by pushlab.

  badclient.py garbage HOST PORT                 random bytes on a cleartext connection
  badclient.py h2garbage HOST PORT               the h2 preface, then random bytes
  badclient.py tlsplain HOST PORT                plaintext HTTP/1.1 sent to the TLS port
  badclient.py tlshalf HOST PORT                 half a TLS ClientHello, then hang up
  badclient.py vanish1 HOST PORT [--tls CA]      HTTP/1.1 POST promising 1 MB, sends 1 KB, hangs up
  badclient.py vanish2 HOST PORT [--tls CA]      HTTP/2 POST without END_STREAM, 1 KB of DATA, hangs up
"""
import json
import os
import random
import socket
import ssl
import sys

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def read_all(sock, limit=1 << 20):
    data = b""
    sock.settimeout(5)
    try:
        while len(data) < limit:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    except (ConnectionResetError, socket.timeout, ssl.SSLError, OSError):
        pass
    return data


def frames(data):
    """(type, flags, stream, payload) for each complete frame in `data`."""
    out = []
    while len(data) >= 9:
        length = int.from_bytes(data[:3], "big")
        if len(data) < 9 + length:
            break
        out.append((data[3], data[4], int.from_bytes(data[5:9], "big") & 0x7FFFFFFF, data[9:9 + length]))
        data = data[9 + length:]
    return out


def send_quietly(sock, data):
    try:
        sock.sendall(data)
    except OSError:
        pass


def connect(host, port, argv):
    sock = socket.create_connection((host, int(port)), timeout=5)
    if "--tls" in argv:
        ctx = ssl.create_default_context(cafile=argv[argv.index("--tls") + 1])
        ctx.set_alpn_protocols(["h2"] if argv[1] == "vanish2" else ["http/1.1"])
        sock = ctx.wrap_socket(sock, server_hostname="localhost")
    return sock


def main(argv):
    mode, host, port = argv[1], argv[2], argv[3]
    rng = random.Random(42)
    report = {}
    if mode == "garbage":
        sock = connect(host, port, argv)
        send_quietly(sock, bytes(rng.randrange(256) for _ in range(65536)))
        reply = read_all(sock)
        report["first_line"] = reply.split(b"\r\n", 1)[0].decode("latin-1")
    elif mode == "h2garbage":
        sock = connect(host, port, argv)
        send_quietly(sock, PREFACE + bytes(rng.randrange(256) for _ in range(4096)))
        reply = read_all(sock)
        goaways = [f for f in frames(reply) if f[0] == 7]
        report["frame_types"] = [f[0] for f in frames(reply)]
        if goaways:
            report["goaway_error"] = int.from_bytes(goaways[0][3][4:8], "big")
        report["closed"] = True
    elif mode == "tlsplain":
        sock = connect(host, port, argv)
        send_quietly(sock, b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        reply = read_all(sock)
        report["reply_bytes"] = len(reply)
        report["is_tls_alert"] = len(reply) > 0 and reply[0] == 0x15
        report["closed"] = True
    elif mode == "tlshalf":
        sock = connect(host, port, argv)
        # A TLS record header promising a 512-byte ClientHello, then only a few bytes of it.
        send_quietly(sock, bytes([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03]))
        sock.close()
        report["sent"] = True
    elif mode == "vanish1":
        sock = connect(host, port, argv)
        sock.sendall(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n" + os.urandom(1024))
        sock.close()
        report["sent"] = True
    elif mode == "vanish2":
        import h2.config
        import h2.connection
        sock = connect(host, port, argv)
        conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True))
        conn.initiate_connection()
        conn.send_headers(1, [(":method", "POST"), (":scheme", "https" if "--tls" in argv else "http"),
                              (":authority", "x"), (":path", "/echo"), ("content-length", "1048576")])
        conn.send_data(1, os.urandom(1024))
        sock.sendall(conn.data_to_send())
        sock.close()
        report["sent"] = True
    else:
        print(__doc__, file=sys.stderr)
        return 2
    print(json.dumps(report, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
