#!/usr/bin/env python3
"""Does the console's live stream keep up with the gateway? Starts `pushlab serve --console`,
follows GET /console/api/events as a browser's EventSource does (Last-Event-ID, reconnect after
`retry`), sends N pushes with the bulk sender (`pushlab send apns --tokens`), and prints one
JSON line: the send rate, the pushes the stream delivered, when the last one arrived, the
stream's rate over the run, the lag after the last send and the batches it took."""
import json, os, re, signal, subprocess, sys, tempfile, threading, time, urllib.request

def main():
    root, pushlab, count = sys.argv[1], os.path.abspath(sys.argv[2]), int(sys.argv[3])
    serve = subprocess.Popen([pushlab, "serve", "--console", "--port", "0", "--apns-port", "0", "--h2c-port", "0", "--quiet"],
                             cwd=root, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    urls = {}
    while "console" not in urls:
        line = serve.stdout.readline()
        if not line: sys.exit("serve exited")
        if line.startswith("APNs: https://"): urls["apns"] = line.split()[1]
        if line.startswith("console: "): urls["console"] = line.split()[1]
    seen = {"ids": 0, "last": 0, "batches": 0, "last_at": None}
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
            if seen["ids"] >= count: done.set(); break
            time.sleep(retry)
    follower = threading.Thread(target=follow, daemon=True); follower.start()
    with tempfile.NamedTemporaryFile("w", delete=False) as f:
        for i in range(count): f.write("%064x\n" % (i + 1))
        tokens = f.name
    start = time.time()
    out = subprocess.run([pushlab, "send", "apns", "--url", urls["apns"], "--ca-file", "certs/ca.pem", "--key", "certs/AuthKey_PLDEVKEY01.p8",
                          "--team-id", "PLDEVTEAM1", "--topic", "io.pushlab.demo", "--tokens", tokens, "--title", "Bench", "--body", "stream",
                          "--out", os.devnull], cwd=root, capture_output=True, text=True)
    sent_at = time.time()
    os.unlink(tokens)
    done.wait(timeout=120)
    serve.send_signal(signal.SIGINT); serve.wait(timeout=30)
    last = seen["last_at"] or time.time()
    print(json.dumps({"pushes": count, "send_exit": out.returncode, "send_seconds": round(sent_at - start, 3),
                      "send_rate": round(count / (sent_at - start)), "streamed": seen["ids"], "batches": seen["batches"],
                      "stream_seconds": round(last - start, 3), "stream_rate": round(seen["ids"] / max(last - start, 1e-9)),
                      "lag_after_last_send_ms": round((last - sent_at) * 1000)}))

main()
