#!/usr/bin/env bash
# benchmarks/apns-send.sh → benchmarks/results/apns-send.md
#
# ROUNDS interleaved rounds (default 3) against one local HTTP/2 + TLS server
# (pushlab-bench-push-server: answers every POST /3/device/<token> with 200 and the echoed
# apns-id, nothing else); each round runs the clients one after the other:
#   1. pushlab send apns --tokens (100,000 tokens, one connection, 200 in flight: its default,
#      and its default transport, nghttp2), then the same with --connections 2 (two connections,
#      two client loop threads), and with --transport curl (libcurl's HTTPClient, for comparison)
#   2. Python aioapns 4.0 (default settings: up to 10 connections) sending the same count
#   3. h2load posting the same requests (protocol ceiling for one connection)
# plus pushlab's peak RSS for a 1,000,000-token bulk send (/usr/bin/time -v), once. Every run is
# written to the results file; the table shows the medians, and the ratios are of medians.
# CPU per push is each client process's user + system time (/usr/bin/time: the kernel's
# rusage, the same counters as /proc/PID/stat) divided by the pushes.
# Small check: COUNT=2000 BIG=20000 ROUNDS=1 benchmarks/apns-send.sh
#
# Pointing aioapns at the local server: aioapns has no host/port option. Its connection class
# reads the class attributes APNS_SERVER / APNS_PORT, so the script sets
# APNsProductionClientProtocol.APNS_SERVER = "localhost" and .APNS_PORT = <port>, and passes an
# ssl_context that trusts certs/ca.pem and offers ALPN h2 (aioapns' own context offers no ALPN).
set -euo pipefail
export PUSHLAB_BENCH=1  # the pushlab-bench-* drivers exist only then (Package.swift)
cd "$(dirname "$0")/.."
COUNT=${COUNT:-100000}
BIG=${BIG:-1000000}
CONCURRENCY=${CONCURRENCY:-200}
ROUNDS=${ROUNDS:-3}
OUT=benchmarks/results/apns-send.md
# WORK, PUSHLAB, PY; the push server at $URL; stop_server.
source benchmarks/lib/push-server.sh
# record, median, ratio, machine_lines, raw_table (every run kept).
source benchmarks/lib/runs.sh
PORT=${URL##*:}

python3 -c "
import sys
with open('$WORK/tokens.txt','w') as f:
    for i in range($COUNT): f.write('%064x\n' % i)
with open('$WORK/tokens-big.txt','w') as f:
    for i in range($BIG): f.write('%064x\n' % i)
with open('$WORK/uris.txt','w') as f:
    for i in range(1000): f.write('$URL/3/device/%064x\n' % i)
"
PAYLOAD='{"aps":{"alert":{"title":"Benchmark","body":"Hello from the benchmark"}}}'
printf '%s' "$PAYLOAD" >"$WORK/payload.json"
KEYARGS=(--key certs/AuthKey_PLDEVKEY01.p8 --team-id PLDEVTEAM1 --topic io.pushlab.demo)

# The aioapns client (2. below).
cat >"$WORK/aioapns_bench.py" <<'PYEOF'
import asyncio, ssl, sys, time, uuid
from aioapns import APNs, NotificationRequest
from aioapns.connection import APNsProductionClientProtocol

port, count, ca, key, concurrency = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5])
APNsProductionClientProtocol.APNS_SERVER = "localhost"   # what aioapns connects to and sends as :authority
APNsProductionClientProtocol.APNS_PORT = port
ctx = ssl.create_default_context(cafile=ca)
ctx.set_alpn_protocols(["h2"])

async def main():
    client = APNs(key=open(key).read(), key_id="PLDEVKEY01", team_id="PLDEVTEAM1",
                  topic="io.pushlab.demo", use_sandbox=False, ssl_context=ctx)
    payload = {"aps": {"alert": {"title": "Benchmark", "body": "Hello from the benchmark"}}}
    sem = asyncio.Semaphore(concurrency)
    ok = 0
    async def one(i):
        nonlocal ok
        async with sem:
            r = await client.send_notification(NotificationRequest(
                device_token="%064x" % i, message=payload, notification_id=str(uuid.uuid4())))
            if r.is_successful:
                ok += 1
    start = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(count)))
    elapsed = time.perf_counter() - start
    print(ok, count, round(elapsed, 3), round(count / elapsed))

asyncio.run(main())
PYEOF
# A valid provider JWT for h2load, minted once (not printed).
JWT=$($PY -c "
import jwt, time
print(jwt.encode({'iss':'PLDEVTEAM1','iat':int(time.time())}, open('certs/AuthKey_PLDEVKEY01.p8').read(), algorithm='ES256', headers={'kid':'PLDEVKEY01'}))")

cpu_per_push() { awk -v n="$COUNT" '{ printf "%.1f", ($1 + $2) * 1e6 / n }' "$1"; }

for ROUND in $(seq "$ROUNDS"); do
  echo "apns-send.sh: round $ROUND/$ROUNDS"
  # 1. pushlab
  PUSHLAB_CMD="pushlab send apns --url $URL --ca-file certs/ca.pem --key … --team-id … --topic io.pushlab.demo --tokens tokens.txt --concurrency $CONCURRENCY --connections 1 --no-history --json payload.json"
  /usr/bin/time -f "%U %S" -o "$WORK/pushlab.time" $PUSHLAB send apns --url "$URL" --ca-file certs/ca.pem "${KEYARGS[@]}" --tokens "$WORK/tokens.txt" \
    --concurrency "$CONCURRENCY" --connections 1 --no-history --json "$WORK/payload.json" >"$WORK/pushlab.json" 2>"$WORK/pushlab.err"
  read -r PL_OK PL_TOTAL PL_SECS PL_RATE < <($PY -c "
import json; d=json.load(open('$WORK/pushlab.json')); print(d['accepted'], d['total'], d['elapsedSeconds'], d['perSecond'])")
  PL_CPU=$(cpu_per_push "$WORK/pushlab.time")
  # Two connections: two client loops (threads), pushes spread over them.
  /usr/bin/time -f "%U %S" -o "$WORK/pushlab2.time" $PUSHLAB send apns --url "$URL" --ca-file certs/ca.pem "${KEYARGS[@]}" --tokens "$WORK/tokens.txt" \
    --concurrency "$CONCURRENCY" --connections 2 --no-history --json "$WORK/payload.json" >"$WORK/pushlab2.json" 2>"$WORK/pushlab2.err"
  read -r PL2_OK PL2_RATE < <($PY -c "
import json; d=json.load(open('$WORK/pushlab2.json')); print(d['accepted'], d['perSecond'])")
  PL2_CPU=$(cpu_per_push "$WORK/pushlab2.time")
  # libcurl's client (what `send` used before the nghttp2 transport became its default).
  /usr/bin/time -f "%U %S" -o "$WORK/pushlabc.time" $PUSHLAB send apns --url "$URL" --ca-file certs/ca.pem "${KEYARGS[@]}" --tokens "$WORK/tokens.txt" \
    --concurrency "$CONCURRENCY" --connections 1 --transport curl --no-history --json "$WORK/payload.json" >"$WORK/pushlabc.json" 2>"$WORK/pushlabc.err"
  read -r PLC_OK PLC_RATE < <($PY -c "
import json; d=json.load(open('$WORK/pushlabc.json')); print(d['accepted'], d['perSecond'])")
  PLC_CPU=$(cpu_per_push "$WORK/pushlabc.time")
  # The same with the results file and the history on (what a user gets by default), fresh each round.
  rm -f "$WORK/history.sqlite"
  $PUSHLAB send apns --url "$URL" --ca-file certs/ca.pem "${KEYARGS[@]}" --tokens "$WORK/tokens.txt" \
    --concurrency "$CONCURRENCY" --connections 1 --history "$WORK/history.sqlite" --out "$WORK/results.jsonl" --json \
    "$WORK/payload.json" >"$WORK/pushlab-full.json"
  read -r PLF_OK PLF_RATE < <($PY -c "
import json; d=json.load(open('$WORK/pushlab-full.json')); print(d['accepted'], d['perSecond'])")

  # 2. aioapns
  # To a file first: /usr/bin/time writes aio.time only after the process exits.
  /usr/bin/time -f "%U %S" -o "$WORK/aio.time" $PY "$WORK/aioapns_bench.py" "$PORT" "$COUNT" certs/ca.pem certs/AuthKey_PLDEVKEY01.p8 "$CONCURRENCY" >"$WORK/aio.out"
  read -r AIO_OK AIO_TOTAL AIO_SECS AIO_RATE <"$WORK/aio.out"
  AIO_CPU=$(cpu_per_push "$WORK/aio.time")

  # 3. h2load: same method, headers and payload.
  h2load -n "$COUNT" -c 1 -m "$CONCURRENCY" -d "$WORK/payload.json" -i "$WORK/uris.txt" \
    -H "authorization: bearer $JWT" -H "apns-push-type: alert" -H "apns-topic: io.pushlab.demo" -H "apns-priority: 10" \
    -H "content-type: application/json" >"$WORK/h2load.txt" 2>&1
  H2_RATE=$(awk '/^finished in/ {print int($4)}' "$WORK/h2load.txt")
  H2_OK=$(awk '/^requests:/ {print $8}' "$WORK/h2load.txt")
  record "pushlab (--no-history) pushes/s" "$PL_RATE"
  record "pushlab --connections 2 (--no-history) pushes/s" "$PL2_RATE"
  record "pushlab (--no-history) CPU µs/push" "$PL_CPU"
  record "pushlab --connections 2 (--no-history) CPU µs/push" "$PL2_CPU"
  record "aioapns CPU µs/push" "$AIO_CPU"
  record "pushlab --connections 2 accepted" "$PL2_OK"
  record "pushlab --transport curl (--no-history) pushes/s" "$PLC_RATE"
  record "pushlab --transport curl (--no-history) CPU µs/push" "$PLC_CPU"
  record "pushlab --transport curl accepted" "$PLC_OK"
  record "pushlab (--out + history) pushes/s" "$PLF_RATE"
  record "aioapns pushes/s" "$AIO_RATE"
  record "h2load pushes/s" "$H2_RATE"
  record "pushlab accepted" "$PL_OK"
  record "aioapns accepted" "$AIO_OK"
  record "h2load 2xx" "$H2_OK"
done

# 4. Peak RSS for a 1,000,000-token bulk send (results file and history on).
/usr/bin/time -v $PUSHLAB send apns --url "$URL" --ca-file certs/ca.pem "${KEYARGS[@]}" --tokens "$WORK/tokens-big.txt" \
  --concurrency "$CONCURRENCY" --connections 1 --history "$WORK/history-big.sqlite" --out "$WORK/results-big.jsonl" --json \
  "$WORK/payload.json" >"$WORK/big.json" 2>"$WORK/big.time"
RSS_KB=$(awk -F: '/Maximum resident set size/ {gsub(/ /,"",$2); print $2}' "$WORK/big.time")
read -r BIG_OK BIG_RATE < <($PY -c "
import json; d=json.load(open('$WORK/big.json')); print(d['accepted'], d['perSecond'])")
BIG_LINES=$(wc -l <"$WORK/results-big.jsonl")
ROUND=1
record "pushlab $BIG-token bulk: peak RSS KiB" "$RSS_KB"
record "pushlab $BIG-token bulk: pushes/s" "$BIG_RATE"

stop_server
SERVED=$(cat "$WORK/server.err")

PL_MED=$(median "pushlab (--no-history) pushes/s")
PL2_MED=$(median "pushlab --connections 2 (--no-history) pushes/s")
PL_CPU_MED=$(median "pushlab (--no-history) CPU µs/push")
PL2_CPU_MED=$(median "pushlab --connections 2 (--no-history) CPU µs/push")
AIO_CPU_MED=$(median "aioapns CPU µs/push")
PLF_MED=$(median "pushlab (--out + history) pushes/s")
PLC_MED=$(median "pushlab --transport curl (--no-history) pushes/s")
PLC_CPU_MED=$(median "pushlab --transport curl (--no-history) CPU µs/push")
RATIO_CURL=$(ratio "$PL_MED" "$PLC_MED")
RATIO_AIOC=$(ratio "$PLC_MED" "$(median "aioapns pushes/s")")
AIO_MED=$(median "aioapns pushes/s")
RATIO_AIO2=$(ratio "$PL2_MED" "$AIO_MED")
H2_MED=$(median "h2load pushes/s")
RATIO_AIO=$(ratio "$PL_MED" "$AIO_MED")
RATIO_H2=$(ratio "$PL_MED" "$H2_MED")
RSS_MB=$($PY -c "print(round($RSS_KB / 1024, 1))")
cat >"$OUT" <<EOF
# APNs bulk send: pushlab vs aioapns vs h2load

$(machine_lines)
- versions: $($PUSHLAB --version), $(swift --version 2>/dev/null | head -1), $(curl --version | head -1 | cut -d' ' -f1-3) ($(curl --version | head -1 | grep -o 'nghttp2/[0-9.]*')), $(h2load --version 2>&1 | head -1), Python $($PY -c 'import sys; print(sys.version.split()[0])'), aioapns $($PY -c 'import importlib.metadata as m; print(m.version("aioapns"))')
- $ROUNDS interleaved rounds of $COUNT pushes per client; the table shows medians, ratios are of medians; every run is listed below.

Server: \`pushlab-bench-push-server\` (PushHTTP's nghttp2 + libevent + OpenSSL server, TLS, ALPN h2,
MAX_CONCURRENT_STREAMS 500) on 127.0.0.1, answering every \`POST /3/device/<token>\` with 200 and
the echoed apns-id. Every request carries the same payload ($(printf '%s' "$PAYLOAD" | wc -c) bytes) and APNs headers.

| client | pushes per run | pushes/s (median) | CPU µs/push (median) | pushlab (1 connection) ÷ client |
| --- | ---: | ---: | ---: | ---: |
| pushlab (1 connection, $CONCURRENCY in flight, --no-history; default transport nghttp2) | $COUNT | $PL_MED | $PL_CPU_MED | 1.00 |
| pushlab (--connections 2: two client loops, --no-history) | $COUNT | $PL2_MED | $PL2_CPU_MED | |
| pushlab --transport curl (libcurl, 1 connection, --no-history) | $COUNT | $PLC_MED | $PLC_CPU_MED | $RATIO_CURL |
| pushlab (1 connection, plus --out results.jsonl and history) | $COUNT | $PLF_MED | | |
| aioapns (default pool: ≤ 10 connections; $CONCURRENCY tasks in flight) | $COUNT | $AIO_MED | $AIO_CPU_MED | **$RATIO_AIO** |
| h2load (1 connection, $CONCURRENCY streams) | $COUNT | $H2_MED | | $RATIO_H2 |

Target (issue 26): ≥ 10× aioapns → measured **${RATIO_AIO}×** with one connection, **${RATIO_AIO2}×** with
\`--connections 2\` (medians); with \`--transport curl\` ${RATIO_AIOC}×. pushlab reaches ${RATIO_H2} of h2load's rate on one connection.

Peak RSS of \`pushlab send apns\` for **$BIG tokens** (results file and history on, one run):
**${RSS_MB} MB** (target ≤ 64 MB); $BIG_OK accepted, $BIG_LINES result lines, $BIG_RATE pushes/s.

Server counts after the run: \`$SERVED\`.

## Every run

$(raw_table)

## Commands
\`\`\`
$PUSHLAB_CMD   # and the same with --connections 2, and with --transport curl
$PY aioapns_bench.py <port> $COUNT certs/ca.pem certs/AuthKey_PLDEVKEY01.p8 $CONCURRENCY   # script body in benchmarks/apns-send.sh
h2load -n $COUNT -c 1 -m $CONCURRENCY -d payload.json -i uris.txt (1000 device URLs) -H 'authorization: bearer <JWT>' -H 'apns-push-type: alert' -H 'apns-topic: io.pushlab.demo' -H 'apns-priority: 10'
/usr/bin/time -v pushlab send apns … --tokens tokens-big.txt ($BIG) --history … --out results.jsonl
\`\`\`
aioapns is pointed at the local server by setting \`APNsProductionClientProtocol.APNS_SERVER\` and
\`APNS_PORT\` and passing an \`ssl_context\` that trusts \`certs/ca.pem\` with ALPN \`h2\`.
EOF
cat "$OUT"
