#!/usr/bin/env bash
# Load and abuse of pushlab's servers (issue 11 item 3). Starts `pushlab serve` (gateway: APNs
# host + Google host with the collector mounted) and `pushlab collector` on free loopback ports,
# then: h2load -c 100 -m 100 -D $LOAD_SECONDS with valid requests against each host; and abuse
# (Tests/Peers/abuse.py: slowloris, half-open TCP, half-finished TLS handshakes, HTTP/2 RST
# floods, streams past MAX_CONCURRENT_STREAMS) against the Google host while a well-behaved
# h2load client (-c 1 -m 1) measures its latency and success, compared with the same probe
# without abuse. Server RSS before/during/after from /proc/<pid>/status; /health after each.
# Every loop is bounded in count and time; only 127.0.0.1. Writes benchmarks/results/robustness.md.
set -euo pipefail
cd "$(dirname "$0")/.."
LOAD_SECONDS=${LOAD_SECONDS:-20}
PROBE_SECONDS=${PROBE_SECONDS:-6}
OUT=benchmarks/results/robustness.md
BIN=${PUSHLAB_BIN:-.build/release/pushlab}
PY=.venv/bin/python
ABUSE=Tests/Peers/abuse.py
[ -n "${PUSHLAB_BIN:-}" ] || swift build -c release --product pushlab >/dev/null
command -v h2load >/dev/null || { echo "robustness.sh: h2load missing (scripts/bootstrap)" >&2; exit 1; }
source benchmarks/lib/scratch.sh TMP

"$BIN" serve --apns-port 0 --port 0 --h2c-port 0 --quiet --collector-db "$TMP/serve-collector.sqlite" >"$TMP/serve.log" 2>&1 &
SERVE=$!; PIDS+=($SERVE)
"$BIN" collector --port 0 --h2c-port 0 --quiet --db "$TMP/collector.sqlite" --cdp-key bench-key >"$TMP/collector.log" 2>&1 &
COLL=$!; PIDS+=($COLL)
for _ in $(seq 200); do grep -q '^APNs: https' "$TMP/serve.log" && grep -q '^https://' "$TMP/collector.log" && break; sleep 0.05; done
GOOGLE=$(sed -n 's|^\(https://127.0.0.1:[0-9]*\) .*OAuth.*|\1|p' "$TMP/serve.log")
APNS=$(sed -n 's|^APNs: \(https://127.0.0.1:[0-9]*\) (h2).*|\1|p' "$TMP/serve.log")
COLLECTOR=$(sed -n 's|^\(https://127.0.0.1:[0-9]*\) .*|\1|p' "$TMP/collector.log")
GOOGLE_PORT=${GOOGLE##*:}
echo "robustness.sh: serve $GOOGLE (Google), $APNS (APNs); collector $COLLECTOR" >&2

rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }
health() { curl -s -o /dev/null -w '%{http_code}' --cacert certs/ca.pem --max-time 5 "$GOOGLE/health" || echo 000; }

# Valid credentials: an APNs provider token from the dev key, an FCM access token from the
# emulator's own OAuth route, Basic auth for the collector.
APNS_JWT=$("$PY" - <<'PY'
import jwt, time
print(jwt.encode({"iss": "PLDEVTEAM1", "iat": int(time.time())}, open("certs/AuthKey_PLDEVKEY01.p8").read(),
                 algorithm="ES256", headers={"kid": "PLDEVKEY01"}))
PY
)
ASSERTION=$("$PY" - <<'PY'
import json, jwt, time
sa = json.load(open("certs/fcm-service-account.json")); now = int(time.time())
print(jwt.encode({"iss": sa["client_email"], "aud": "https://127.0.0.1/token", "iat": now, "exp": now + 3600,
                  "scope": "https://www.googleapis.com/auth/firebase.messaging"}, sa["private_key"], algorithm="RS256",
                 headers={"kid": sa["private_key_id"]}))
PY
)
FCM_TOKEN=$(curl -s --cacert certs/ca.pem -d "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=$ASSERTION" \
  "$GOOGLE/token" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["access_token"])')
TOKEN=3a4b5c6d7e8f90112233445566778899aabbccddeeff00112233445566778899
cp payloads/apns/basic-alert.json "$TMP/apns.json"
cp payloads/fcm/basic-token.json "$TMP/fcm.json"
printf '{"anonymousId":"RPILAgUBcRhIBqSfeiIwdIYJKxTY","event":"Report Delivery Event","properties":{"recipient":"dtok-9f8e7d6c5b4a","metric":"delivered","deliveryId":"RPILAgUBcRhIBqSfeiIwdIYJKxTY"}}' >"$TMP/track.json"
BASIC=$(printf 'bench-key:' | base64 -w0)

# h2load summary → "requests ok failed 2xx non2xx req/s".
summary() {
  awk '/^finished in/ { gsub(",", "", $4); rps = $4 }
       /^requests:/ { total = $2; ok = $8; failed = $10 }
       /^status codes:/ { xx2 = $3; xx4 = $7; xx5 = $9 }
       END { printf "%s %s %s %s %s %s\n", total, ok, failed, xx2, xx4 + xx5, rps }'
}

LOAD_ROWS=""
load() {  # name pid url h2load-args...
  local name=$1 pid=$2 url=$3; shift 3
  local before during after out
  before=$(rss_kb "$pid")
  echo "robustness.sh: load $name (${LOAD_SECONDS}s)" >&2
  ( sleep $((LOAD_SECONDS / 2)); rss_kb "$pid" >"$TMP/rss-during" ) &
  out=$(h2load -c 100 -m 100 -D "$LOAD_SECONDS" "$@" "$url" 2>&1)
  wait $! 2>/dev/null || true
  during=$(cat "$TMP/rss-during"); sleep 1; after=$(rss_kb "$pid")
  read -r total ok failed xx2 bad rps <<<"$(summary <<<"$out")"
  LOAD_ROWS+="| $name | $total | $ok | $failed | $xx2 | $bad | $rps | $((before / 1024)) / $((during / 1024)) / $((after / 1024)) | $(health) |"$'\n'
}

load "serve APNs host: POST /3/device (valid JWT)" $SERVE "$APNS/3/device/$TOKEN" -d "$TMP/apns.json" \
  -H "authorization: bearer $APNS_JWT" -H "apns-topic: io.pushlab.demo" -H "apns-push-type: alert"
load "serve Google host: POST messages:send (valid token)" $SERVE "$GOOGLE/v1/projects/pushlab-dev/messages:send" \
  -d "$TMP/fcm.json" -H "authorization: Bearer $FCM_TOKEN" -H "content-type: application/json"
load "collector: POST /v1/track (valid key)" $COLL "$COLLECTOR/v1/track" -d "$TMP/track.json" \
  -H "authorization: Basic $BASIC" -H "content-type: application/json"

# The well-behaved client: one connection, one stream at a time, GET /health for PROBE_SECONDS;
# per-request latencies from h2load's log → "p50_µs p99_µs requests non-2xx-or-failed".
probe() {
  local log="$TMP/probe.log" out
  rm -f "$log"
  out=$(h2load -c 1 -m 1 -D "$PROBE_SECONDS" --log-file="$log" "$GOOGLE/health" 2>&1 || true)
  local failed
  failed=$(awk '/^requests:/ { print $10 + $12 }' <<<"$out")
  "$PY" - "$log" "${failed:-0}" <<'PY'
import sys
rows = [l.split("\t") for l in open(sys.argv[1]) if l.strip()] if __import__("os").path.exists(sys.argv[1]) else []
lat = sorted(int(r[2]) for r in rows)  # microseconds
bad = sum(1 for r in rows if not r[1].startswith("2")) + int(sys.argv[2])
pick = lambda p: str(lat[min(len(lat) - 1, int(len(lat) * p))]) if lat else "n/a"
print(pick(0.5), pick(0.99), len(lat), bad)
PY
}

ABUSE_ROWS=""
abuse() {  # name abuse.py-args...
  local name=$1; shift
  echo "robustness.sh: abuse $name" >&2
  local before base during after result
  read -r b50 b99 bn bbad <<<"$(probe)"
  before=$(rss_kb $SERVE)
  "$PY" "$ABUSE" "$@" >"$TMP/abuse.json" 2>"$TMP/abuse.err" &
  local apid=$!
  sleep 1.5
  read -r d50 d99 dn dbad <<<"$(probe)"
  during=$(rss_kb $SERVE)
  wait $apid || true
  sleep 1; after=$(rss_kb $SERVE)
  result=$(tr -d '\n' <"$TMP/abuse.json" | sed 's/|/\//g'); [ -n "$result" ] || result="(no report: $(tail -c 200 "$TMP/abuse.err"))"
  ABUSE_ROWS+="| $name | $b50 / $b99 ($bn req, $bbad bad) | $d50 / $d99 ($dn req, $dbad bad) | $((before / 1024)) / $((during / 1024)) / $((after / 1024)) | $(health) | \`$result\` |"$'\n'
}

abuse "slowloris, 500 conns (HTTP/1.1 over TLS, 1 byte/s)" slowloris "$GOOGLE_PORT" --tls -n 500 -t 20
abuse "half-open TCP, 2000 conns" halfopen "$GOOGLE_PORT" -n 2000 -t 20
abuse "half-finished TLS handshake, 1000 conns" halftls "$GOOGLE_PORT" -n 1000 -t 20
abuse "RST flood (HEADERS+RST_STREAM, up to 100000)" rstflood "$GOOGLE_PORT" --tls-ca certs/ca.pem -n 100000 -t 15
abuse "streams past the limit (5000 open streams, limit 100)" overlimit "$GOOGLE_PORT" --tls-ca certs/ca.pem -n 5000 -t 15
FINAL_HEALTH=$(health)
alive=yes; kill -0 $SERVE 2>/dev/null || alive=no

cat >"$OUT" <<MD
# Robustness: load and abuse of pushlab's servers

Generated by \`benchmarks/robustness.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC').

- Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) RAM, load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (shared with other jobs)
- Tools: $(h2load --version | head -1), $("$PY" --version), h2 $("$PY" -c 'import h2; print(h2.__version__)'), $(curl --version | head -1 | cut -d' ' -f1-2)
- Servers: \`$BIN serve --apns-port 0 --port 0 --h2c-port 0 --quiet\` and \`$BIN collector --port 0 --h2c-port 0 --quiet --cdp-key bench-key\`, TLS (ALPN h2), default HTTPServerConfiguration (handshake timeout 10 s)
- Abuse clients: \`Tests/Peers/abuse.py\` (mode, count, time limit shown in each row's report)

## Load: h2load -c 100 -m 100 -D $LOAD_SECONDS, valid requests

| target | requests | succeeded | failed | 2xx | 4xx/5xx | req/s | RSS MiB before / during / after | /health after |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
$LOAD_ROWS
APNs host: the server advertises MAX_CONCURRENT_STREAMS 1 until the first authenticated request, then 500 (apns.md), so h2load runs 100 streams per connection after the first response.

## Abuse against the Google host of \`pushlab serve\`, with a well-behaved client

Well-behaved client: \`h2load -c 1 -m 1 -D $PROBE_SECONDS --log-file\` GET /health (one connection, one request at a time), latency p50 / p99 in µs from its per-request log (h2load's duration column), run once before the abuse and once while it runs. One request at a time on a virtual machine whose vCPUs are otherwise idle includes waking them up, so this latency is higher on a quiet machine than on a busy one: compare the two columns of a row, not rows of different runs.

| abuse | client p50 / p99 µs without abuse | client p50 / p99 µs during abuse | server RSS MiB before / during / after | /health after | abuse report |
| --- | --- | --- | --- | --- | --- |
$ABUSE_ROWS
After all rows: server process alive: $alive, /health: $FINAL_HEALTH.

Reading the reports: \`closed_by_server\` counts connections the server closed (handshake timeout), \`close_after_p50_s\` when; \`goaway\` is the GOAWAY the server sent (error_code 11 = ENHANCE_YOUR_CALM, 1 = PROTOCOL_ERROR); \`reset_codes\` counts RST_STREAM codes received (7 = REFUSED_STREAM).
MD
echo "robustness.sh: wrote $OUT" >&2
[ "$alive" = yes ] && [ "$FINAL_HEALTH" = 200 ]
