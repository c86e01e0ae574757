# Used by benchmarks/relay.sh and benchmarks/relay-ab.sh:
#   python3 benchmarks/lib/relay-e2e.py URL KEY ADMIN TOKENS_FILE [RELAY_PID]
# With RELAY_PID it also prints the relay's CPU ticks (user + system) spent from the first POST
# until the queue was empty (the results read afterwards not counted).
# Posts the tokens as pushes of 1,000 over one HTTP/1.1 connection, waits until the queue is
# empty, then reads every push's results: elapsed, targets/s, p50/p99 enqueue → final (ms).
import json, sys, time, http.client, urllib.parse
url, key, admin, tokens_file = sys.argv[1:5]
pid = sys.argv[5] if len(sys.argv) > 5 else None
def ticks():
    if pid is None: return 0
    fields = open('/proc/%s/stat' % pid).read().rsplit(')', 1)[1].split()
    return int(fields[11]) + int(fields[12])
u = urllib.parse.urlsplit(url)
c = http.client.HTTPConnection(u.hostname, u.port)
def call(method, path, body=None, token=key):
    c.request(method, path, body=body, headers={"authorization": "Bearer " + token, "content-type": "application/json"})
    r = c.getresponse()
    return r.status, json.loads(r.read() or b"null")
tokens = open(tokens_file).read().split()
start = time.monotonic()
ticks_start = ticks()
ids = []
for i in range(0, len(tokens), 1000):
    body = json.dumps({"apns": {"payload": {"aps": {"alert": {"title": "bench", "body": "relay end to end"}}}}, "apns_tokens": tokens[i:i + 1000]})
    status, answer = call("POST", "/v1/apps/bench/pushes", body)
    assert status == 202, (status, answer)
    ids.append(answer["id"])
while True:
    status, depth = call("GET", "/v1/admin/queue", token=admin)
    if depth["waiting"] == 0 and depth["claimed"] == 0:
        break
    time.sleep(0.01)
elapsed = time.monotonic() - start
cpu = ticks() - ticks_start
import os
if os.environ.get('SKIP_RESULTS'):
    print(len(tokens), len(tokens), round(elapsed, 3), int(len(tokens) / elapsed), 0, 0, cpu)
    sys.exit(0)
def seconds(t):
    from datetime import datetime
    return datetime.fromisoformat(t.replace("Z", "+00:00")).timestamp()
latencies, sent = [], 0
for pid in ids:
    status, push = call("GET", "/v1/pushes/" + pid)
    accepted = seconds(push["accepted_at"])
    for r in push["results"]:
        sent += r["status"] == "sent"
        latencies.append((seconds(r["finished_at"]) - accepted) * 1000)
latencies.sort()
pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))]
print(sent, len(tokens), round(elapsed, 3), int(len(tokens) / elapsed), round(pick(0.50), 1), round(pick(0.99), 1), cpu)
