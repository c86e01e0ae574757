#!/usr/bin/env bash
# benchmarks/fcm-send.sh → benchmarks/results/fcm-send.md
#
# ROUNDS interleaved rounds (default 3) against one local FCM-shaped HTTP/2 + TLS server
# (pushlab-bench-push-server: answers POST /v1/projects/<p>/messages:send with 200 {"name": …}
# and POST /token with an access token); each round, two clients send the same 50,000 messages
# (every run is written to the results file; the table shows medians, ratios of medians):
#   1. pushlab send fcm --tokens (one HTTP/2 connection, 200 in flight: its default)
#   2. Python firebase-admin messaging.send_each, 500 messages per call (its maximum)
#
# Pointing firebase-admin at the local endpoint: the service-account copy's token_uri names the
# local /token route (google-auth honours it), messaging._MessagingService.FCM_URL is replaced
# before the app is initialised, and REQUESTS_CA_BUNDLE makes requests trust certs/ca.pem.
# Small check: COUNT=2000 ROUNDS=1 benchmarks/fcm-send.sh
set -euo pipefail
export PUSHLAB_BENCH=1  # the pushlab-bench-* drivers exist only then (Package.swift)
cd "$(dirname "$0")/.."
COUNT=${COUNT:-50000}
CONCURRENCY=${CONCURRENCY:-200}
ROUNDS=${ROUNDS:-3}
OUT=benchmarks/results/fcm-send.md
# WORK, PUSHLAB, PY; the push server at $URL; stop_server.
source benchmarks/lib/push-server.sh
# record, median, ratio, machine_lines, raw_table (every run kept).
source benchmarks/lib/runs.sh

$PY benchmarks/lib/fcm-inputs.py "$URL" "$COUNT" "$WORK/sa.json" "$WORK/tokens.txt"
MESSAGE='{"message":{"notification":{"title":"Benchmark","body":"Hello from the benchmark"},"data":{"k":"v"}}}'
printf '%s' "$MESSAGE" >"$WORK/message.json"

# The firebase-admin client (2. below).
cat >"$WORK/fa_bench.py" <<'PYEOF'
import sys, time
import firebase_admin
from firebase_admin import credentials, messaging

url, sa, tokens_file = sys.argv[1], sys.argv[2], sys.argv[3]
messaging._MessagingService.FCM_URL = url + "/v1/projects/{0}/messages:send"
app = firebase_admin.initialize_app(credentials.Certificate(sa))
tokens = [l.strip() for l in open(tokens_file) if l.strip()]
ok = 0
start = time.perf_counter()
for i in range(0, len(tokens), 500):
    batch = [messaging.Message(token=t, notification=messaging.Notification(title="Benchmark", body="Hello from the benchmark"),
                               data={"k": "v"}) for t in tokens[i:i + 500]]
    ok += messaging.send_each(batch).success_count
elapsed = time.perf_counter() - start
print(ok, len(tokens), round(elapsed, 3), round(len(tokens) / elapsed))
PYEOF
for ROUND in $(seq "$ROUNDS"); do
  echo "fcm-send.sh: round $ROUND/$ROUNDS"
  # 1. pushlab
  PUSHLAB_CMD="pushlab send fcm --url $URL --ca-file certs/ca.pem --service-account sa.json --tokens tokens.txt --concurrency $CONCURRENCY --connections 1 --no-history --json message.json"
  $PUSHLAB send fcm --url "$URL" --ca-file certs/ca.pem --service-account "$WORK/sa.json" --tokens "$WORK/tokens.txt" \
    --concurrency "$CONCURRENCY" --connections 1 --no-history --json "$WORK/message.json" >"$WORK/pushlab.json"
  read -r PL_OK PL_TOTAL PL_SECS PL_RATE < <($PY -c "
import json; d=json.load(open('$WORK/pushlab.json')); print(d['accepted'], d['total'], d['elapsedSeconds'], d['perSecond'])")

  # 2. firebase-admin send_each
  read -r FA_OK FA_TOTAL FA_SECS FA_RATE < <(REQUESTS_CA_BUNDLE="$PWD/certs/ca.pem" $PY "$WORK/fa_bench.py" "$URL" "$WORK/sa.json" "$WORK/tokens.txt")
  record "pushlab messages/s" "$PL_RATE"
  record "firebase-admin messages/s" "$FA_RATE"
  record "pushlab accepted" "$PL_OK"
  record "firebase-admin accepted" "$FA_OK"
done

stop_server
SERVED=$(cat "$WORK/server.err")
PL_MED=$(median "pushlab messages/s")
FA_MED=$(median "firebase-admin messages/s")
RATIO=$(ratio "$PL_MED" "$FA_MED")

cat >"$OUT" <<EOF
# FCM send: pushlab vs firebase-admin send_each

$(machine_lines)
- $ROUNDS interleaved rounds of $COUNT messages per client; the table shows medians, the ratio is of medians; every run is listed below.
- versions: $($PUSHLAB --version), $(swift --version 2>/dev/null | head -1), $(curl --version | head -1 | cut -d' ' -f1-3), Python $($PY -c 'import sys; print(sys.version.split()[0])'), firebase-admin $($PY -c 'import importlib.metadata as m; print(m.version("firebase-admin"))')

Server: \`pushlab-bench-push-server\` (PushHTTP's nghttp2 + libevent + OpenSSL server, TLS; h2 via
ALPN, HTTP/1.1 for clients that do not offer h2) on 127.0.0.1, answering
\`POST /v1/projects/pushlab-dev/messages:send\` with 200 \`{"name": …}\` and \`POST /token\` with an
access token. Both clients sent the same $COUNT messages (notification title/body + one data
key, one registration token each) in every round.

| client | messages per run | messages/s (median) | pushlab ÷ client |
| --- | ---: | ---: | ---: |
| pushlab send fcm (HTTP/2, 1 connection, $CONCURRENCY in flight) | $COUNT | $PL_MED | 1.00 |
| firebase-admin send_each (500 per call, its thread pool, HTTP/1.1 via requests) | $COUNT | $FA_MED | **$RATIO** |

Target: ≥ 5× firebase-admin → measured **${RATIO}×**.

Server counts after the run: \`$SERVED\`.

## Every run

$(raw_table)

## Commands
\`\`\`
$PUSHLAB_CMD
REQUESTS_CA_BUNDLE=certs/ca.pem $PY fa_bench.py <url> sa.json tokens.txt   # script body in benchmarks/fcm-send.sh
\`\`\`
firebase-admin is pointed at the local endpoint by replacing
\`messaging._MessagingService.FCM_URL\` before \`initialize_app\`, a service-account copy whose
\`token_uri\` is the local \`/token\`, and \`REQUESTS_CA_BUNDLE=certs/ca.pem\`.
EOF
cat "$OUT"
