#!/usr/bin/env python3
"""Does the console's live stream keep up with the gateway, and what does the console cost it?
Starts `pushlab serve` (with or without --console, by MODE), follows GET /console/api/events as a
browser's EventSource does (Last-Event-ID, reconnect after `retry`), sends N pushes with SENDERS
bulk senders at once (`pushlab send apns --tokens`, each a share of the tokens), and prints one
JSON line: the mode, the send rate, the gateway's CPU per push, the pushes the stream delivered,
when the last one arrived, the stream's rate over the run, the lag after the last send, the
batches it took, and how many pushes the virtual iPhone ran (of the newest it lists).

usage: console_stream.py ROOT PUSHLAB N [--mode console|console-all|none] [--senders K]
                         [--connections C] [--phone-rate N] [--no-follow] [--sender pushlab|h2load]
  --sender h2load  sends with nghttp2's h2load instead (C, a fraction of a bulk sender's CPU, so
               more of the 2 cores go to the gateway); K connections, 100 streams each, one
               token, a valid ES256 provider token. Streams APNs refuses before its first
               authenticated answer get no answer and are not recorded: the stream is expected
               to carry every answered request (h2load's status-code counts).
  console      serve --console (the virtual iPhone at its default --console-phone-rate)
  console-all  serve --console --console-phone-rate 1000000 (the iPhone runs every push it can:
               what the console did before the rate)
  none         serve without --console (the peer: the gateway alone; nothing to stream)"""
import argparse, json, os, signal, subprocess, sys, tempfile, threading, time, urllib.request

def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

def main():
    p = argparse.ArgumentParser()
    p.add_argument("root"); p.add_argument("pushlab"); p.add_argument("count", type=int)
    p.add_argument("--mode", default="console", choices=["console", "console-all", "none"])
    p.add_argument("--senders", type=int, default=1)
    p.add_argument("--connections", type=int, default=1)
    p.add_argument("--phone-rate", type=int, help="console mode: --console-phone-rate N instead of the default")
    p.add_argument("--no-follow", action="store_true", help="no stream client (to tell the stream's cost from the rest)")
    p.add_argument("--sender", default="pushlab", choices=["pushlab", "h2load"])
    p.add_argument("--rps", type=int, help="h2load: send at this many requests/s in all (h2load --rps, split over the connections)")
    a = p.parse_args()
    root, pushlab, count = a.root, os.path.abspath(a.pushlab), a.count
    flags = {"console": ["--console"], "console-all": ["--console", "--console-phone-rate", "1000000"], "none": []}[a.mode]
    if a.phone_rate and a.mode == "console": flags += ["--console-phone-rate", str(a.phone_rate)]
    serve = subprocess.Popen([pushlab, "serve"] + flags + ["--port", "0", "--apns-port", "0", "--h2c-port", "0", "--quiet"],
                             cwd=root, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    urls = {}
    wanted = "console" if a.mode != "none" else "apns"
    while wanted not in urls:
        line = serve.stdout.readline()
        if not line: sys.exit("serve exited")
        if line.startswith("APNs: https://"): urls["apns"] = line.split()[1]
        if line.startswith("console: "): urls["console"] = line.split()[1]
    seen = {"ids": 0, "last": 0, "batches": 0, "last_at": None}
    expected = {"n": count}  # h2load: the answered requests, known once it exits
    done = threading.Event()
    def follow():
        last_id, retry = 0, 0.2
        while not done.is_set():
            req = urllib.request.Request(urls["console"] + "/api/events?after=0", headers={"last-event-id": str(last_id)})
            with urllib.request.urlopen(req, timeout=30) as r:
                text = r.read().decode()
            for block in text.split("\n\n"):
                fields = dict(l.split(": ", 1) for l in block.split("\n") if ": " in l and not l.startswith(":"))
                if "retry" in fields: retry = int(fields["retry"]) / 1000
                if "id" in fields: last_id = int(fields["id"])
                if "data" in fields:
                    batch = json.loads(fields["data"])
                    seen["ids"] += len(batch); seen["batches"] += 1; seen["last_at"] = time.time()
            if seen["ids"] >= expected["n"]: done.set(); break
            time.sleep(retry)
    if a.mode != "none" and not a.no_follow:
        threading.Thread(target=follow, daemon=True).start()
    files = []
    for s in range(a.senders if a.sender == "pushlab" else 0):
        with tempfile.NamedTemporaryFile("w", delete=False) as f:
            for i in range(s, count, a.senders): f.write("%064x\n" % (i + 1))
            files.append(f.name)
    if a.sender == "h2load":
        import jwt
        key = open(os.path.join(root, "certs/AuthKey_PLDEVKEY01.p8")).read()
        token = jwt.encode({"iss": "PLDEVTEAM1", "iat": int(time.time())}, key, algorithm="ES256", headers={"kid": "PLDEVKEY01"})
        with tempfile.NamedTemporaryFile("w", delete=False) as f:
            f.write('{"aps":{"alert":{"title":"Bench","body":"stream"}}}')
            body = f.name
    cpu_before = cpu_seconds(serve.pid)
    start = time.time()
    if a.sender == "h2load":
        pace = ["--rps", str(max(1, a.rps // a.senders))] if a.rps else []
        h2 = subprocess.run(["h2load", "-n", str(count), "-c", str(a.senders), "-m", "100", "-d", body] + pace + [
                             "-H", f"authorization: bearer {token}", "-H", "apns-topic: io.pushlab.demo", "-H", "apns-push-type: alert",
                             urls["apns"] + "/3/device/" + "%064x" % 7], capture_output=True, text=True)
        os.unlink(body)
        codes = next((l for l in h2.stdout.splitlines() if l.startswith("status codes:")), "")
        answered = sum(int(part.split()[0]) for part in codes.split(":", 1)[1].split(",")) if codes else 0
        exits = [h2.returncode]
    else:
        answered = count
    expected["n"] = answered
    senders = [] if a.sender == "h2load" else [subprocess.Popen([pushlab, "send", "apns", "--url", urls["apns"], "--ca-file", "certs/ca.pem", "--key", "certs/AuthKey_PLDEVKEY01.p8",
                                 "--team-id", "PLDEVTEAM1", "--topic", "io.pushlab.demo", "--tokens", tokens, "--title", "Bench", "--body", "stream",
                                 "--connections", str(a.connections), "--out", os.devnull],
                                cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for tokens in files]
    if a.sender == "pushlab": exits = [s.wait() for s in senders]
    sent_at = time.time()
    cpu_sent = cpu_seconds(serve.pid) - cpu_before
    for f in files: os.unlink(f)
    simulated = None
    if a.mode != "none":
        if not a.no_follow: done.wait(timeout=120)
        try:
            with urllib.request.urlopen(urls["console"] + "/api/devices", timeout=30) as r:
                notes = json.load(r)["devices"][0]["notifications"]
            simulated = {"listed": len(notes), "ran": sum(1 for n in notes if n.get("report")),
                         "not_simulated": sum(1 for n in notes if "not simulated" in (n.get("skipped") or ""))}
        except Exception as e:
            simulated = {"error": str(e)}
    serve.send_signal(signal.SIGINT); serve.wait(timeout=60)
    last = seen["last_at"] or sent_at
    out = {"mode": a.mode, "sender": a.sender, "rps": a.rps, "pushes": count, "answered": answered, "senders": a.senders, "send_exit": max(exits),
           "send_seconds": round(sent_at - start, 3), "send_rate": round(answered / (sent_at - start)),
           "gateway_cpu_us_per_push": round(cpu_sent * 1e6 / max(answered, 1), 1)}
    if a.mode != "none":
        out.update({"streamed": seen["ids"], "batches": seen["batches"], "stream_seconds": round(last - start, 3),
                    "stream_rate": round(seen["ids"] / max(last - start, 1e-9)), "lag_after_last_send_ms": round((last - sent_at) * 1000),
                    "phone": simulated})
    print(json.dumps(out))

main()
