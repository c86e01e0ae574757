#!/usr/bin/env python3
"""Abusive clients for the server protections (benchmarks/robustness.sh and PushHTTPTests).
Loopback only; every loop is bounded in count and time. Prints one JSON object.

  abuse.py slowloris PORT [--tls] [-n CONNS] [-t SECONDS]      headers one byte per second
  abuse.py halfopen PORT [-n CONNS] [-t SECONDS]               TCP connect, then nothing
  abuse.py halftls PORT [-n CONNS] [-t SECONDS]                TLS ClientHello started, never finished
  abuse.py rstflood PORT --tls CA [-n STREAMS] [-t SECONDS]    h2: HEADERS + RST_STREAM, repeatedly
  abuse.py overlimit PORT --tls CA [-n STREAMS] [-t SECONDS]   h2: open streams past MAX_CONCURRENT_STREAMS
Reports how many connections the server closed and when (seconds after connecting).
"""
import argparse
import collections
import json
import selectors
import socket
import ssl
import sys
import time

HOST = "127.0.0.1"


def percentile(values, p):
    if not values:
        return None
    values = sorted(values)
    return round(values[min(len(values) - 1, int(len(values) * p))], 3)


def tls_context(ca, alpn):
    ctx = ssl.create_default_context(cafile=ca) if ca else ssl._create_unverified_context()
    ctx.set_alpn_protocols(alpn)
    return ctx


def watch_closes(socks, started, deadline, trickle=None):
    """Waits until every socket is closed by the server or `deadline`; `trickle(sock)` sends
    one more byte per second on each open socket. Returns close times per socket."""
    closed = {}
    selector = selectors.DefaultSelector()  # epoll: select() stops at fd 1024
    for s in socks:
        selector.register(s, selectors.EVENT_READ)
    next_trickle = time.monotonic() + 1
    while len(closed) < len(socks) and time.monotonic() < deadline:
        for key, _ in selector.select(timeout=0.2):
            s = key.fileobj
            try:
                data = s.recv(65536)
            except (ssl.SSLWantReadError, ssl.SSLWantWriteError, BlockingIOError):
                continue  # e.g. a TLS 1.3 session ticket: no application data, still open
            except (ConnectionResetError, ssl.SSLError, OSError):
                data = b""
            if not data:
                closed[s] = time.monotonic() - started[s]
                selector.unregister(s)
        if trickle and time.monotonic() >= next_trickle:
            next_trickle += 1
            for s in socks:
                if s not in closed:
                    try:
                        trickle(s)
                    except (ssl.SSLWantWriteError, BlockingIOError):
                        pass
                    except OSError:
                        closed[s] = time.monotonic() - started[s]
                        selector.unregister(s)
    selector.close()
    return closed


def connections(args, connect):
    socks, started = [], {}
    for _ in range(args.n):
        try:
            s = connect()
        except OSError:
            continue
        socks.append(s)
        started[s] = time.monotonic()
    return socks, started


def report(mode, args, socks, closed, extra=None):
    times = list(closed.values())
    out = {"mode": mode, "connections": len(socks), "closed_by_server": len(times),
           "close_after_p50_s": percentile(times, 0.5), "close_after_max_s": round(max(times), 3) if times else None}
    out.update(extra or {})
    for s in socks:
        s.close()
    print(json.dumps(out))


def slowloris(args):
    ctx = tls_context(None, ["http/1.1"]) if args.tls else None
    def connect():
        raw = socket.create_connection((HOST, args.port), timeout=5)
        s = ctx.wrap_socket(raw, server_hostname="localhost") if ctx else raw
        s.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\n")
        s.setblocking(False)
        return s
    socks, started = connections(args, connect)
    sent = {}
    def trickle(s):
        i = sent.get(s, 0)
        s.send(b"X-Slow: aaaaaaaaaaaaaaaa\r\n"[i % 26:i % 26 + 1])
        sent[s] = i + 1
    closed = watch_closes(socks, started, time.monotonic() + args.t, trickle)
    report("slowloris-tls" if args.tls else "slowloris", args, socks, closed)


def halfopen(args):
    socks, started = connections(args, lambda: socket.create_connection((HOST, args.port), timeout=5))
    closed = watch_closes(socks, started, time.monotonic() + args.t)
    report("halfopen-tcp", args, socks, closed)


def halftls(args):
    # The first half of a real ClientHello, taken from an in-memory handshake.
    ctx = tls_context(None, ["h2"])
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = ctx.wrap_bio(incoming, outgoing, server_hostname="localhost")
    try:
        obj.do_handshake()
    except ssl.SSLWantReadError:
        pass
    hello = outgoing.read()
    def connect():
        s = socket.create_connection((HOST, args.port), timeout=5)
        s.sendall(hello[: len(hello) // 2])
        return s
    socks, started = connections(args, connect)
    closed = watch_closes(socks, started, time.monotonic() + args.t)
    report("halfopen-tls", args, socks, closed)


def h2_connection(args):
    import h2.config
    import h2.connection
    raw = socket.create_connection((HOST, args.port), timeout=5)
    s = tls_context(args.tls_ca, ["h2"]).wrap_socket(raw, server_hostname="localhost")
    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    conn.initiate_connection()
    s.sendall(conn.data_to_send())
    return s, conn


def request_headers(args):
    return [(":method", "GET"), (":scheme", "https"), (":authority", f"localhost:{args.port}"), (":path", args.path)]


def pump(s, conn, events):
    import h2.events
    s.settimeout(0.05)
    try:
        data = s.recv(65536)
    except (socket.timeout, ssl.SSLWantReadError):
        return True
    except (ConnectionResetError, ssl.SSLError, OSError):
        return False
    if not data:
        return False
    try:
        for e in conn.receive_data(data):
            if isinstance(e, h2.events.ConnectionTerminated):
                events["goaway"] = {"error_code": int(e.error_code), "last_stream_id": e.last_stream_id}
            elif isinstance(e, h2.events.StreamReset):
                events["resets_received"] = events.get("resets_received", 0) + 1
                events.setdefault("reset_codes", {})
                events["reset_codes"][str(int(e.error_code))] = events["reset_codes"].get(str(int(e.error_code)), 0) + 1
            elif isinstance(e, h2.events.ResponseReceived):
                events["responses"] = events.get("responses", 0) + 1
    except Exception as e:  # the server may close mid-frame
        events["client_error"] = type(e).__name__
        return False
    out = conn.data_to_send()
    if out:
        try:
            s.sendall(out)
        except OSError:
            return False
    return True


def rstflood(args):
    s, conn = h2_connection(args)
    events, sent, started = {}, 0, time.monotonic()
    deadline = started + args.t
    alive = True
    while sent < args.n and time.monotonic() < deadline and alive and "goaway" not in events:
        try:
            for _ in range(50):
                sid = conn.get_next_available_stream_id()
                conn.send_headers(sid, request_headers(args), end_stream=True)
                conn.reset_stream(sid)
                sent += 1
        except Exception as e:  # h2 refuses once the connection is closed
            events["client_error"] = type(e).__name__
            break
        try:
            s.sendall(conn.data_to_send())
        except OSError:
            break
        alive = pump(s, conn, events)
    end = time.monotonic() + 3
    while alive and "goaway" not in events and time.monotonic() < end:
        alive = pump(s, conn, events)
    events.update({"mode": "rstflood", "streams_reset": sent, "seconds": round(time.monotonic() - started, 3),
                   "server_closed": not alive})
    s.close()
    print(json.dumps(events))


def overlimit(args):
    s, conn = h2_connection(args)
    events, opened, started = {}, 0, time.monotonic()
    alive = pump(s, conn, events)
    deadline = started + args.t
    while opened < args.n and alive and "goaway" not in events and time.monotonic() < deadline:
        sid = conn.get_next_available_stream_id()
        # HEADERS without END_STREAM: the stream stays open; bypass h2's own local limit check.
        conn.remote_settings._settings[3] = collections.deque([1 << 30])
        try:
            conn.send_headers(sid, [(":method", "POST")] + request_headers(args)[1:], end_stream=False)
        except Exception as e:  # h2 refuses once the connection is closed
            events["client_error"] = type(e).__name__
            break
        opened += 1
        try:
            s.sendall(conn.data_to_send())
        except OSError:
            break
        if opened % 20 == 0:
            alive = pump(s, conn, events)
    end = time.monotonic() + 3
    while alive and "goaway" not in events and time.monotonic() < end:
        alive = pump(s, conn, events)
    events.update({"mode": "overlimit", "streams_opened": opened, "seconds": round(time.monotonic() - started, 3),
                   "server_closed": not alive})
    s.close()
    print(json.dumps(events))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["slowloris", "halfopen", "halftls", "rstflood", "overlimit"])
    p.add_argument("port", type=int)
    p.add_argument("--tls", action="store_true", help="slowloris over TLS")
    p.add_argument("--tls-ca", help="CA file (h2 modes)")
    p.add_argument("--path", default="/health")
    p.add_argument("-n", type=int, default=100)
    p.add_argument("-t", type=float, default=20.0)
    args = p.parse_args()
    args.n = min(args.n, 100_000)
    args.t = min(args.t, 120.0)
    {"slowloris": slowloris, "halfopen": halfopen, "halftls": halftls, "rstflood": rstflood,
     "overlimit": overlimit}[args.mode](args)


if __name__ == "__main__":
    sys.exit(main())
