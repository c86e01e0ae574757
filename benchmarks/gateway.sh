#!/usr/bin/env bash
# Gateway emulator throughput (issues 6, 40): h2load with a valid ES256 provider token against the
# APNs route of `pushlab serve` (every check runs: headers, JWT cached per connection and token,
# topic, device, payload, record), against pushlab's raw server in the same process (`--bench`:
# POST /bench answers an empty 200, no checks) and against nghttpd serving an empty file — the
# same h2load command for all three, interleaved rounds, TLS and h2c. The FCM messages:send
# route (OAuth bearer check, JSON, FCM rules, record) the same way with its own command. Then
# Python aioapns sending 20,000 notifications through the gateway (the peer the APNs sender must
# beat). Writes benchmarks/results/gateway.md.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-200000}
CLIENTS=${CLIENTS:-4}
STREAMS=${STREAMS:-100}
ROUNDS=${ROUNDS:-3}
AIOAPNS_N=${AIOAPNS_N:-20000}
THREADS=${THREADS:-$(nproc)}   # event loops of the gateway = worker threads of nghttpd
OUT=benchmarks/results/gateway.md
BIN=${BIN:-.build/release/pushlab}
PY=.venv/bin/python
[ -n "${SKIP_BUILD:-}" ] || swift build -c release --product pushlab >/dev/null  # SKIP_BUILD=1 reuses the current release binary
source benchmarks/lib/scratch.sh TMP

source benchmarks/lib/listening.sh
UPTIME_START=$(uptime)

printf '%s' '{"aps":{"alert":{"title":"Benchmark","body":"A two-hundred-byte push body for the gateway benchmark run."},"sound":"default","badge":1},"CIO":{"push":{"link":"app://x"}}}' >"$TMP/body.json"
BODY_BYTES=$(wc -c <"$TMP/body.json")
TOKEN=$(printf 'ab%.0s' $(seq 32))

start_gateway() {  # loops log → sets GW_PID, GW_TLS, GW_H2C (APNs host), G_TLS, G_H2C (Google host: FCM, /bench)
  "$BIN" serve --event-loops "$1" --port 0 --h2c-port 0 --apns-port 0 --apns-h2c-port 0 --quiet --bench >"$TMP/$2" 2>&1 &
  GW_PID=$!; PIDS+=($GW_PID)
  for _ in $(seq 100); do grep -q '^quick start' "$TMP/$2" && break; sleep 0.05; done
  GW_TLS=$(sed -n 's|^APNs: https://127.0.0.1:\([0-9]*\).*|\1|p' "$TMP/$2")
  GW_H2C=$(sed -n 's|^APNs: http://127.0.0.1:\([0-9]*\).*|\1|p' "$TMP/$2")
  G_TLS=$(sed -n 's|^https://127.0.0.1:\([0-9]*\).*|\1|p' "$TMP/$2")
  G_H2C=$(sed -n 's|^http://127.0.0.1:\([0-9]*\).*|\1|p' "$TMP/$2")
}
start_gateway 1 serve1.log
GW1_PID=$GW_PID GW1_H2C=$GW_H2C G1_H2C=$G_H2C
start_gateway "$THREADS" serve.log
mkdir -p "$TMP/docroot" && : >"$TMP/docroot/empty"
nghttpd -n "$THREADS" --no-tls 0 -d "$TMP/docroot" >/dev/null 2>&1 &
NG_H2C_PID=$!; PIDS+=($!); NG_H2C=$(port_of $!)
nghttpd -n "$THREADS" 0 certs/server.key certs/server.pem -d "$TMP/docroot" >/dev/null 2>&1 &
NG_TLS_PID=$!; PIDS+=($!); NG_TLS=$(port_of $!)
# nghttpd on one worker too: with the client on the same two cores, more workers need not be
# faster; the gateway is compared with whichever nghttpd setting was faster.
nghttpd --no-tls 0 -d "$TMP/docroot" >/dev/null 2>&1 &
NG1_H2C_PID=$!; PIDS+=($!); NG1_H2C=$(port_of $!)
nghttpd 0 certs/server.key certs/server.pem -d "$TMP/docroot" >/dev/null 2>&1 &
NG1_TLS_PID=$!; PIDS+=($!); NG1_TLS=$(port_of $!)

# A provider token from the dev key, minted by PyJWT (independent of pushlab's signer).
JWT=$("$PY" - <<'PY'
import time, jwt
key = open("certs/AuthKey_PLDEVKEY01.p8").read()
print(jwt.encode({"iss": "PLDEVTEAM1", "iat": int(time.time())}, key, algorithm="ES256", headers={"kid": "PLDEVKEY01"}))
PY
)

# An OAuth access token for the FCM route, from the gateway's own POST /token with an RS256
# assertion for the dev service account minted by PyJWT.
ACCESS_TOKEN=$("$PY" - "http://127.0.0.1:$G_H2C/token" <<'PY'
import json, sys, time, urllib.parse, urllib.request, jwt
url = sys.argv[1]
sa = json.load(open("certs/fcm-service-account.json"))
now = int(time.time())
assertion = jwt.encode({"iss": sa["client_email"], "scope": "https://www.googleapis.com/auth/firebase.messaging",
                        "aud": url, "iat": now, "exp": now + 3600}, sa["private_key"], algorithm="RS256",
                       headers={"kid": sa["private_key_id"]})
form = urllib.parse.urlencode({"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer", "assertion": assertion}).encode()
print(json.load(urllib.request.urlopen(url, form))["access_token"])
PY
)
printf '%s' '{"message":{"token":"bench000001:APA91bXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-Q","notification":{"title":"Benchmark","body":"Hello from the benchmark"},"data":{"k":"v"}}}' >"$TMP/fcm.json"
FCM_BYTES=$(wc -c <"$TMP/fcm.json")

load() {  # pid url body extra-args… → "req/s succeeded failed 2xx cpu-µs/request client-cpu-µs/request"
  local pid=$1 url=$2 body=$3; shift 3
  local before after client
  before=$(cpu_ticks "$pid")
  # h2load's own user+system time too: on a machine where it shares the cores with the server,
  # req/s follows client + server CPU, and the client's share depends on the answers it decodes.
  { TIMEFORMAT='%U %S'; time h2load -n "$N" -c "$CLIENTS" -m "$STREAMS" -d "$body" "$@" "$url" >"$TMP/h2load.out" 2>&1; } 2>"$TMP/h2load.time"
  after=$(cpu_ticks "$pid")
  client=$(awk -v n="$N" '{ printf "%.2f", ($1 + $2) * 1e6 / n }' "$TMP/h2load.time")
  awk -v ticks=$((after - before)) -v tick_us="$TICK_US" -v n="$N" -v client="$client" '
       /^finished in/ { gsub(",", "", $4); rps = $4 }
       /^requests:/ { ok = $8; failed = $10 }
       /^status codes:/ { xx = $3 }
       END { printf "%s %s %s %s %.2f %s\n", rps, ok, failed, xx, ticks * tick_us / n, client }' "$TMP/h2load.out"
}
APNS_HEADERS=(-H "authorization: bearer $JWT" -H "apns-topic: io.pushlab.demo" -H "apns-push-type: alert")
FCM_HEADERS=(-H "authorization: Bearer $ACCESS_TOKEN" -H "content-type: application/json")
# name|pid|url|command (apns: the APNs body and headers; fcm: the FCM body and headers)
TARGETS=("nghttpd TLS|$NG_TLS_PID|https://127.0.0.1:$NG_TLS/empty|apns"
         "nghttpd TLS, 1 worker|$NG1_TLS_PID|https://127.0.0.1:$NG1_TLS/empty|apns"
         "raw server TLS|$GW_PID|https://127.0.0.1:$G_TLS/bench|apns"
         "gateway APNs TLS|$GW_PID|https://127.0.0.1:$GW_TLS/3/device/$TOKEN|apns"
         "nghttpd h2c|$NG_H2C_PID|http://127.0.0.1:$NG_H2C/empty|apns"
         "nghttpd h2c, 1 worker|$NG1_H2C_PID|http://127.0.0.1:$NG1_H2C/empty|apns"
         "raw server h2c|$GW_PID|http://127.0.0.1:$G_H2C/bench|apns"
         "gateway APNs h2c|$GW_PID|http://127.0.0.1:$GW_H2C/3/device/$TOKEN|apns"
         "raw server h2c, 1 loop|$GW1_PID|http://127.0.0.1:$G1_H2C/bench|apns"
         "gateway APNs h2c, 1 loop|$GW1_PID|http://127.0.0.1:$GW1_H2C/3/device/$TOKEN|apns"
         "nghttpd h2c (FCM command)|$NG_H2C_PID|http://127.0.0.1:$NG_H2C/empty|fcm"
         "nghttpd h2c, 1 worker (FCM command)|$NG1_H2C_PID|http://127.0.0.1:$NG1_H2C/empty|fcm"
         "raw server h2c (FCM command)|$GW_PID|http://127.0.0.1:$G_H2C/bench|fcm"
         "gateway FCM h2c|$GW_PID|http://127.0.0.1:$G_H2C/v1/projects/pushlab-dev/messages:send|fcm")
declare -A RPS CPU CLIENT_CPU
rows=""
for round in $(seq "$ROUNDS"); do
  for target in "${TARGETS[@]}"; do
    IFS='|' read -r name pid url command <<<"$target"
    echo "gateway.sh: round $round, $name" >&2
    # The same h2load command for every server, headers included: h2load's HPACK never indexes
    # `authorization`, so each request carries the ~200-byte token as a literal that the
    # server must decode, whether it reads it or not (nghttpd ignores it).
    if [ "$command" = fcm ]; then
      r=$(load "$pid" "$url" "$TMP/fcm.json" "${FCM_HEADERS[@]}")
    else
      r=$(load "$pid" "$url" "$TMP/body.json" "${APNS_HEADERS[@]}")
    fi
    read -r rps ok failed xx cpu client <<<"$r"
    # APNs's rule (docs/specs/apns.md): one stream per connection until the first authenticated
    # answer. h2load opens its STREAMS streams before the server's SETTINGS arrive, so on a
    # connection that loses the race the other STREAMS-1 are refused (REFUSED_STREAM) — whole
    # connections' worth, at most CLIENTS of them. Anything else is unexpected.
    refused=$(( failed / (STREAMS - 1) )); [ "$refused" -gt "$CLIENTS" ] && refused=$CLIENTS
    unexpected=$(( failed - refused * (STREAMS - 1) ))
    UNEXPECTED_TOTAL=$(( ${UNEXPECTED_TOTAL:-0} + unexpected ))
    RPS[$name]+="$rps "; CPU[$name]+="$cpu "; CLIENT_CPU[$name]+="$client "
    rows+="| $round | $name | $rps | $ok | $failed | $refused | $unexpected | $xx | $cpu | $client |"$'\n'
  done
done
# The true median: the middle value, or the mean of the two middle ones for an even count.
median() { tr ' ' '\n' <<<"$1" | grep -v '^$' | sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# aioapns's rate moves a lot between runs: while its one connection is "busy", every waiting
# coroutine polls every 10 ms (aioapns/connection.py), so the run time depends on how many end
# up polling. Three runs, the median reported.
AIO_RUNS=${AIO_RUNS:-3}
AIO_RATES=""
AIO_ALL=""
for run in $(seq "$AIO_RUNS"); do
  echo "gateway.sh: aioapns run $run, $AIOAPNS_N notifications" >&2
  AIO=$("$PY" Tests/PushGatewayTests/Peers/aioapns_send.py localhost "$GW_TLS" certs/ca.pem certs/AuthKey_PLDEVKEY01.p8 \
        PLDEVKEY01 PLDEVTEAM1 io.pushlab.demo "$TOKEN" "$AIOAPNS_N" 2>/dev/null)
  AIO_OK=$("$PY" -c 'import json,sys; d=json.loads(sys.argv[1]); print(d["ok"])' "$AIO")
  AIO_S=$("$PY" -c 'import json,sys; d=json.loads(sys.argv[1]); print("%.2f" % d["seconds"])' "$AIO")
  rate=$(awk -v n="$AIO_OK" -v s="$AIO_S" 'BEGIN { printf "%.0f", n / s }')
  AIO_RATES+="$rate "
  AIO_ALL+="${AIO_ALL:+, }$AIO_OK accepted in $AIO_S s ($rate/s)"
done
AIO_RATE=$(median "$AIO_RATES")
RSS=$(awk '/VmHWM/ { print $2 " " $3 }' /proc/$GW_PID/status)

# Where the one-loop gateway's CPU goes: perf samples of the whole process (loop thread and
# record writer) during one more h2c load, as shares of the samples ("children": a frame and
# everything it calls). Skipped when perf is missing or not permitted.
PROFILE=""
if command -v perf >/dev/null && perf record -o "$TMP/probe.data" -- true >/dev/null 2>&1; then
  echo "gateway.sh: profile (perf, one loop, h2c)" >&2
  perf record -F 1999 -g --call-graph dwarf,16384 -p "$GW1_PID" -o "$TMP/perf.data" >/dev/null 2>&1 & PERF_PID=$!
  sleep 0.5
  h2load -n $((N / 2)) -c "$CLIENTS" -m "$STREAMS" -d "$TMP/body.json" "${APNS_HEADERS[@]}" "http://127.0.0.1:$GW1_H2C/3/device/$TOKEN" >/dev/null
  kill -INT $PERF_PID; wait $PERF_PID 2>/dev/null || true
  PROFILE=$(perf report -i "$TMP/perf.data" --children --sort symbol -g none --stdio 2>/dev/null | swift demangle --simplified |
    awk '/^ +[0-9.]+%/ { share = $1; $1 = ""; $2 = ""; $3 = ""; sub(/^ +/, ""); print share "\t" $0 }' |
    awk -F'\t' '
      function pick(label, pattern) { if (!(label in seen) && $2 ~ pattern) { seen[label] = $1; order[++n] = label } }
      { pick("HTTP/2 input (nghttp2 + request assembly)", "^HTTP2Session.receive")
        pick("request dispatch (router + handler)", "^RequestDispatcher.dispatch")
        pick("APNs route: all checks, record, answer", "^APNsRoute.handle")
        pick("APNs route › header rules (APNsRequestRules)", "^(specialized )?static APNsRequestRules.firstViolation")
        pick("APNs route › headers read into APNsRequest", "^(specialized )?APNsRequest.add\\(wireField")
        pick("APNs route › provider token (cached per connection)", "^APNsAuthorizer.authorize")
        pick("APNs route › payload skim (JSON object? CIO-Delivery-ID)", "^(specialized )?static JSONObjectSkimmer.skim")
        pick("dispatch › router match", "^Router.match")
        pick("HTTP/2 output (frames + writev)", "^ServerConnection.finishEvent")
        pick("APNs route › record (packed into the ring)", "^PushRecordStore.add")
        pick("record writer thread", "^PushRecordStore.writeLoop")
        pick("malloc, all callers", "^__GI___libc_malloc") }
      END { for (i = 1; i <= n; i++) printf "| %s | %s |\n", order[i], seen[order[i]] }')
fi

{
  echo "# Gateway emulator benchmark"
  echo
  echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "- uptime at start: $UPTIME_START; at the end: $(uptime)"
  echo "- machine: $(nproc) cores, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), $(free -g | awk '/Mem:/ { print $2 }') GiB RAM, shared with other work"
  echo "- tools: $(h2load --version | head -1), nghttpd $(nghttpd --version | head -1 | awk '{ print $2 }'), aioapns $("$PY" -c 'import importlib.metadata as m; print(m.version("aioapns"))')"
  echo "- gateway: \`$BIN serve --event-loops $THREADS --port 0 --h2c-port 0 --apns-port 0 --apns-h2c-port 0 --quiet --bench\` (quick start, records in memory; \`--bench\` adds the raw server's POST /bench on the Google host), and the same with \`--event-loops 1\` for the last row; nghttpd: \`nghttpd -n $THREADS\` (the same number of threads) and \`nghttpd\` (1 worker)"
  echo "- load: \`h2load -n $N -c $CLIENTS -m $STREAMS -d body.json\` ($BODY_BYTES-byte APNs alert body, POST); every request carries \`authorization: bearer <ES256 JWT from PyJWT>\`, \`apns-topic\`, \`apns-push-type\` (the same command for every server, only the URL differs: the gateway's \`/3/device/<64 hex>\`, the raw server's \`/bench\`, nghttpd's empty file \`/empty\`, whose answers ignore the headers). The FCM rows: \`h2load … -d fcm.json\` ($FCM_BYTES-byte messages:send body: registration token, notification, data) with \`authorization: Bearer <access token from the gateway's POST /token>\` and \`content-type: application/json\`, against \`/v1/projects/pushlab-dev/messages:send\`, \`/bench\` and \`/empty\`. $ROUNDS interleaved rounds; h2load and the servers share the 2 cores with whatever else runs."
  echo "- cpu µs/request: the server process's own user+system time divided by the requests (from /proc/PID/stat), which shared load does not inflate the way it does req/s. h2load cpu µs/request: the client's own user+system time (bash \`time\`) per request — with client and server on the same cores, req/s follows the sum, and the client's part grows with what it must decode in each answer."
  echo
  echo "- failed: h2load's count. For the gateway these are APNs's start-of-connection rule, not faults: a connection allows one stream until its first authenticated answer (docs/specs/apns.md), and h2load opens its $STREAMS streams before the server's SETTINGS arrive, so a connection that loses that race has $((STREAMS - 1)) streams refused. \"refused at start\" counts such connections (failed ÷ $((STREAMS - 1)), at most $CLIENTS); \"unexpected\" is what that leaves, and must be 0."
  echo
  echo "| round | server | req/s | succeeded | failed | refused-at-start connections | unexpected failures | 2xx | server cpu µs/request | h2load cpu µs/request |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  printf '%s' "$rows"
  echo
  echo "Unexpected failures over every run: ${UNEXPECTED_TOTAL:-0}."
  echo
  echo "## Medians and ratios"
  echo
  echo "| route, transport | nghttpd req/s (faster setting) | gateway req/s | gateway / nghttpd (req/s) | raw server req/s | gateway / raw (req/s) | nghttpd cpu µs/req | gateway cpu µs/req | raw server cpu µs/req | gateway / raw (cpu) | h2load cpu µs/req: nghttpd, gateway, raw |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
  row() {  # label nghttpd-name gateway-target raw-target
    local best="$2"
    local single="${2% (FCM command)}, 1 worker${2#"${2% (FCM command)}"}"
    if awk -v a="$(median "${RPS[$single]}")" -v b="$(median "${RPS[$2]}")" 'BEGIN { exit !(a > b) }'; then
      best="$single"
    fi
    local a b c d e f
    a=$(median "${RPS[$best]}"); b=$(median "${RPS[$3]}"); c=$(median "${CPU[$best]}"); d=$(median "${CPU[$3]}"); e=$(median "${CPU[$4]}")
    f=$(median "${RPS[$4]}")
    echo "| $1 ($best) | $a | $b | **$(ratio "$b" "$a")** | $f | $(ratio "$b" "$f") | $c | $d | $e | **$(ratio "$d" "$e")** | $(median "${CLIENT_CPU[$best]}"), $(median "${CLIENT_CPU[$3]}"), $(median "${CLIENT_CPU[$4]}") |"
  }
  row "APNs, TLS, gateway on $THREADS loops" "nghttpd TLS" "gateway APNs TLS" "raw server TLS"
  row "APNs, h2c, gateway on $THREADS loops" "nghttpd h2c" "gateway APNs h2c" "raw server h2c"
  row "APNs, h2c, gateway on 1 loop" "nghttpd h2c" "gateway APNs h2c, 1 loop" "raw server h2c, 1 loop"
  row "FCM messages:send, h2c, gateway on $THREADS loops" "nghttpd h2c (FCM command)" "gateway FCM h2c" "raw server h2c (FCM command)"
  echo
  echo "nghttpd is compared in whichever setting (its default 1 worker, or -n $THREADS) was faster. The raw server is the same gateway process's Google host answering POST /bench with an empty 200 from the event loop (\`--bench\`): the HTTP/2 stack with no route work, under the same h2load command."
  echo
  echo "Targets (issue 40): APNs route, TLS and h2c, $THREADS loops: ≥ 1.0× nghttpd's requests/s and CPU per request ≤ 2× the raw server's; FCM route ≥ 0.8× nghttpd's requests/s. (Issue 6 asked ≥ 0.5×.)"
  echo
  echo "## aioapns through the gateway"
  echo
  echo "\`Tests/PushGatewayTests/Peers/aioapns_send.py\` (aioapns, default settings but max_connections=1, pointed at the gateway), $AIOAPNS_N notifications per run, $AIO_RUNS runs: $AIO_ALL; median **$AIO_RATE notifications/s**. This is the rate the APNs sender is compared with. (Between runs aioapns varies a lot: while its one connection is busy, each waiting coroutine polls every 10 ms.)"
  echo
  echo "Gateway peak RSS over the whole run: $RSS."
  if [ -n "$PROFILE" ]; then
    echo
    echo "## Where the gateway's time goes (one loop, h2c, perf)"
    echo
    echo "\`perf record -F 1999 -g --call-graph dwarf\` on the one-loop gateway during \`h2load -n $((N / 2))\` more requests; share of all samples of the process spent in each frame and what it calls (so nested rows overlap their parent)."
    echo
    echo "| frame | share of samples |"
    echo "|---|---:|"
    printf '%s\n' "$PROFILE"
  fi
} >"$OUT"
cat "$OUT"
