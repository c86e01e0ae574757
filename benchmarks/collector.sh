#!/usr/bin/env bash
# Metrics collector throughput (issue 40): h2load POSTing the SDK's bodies to `pushlab collector`
# over h2c, compared in the same run, with the same h2load command (body and headers), with
# nghttpd serving an empty file and with the collector process's own raw server (`--bench`:
# POST /bench answers an empty 200, no route work). Three commands:
#   track  — the NSE's `delivered` call to /v1/track (docs/specs/device-side.md §3);
#   tap    — /v1/b as the host app's pipeline sends it after a tap: the `opened` metric between
#            two other app events, each with the CDP context (app, device, library, os …);
#   b20    — /v1/b with 20 `opened` metrics (the worst case: 20 rows per request; committed only).
# Both acknowledgement modes (--ack committed, the default: answered after the commit; --ack
# queued). For every run: req/s, server CPU µs per request (user+system from /proc/PID/stat,
# which shared load does not inflate the way it does req/s). After each round the SQLite files
# are counted: every 2xx must be stored (requests and metrics rows). ROUNDS interleaved rounds
# (default 3), medians; every run is in the results file. Then a perf profile of the collector
# (committed, /v1/track) when perf is allowed. Writes benchmarks/results/collector.md.
# Small check: N=2000 ROUNDS=1 benchmarks/collector.sh; after a release build: SKIP_BUILD=1.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-100000}
N_B20=${N_B20:-$((N / 5))}
CLIENTS=${CLIENTS:-4}
STREAMS=${STREAMS:-50}
ROUNDS=${ROUNDS:-3}
PROFILE=${PROFILE:-1}
OUT=${OUT:-benchmarks/results/collector.md}
BIN=${BIN:-.build/release/pushlab}
[ -n "${SKIP_BUILD:-}" ] || swift build -c release --product pushlab >/dev/null  # SKIP_BUILD=1 reuses the current release binary
for tool in h2load nghttpd sqlite3; do
  command -v $tool >/dev/null || { echo "collector.sh: $tool missing (scripts/bootstrap installs nghttp2-client, nghttp2-server, sqlite3)" >&2; exit 1; }
done
TMP=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$TMP"; }
trap cleanup EXIT
source benchmarks/lib/runs.sh       # record, median, ratio, machine_lines, raw_table
source benchmarks/lib/listening.sh  # port_of, cpu_ticks, TICK_US
UPTIME_START=$(uptime)

AUTH="authorization: Basic $(printf 'k1:' | base64)"
NSE_UA="user-agent: Customer.io NSE Client/4.7.5 (iPhone15,2; iOS 18.1) io.pushlab.demo/2.4.1"
printf '%s' '{"anonymousId":"RPILAgUBcRhIBqSfeiIwdIYJKxTY","event":"Report Delivery Event","properties":{"recipient":"dtok-9f8e7d6c5b4a","metric":"delivered","deliveryId":"RPILAgUBcRhIBqSfeiIwdIYJKxTY"}}' >"$TMP/track.json"
python3 - "$TMP" <<'PY'
import json, sys
d = sys.argv[1]
ctx = {"app": {"name": "Pushlab Demo", "version": "2.4.1", "build": "241", "namespace": "io.pushlab.demo"},
       "device": {"manufacturer": "Apple", "model": "iPhone15,2", "type": "ios", "id": "5B2E1C0A-7F3D-4E8B-9A61-2C4D5E6F7A8B"},
       "library": {"name": "customerio-ios", "version": "4.7.5"},
       "os": {"name": "iOS", "version": "18.1"}, "screen": {"width": 393, "height": 852},
       "network": {"wifi": True, "cellular": False}, "locale": "en-US", "timezone": "Europe/Berlin"}
base = {"anonymousId": "3D9A1F2E-0B4C-4D6E-8F10-2A3B4C5D6E7F", "userId": "user-48213", "context": ctx, "integrations": {}}
tap = [
    dict(base, type="track", event="Application Opened", properties={"from_background": True, "version": "2.4.1", "build": "241"},
         timestamp="2026-04-02T10:46:07.912Z", messageId="8C1D2E3F-4A5B-4C6D-8E7F-9A0B1C2D3E4F"),
    dict(base, type="track", event="Report Delivery Event",
         properties={"metric": "opened", "deliveryId": "RPILAgUBcRhIBqSfeiIwdIYJKxTY", "recipient": "dtok-9f8e7d6c5b4a"},
         timestamp="2026-04-02T10:46:08.123Z", messageId="1A2B3C4D-5E6F-4708-9A1B-2C3D4E5F6A7B"),
    dict(base, type="screen", name="Order Details", properties={"order_id": "A-10492"},
         timestamp="2026-04-02T10:46:08.377Z", messageId="9F8E7D6C-5B4A-4392-8170-6F5E4D3C2B1A"),
]
json.dump({"batch": tap, "sentAt": "2026-04-02T10:46:09.001Z", "writeKey": "k1"}, open(f"{d}/tap.json", "w"), separators=(",", ":"))
b20 = [{"type": "track", "event": "Report Delivery Event",
        "properties": {"metric": "opened", "deliveryId": f"del-{i:04d}", "recipient": f"dtok-{i:04d}"},
        "anonymousId": "anon-1", "userId": "user-1", "timestamp": "2026-04-02T10:46:08.123Z", "messageId": f"m-{i}"}
       for i in range(20)]
json.dump({"batch": b20, "sentAt": "2026-04-02T10:46:09.000Z", "writeKey": "k1"}, open(f"{d}/b20.json", "w"), separators=(",", ":"))
PY
declare -A BODY=([track]="$TMP/track.json" [tap]="$TMP/tap.json" [b20]="$TMP/b20.json")
declare -A ROUTE=([track]=/v1/track [tap]=/v1/b [b20]=/v1/b)
declare -A PER=([track]=1 [tap]=1 [b20]=20)     # metrics per request
declare -A COUNT=([track]=$N [tap]=$N [b20]=$N_B20)

# nghttpd with an empty file: its default single worker and one worker per core; each command is
# compared with whichever was faster in the run.
mkdir -p "$TMP/docroot" && : >"$TMP/docroot/empty"
nghttpd --no-tls 0 -d "$TMP/docroot" >/dev/null 2>&1 &
NG1_PID=$!; PIDS+=($!); NG1=$(port_of $!)
nghttpd -n "$(nproc)" --no-tls 0 -d "$TMP/docroot" >/dev/null 2>&1 &
NGN_PID=$!; PIDS+=($!); NGN=$(port_of $!)

# start_collector LOG ACK DB → sets C_PID, C_PORT (cleartext).
start_collector() {
  : >"$TMP/$1"  # before the fork: the log is reused each round
  "$BIN" collector --port off --h2c-port 0 --db "$3" --cdp-key k1 --quiet --ack "$2" --bench >"$TMP/$1" 2>&1 &
  C_PID=$!; PIDS+=($!)
  for _ in $(seq 200); do
    C_PORT=$(sed -n 's|^http://127.0.0.1:\([0-9]*\).*|\1|p' "$TMP/$1" | head -1)
    [ -n "$C_PORT" ] && return
    sleep 0.05
  done
  echo "collector.sh: the collector did not start: $(cat "$TMP/$1")" >&2; exit 1
}
stop_pid() { kill -INT "$1"; wait "$1" 2>/dev/null || true; }

# load PID URL COMMAND → "req/s succeeded failed 2xx cpu-µs/request"; the same h2load command
# for every server of a COMMAND (body, content-type, authorization, the SDK's user-agent).
load() {
  local pid=$1 url=$2 cmd=$3 n=${COUNT[$3]} before after out
  before=$(cpu_ticks "$pid")
  out=$(h2load -n "$n" -c "$CLIENTS" -m "$STREAMS" -d "${BODY[$cmd]}" -H "content-type: application/json; charset=utf-8" \
        -H "$AUTH" -H "$NSE_UA" "$url")
  after=$(cpu_ticks "$pid")
  awk -v ticks=$((after - before)) -v tick_us="$TICK_US" -v n="$n" '
       /^finished in/ { gsub(",", "", $4); rps = $4 }
       /^requests:/ { ok = $8; failed = $10 }
       /^status codes:/ { xx = $3 }
       END { printf "%s %s %s %s %.2f\n", rps, ok, failed, xx, ticks * tick_us / n }' <<<"$out"
}
# run NAME PID URL COMMAND — one measured run, recorded; sets XX (its 2xx count).
run() {
  local name=$1 r rps ok failed cpu
  echo "collector.sh: round $ROUND/$ROUNDS: $name" >&2
  r=$(load "$2" "$3" "$4")
  read -r rps ok failed XX cpu <<<"$r"
  record "$name req/s" "$rps"; record "$name cpu µs/req" "$cpu"; record "$name failed" "$failed"; record "$name 2xx" "$XX"
  FAILED_TOTAL=$(( ${FAILED_TOTAL:-0} + failed ))
}
rows() { sqlite3 "$1" "$2"; }

STORED=yes
CMDS=(track tap b20)
for ROUND in $(seq "$ROUNDS"); do
  start_collector committed.log committed "$TMP/committed-$ROUND.sqlite"; CC_PID=$C_PID CC_PORT=$C_PORT
  start_collector queued.log queued "$TMP/queued-$ROUND.sqlite"; CQ_PID=$C_PID CQ_PORT=$C_PORT
  declare -A EXPECT_METRICS=() EXPECT_REQUESTS=([committed]=0 [queued]=0)
  for cmd in "${CMDS[@]}"; do
    run "nghttpd, 1 worker ($cmd)" "$NG1_PID" "http://127.0.0.1:$NG1/empty" "$cmd"
    run "nghttpd, $(nproc) workers ($cmd)" "$NGN_PID" "http://127.0.0.1:$NGN/empty" "$cmd"
    run "raw server ($cmd)" "$CC_PID" "http://127.0.0.1:$CC_PORT/bench" "$cmd"
    run "collector committed ($cmd)" "$CC_PID" "http://127.0.0.1:$CC_PORT${ROUTE[$cmd]}" "$cmd"
    EXPECT_METRICS[committed ${ROUTE[$cmd]}]=$(( ${EXPECT_METRICS[committed ${ROUTE[$cmd]}]:-0} + XX * PER[$cmd] ))
    EXPECT_REQUESTS[committed]=$(( EXPECT_REQUESTS[committed] + XX ))
    [ "$cmd" = b20 ] && continue
    run "collector queued ($cmd)" "$CQ_PID" "http://127.0.0.1:$CQ_PORT${ROUTE[$cmd]}" "$cmd"
    EXPECT_METRICS[queued ${ROUTE[$cmd]}]=$(( ${EXPECT_METRICS[queued ${ROUTE[$cmd]}]:-0} + XX * PER[$cmd] ))
    EXPECT_REQUESTS[queued]=$(( EXPECT_REQUESTS[queued] + XX ))
  done
  stop_pid "$CC_PID"; stop_pid "$CQ_PID"
  for ack in committed queued; do
    db="$TMP/$ack-$ROUND.sqlite"
    got_requests=$(rows "$db" "SELECT COUNT(*) FROM metric_requests WHERE status = 200")
    record "$ack: 2xx answered" "${EXPECT_REQUESTS[$ack]}"; record "$ack: metric_requests rows (status 200)" "$got_requests"
    [ "$got_requests" = "${EXPECT_REQUESTS[$ack]}" ] || STORED="NO (round $ROUND, $ack requests)"
    for route in /v1/track /v1/b; do
      [ -n "${EXPECT_METRICS[$ack $route]:-}" ] || continue
      got=$(rows "$db" "SELECT COUNT(*) FROM metrics WHERE route = '$route'")
      record "$ack: $route metrics expected (2xx × metrics per body)" "${EXPECT_METRICS[$ack $route]}"; record "$ack: $route metrics rows" "$got"
      [ "$got" = "${EXPECT_METRICS[$ack $route]}" ] || STORED="NO (round $ROUND, $ack $route)"
    done
  done
done

# Where the collector's CPU goes: perf samples of the whole process (event loop, writer, pool)
# during one more committed /v1/track load, as shares of the samples ("children": a frame and
# everything it calls). Skipped when perf is missing or not permitted, or PROFILE=0.
PROFILE_ROWS=""
if [ "$PROFILE" = 1 ] && command -v perf >/dev/null && perf record -o "$TMP/probe.data" -- true >/dev/null 2>&1; then
  echo "collector.sh: profile (perf, --ack committed, /v1/track)" >&2
  # Started under perf, so every thread it ever runs (the SQLite writer's too) is sampled.
  : >"$TMP/profile.log"
  perf record -F 1999 -g --call-graph dwarf,16384 -o "$TMP/perf.data" -- \
    "$BIN" collector --port off --h2c-port 0 --db "$TMP/profile.sqlite" --cdp-key k1 --quiet --ack committed >"$TMP/profile.log" 2>&1 &
  PERF_PID=$!; PIDS+=($!)
  for _ in $(seq 400); do grep -q '^http://' "$TMP/profile.log" && break; sleep 0.05; done
  C_PORT=$(sed -n 's|^http://127.0.0.1:\([0-9]*\).*|\1|p' "$TMP/profile.log" | head -1)
  h2load -n $((N / 2)) -c "$CLIENTS" -m "$STREAMS" -d "$TMP/track.json" -H "content-type: application/json; charset=utf-8" \
    -H "$AUTH" -H "$NSE_UA" "http://127.0.0.1:$C_PORT/v1/track" >/dev/null
  kill -INT "$(pgrep -P "$PERF_PID" | head -1)"; wait "$PERF_PID" 2>/dev/null || true
  PROFILE_ROWS=$(perf report -i "$TMP/perf.data" --children --sort symbol -g none --stdio 2>/dev/null | swift demangle --simplified |
    awk '/^ +[0-9.]+%/ { share = $1; $1 = ""; $2 = ""; $3 = ""; sub(/^ +/, ""); print share "\t" $0 }' |
    awk -F'\t' '
      function pick(label, pattern) { if (!(label in seen) && $2 ~ pattern) { seen[label] = $1; order[++n] = label } }
      { pick("HTTP/2 input (nghttp2 + request assembly)", "^HTTP2Session.receive")
        pick("request dispatch (router + handler)", "^RequestDispatcher.dispatch")
        pick("collector handler (checks, hand-over to the writer)", "^MetricsCollector.handle")
        pick("collector › body checks (JSON)", "^(specialized )?static MetricRequestParser.parse")
        pick("collector › credentials", "^CollectorCredentials.check")
        pick("collector › hand-over (duplicate flags, queue)", "^MetricWriter.submit")
        pick("writer: one group commit", "MetricWriter.drain")
        pick("writer › SQLite inserts", "MetricStore.insert")
        pick("HTTP/2 output (frames + writev)", "^ServerConnection.finishEvent")
        pick("answer delivered back to the loop", "^ServerConnection.deliver")
        pick("SQLite: sqlite3_step, all callers", "^sqlite3_step$")
        pick("malloc, all callers", "^__GI___libc_malloc|^malloc$")
        pick("free, all callers", "^__GI___libc_free|^free$")
        pick("kernel: write/fsync of the SQLite WAL", "^__libc_pwrite|^pwrite64|^__GI___pwrite64") }
      END { for (i = 1; i <= n; i++) printf "| %s | %s |\n", order[i], seen[order[i]] }')
fi

# best_ngh COMMAND → the nghttpd setting with the higher median req/s for COMMAND.
best_ngh() {
  local a="nghttpd, 1 worker ($1)" b="nghttpd, $(nproc) workers ($1)"
  if awk -v x="$(median "$a req/s")" -v y="$(median "$b req/s")" 'BEGIN { exit !(x >= y) }'; then echo "$a"; else echo "$b"; fi
}
{
  echo "# Metrics collector throughput"
  echo
  machine_lines
  echo "- uptime at start: $UPTIME_START; at the end: $(uptime)"
  echo "- tools: $(swift --version 2>&1 | head -1), $(h2load --version | head -1), nghttpd $(nghttpd --version | head -1 | awk '{ print $2 }'), SQLite $(sqlite3 --version | cut -d' ' -f1)"
  echo "- load: \`h2load -n $N -c $CLIENTS -m $STREAMS -d BODY -H 'content-type: application/json; charset=utf-8' -H 'authorization: Basic base64(k1:)' -H 'user-agent: Customer.io NSE Client/4.7.5 (iPhone15,2; iOS 18.1) io.pushlab.demo/2.4.1' http://127.0.0.1:PORT/PATH\` over h2c (\`-n $N_B20\` for b20); the same command for every server of a body, only PATH differs: the collector's route, the raw server's \`/bench\`, nghttpd's empty file \`/empty\`"
  echo "- bodies: track = the NSE's \`delivered\` call ($(wc -c <"$TMP/track.json") bytes); tap = a \`/v1/b\` batch as the host app's pipeline sends it after a tap: Application Opened, the \`opened\` Report Delivery Event, a screen event, each with the CDP \`context\` ($(wc -c <"$TMP/tap.json") bytes, 1 metric); b20 = 20 \`opened\` metrics in one batch ($(wc -c <"$TMP/b20.json") bytes, the worst case: 20 rows per request)"
  echo "- collector: \`$BIN collector --port off --h2c-port 0 --db FILE --cdp-key k1 --quiet --ack committed|queued --bench\` (one event loop; \`--bench\` adds the raw server's POST /bench, an empty 200 from the event loop with no route work); nghttpd: \`nghttpd --no-tls 0 -d DOCROOT\` (1 worker) and \`nghttpd -n $(nproc) …\`, serving an empty file"
  echo "- $ROUNDS interleaved rounds; a fresh collector pair (committed, queued) and fresh SQLite files each round; values are medians, ratios are of medians; every run is under \"Every run\""
  echo "- cpu µs/request: the server process's user+system time over the run (from /proc/PID/stat), all threads (event loop, SQLite writer, task pool), divided by the requests"
  echo
  echo "| route, body, ack | nghttpd req/s (faster setting) | collector req/s | **collector ÷ nghttpd (req/s)** | nghttpd cpu µs/req | raw server cpu µs/req | collector cpu µs/req | **collector ÷ raw (cpu)** | metrics/s |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
  for cmd in "${CMDS[@]}"; do
    for ack in committed queued; do
      [ "$cmd" = b20 ] && [ "$ack" = queued ] && continue
      ng=$(best_ngh "$cmd"); c="collector $ack ($cmd)"
      a=$(median "$ng req/s"); b=$(median "$c req/s")
      echo "| ${ROUTE[$cmd]} $cmd, $ack | $a | $b | **$(ratio "$b" "$a")** | $(median "$ng cpu µs/req") | $(median "raw server ($cmd) cpu µs/req") | $(median "$c cpu µs/req") | **$(ratio "$(median "$c cpu µs/req")" "$(median "raw server ($cmd) cpu µs/req")")** | $(awk -v r="$b" -v k="${PER[$cmd]}" 'BEGIN { printf "%.0f", r * k }') |"
    done
  done
  echo
  echo "| raw server | req/s (median) | ÷ nghttpd |"
  echo "| --- | ---: | ---: |"
  for cmd in "${CMDS[@]}"; do
    ng=$(best_ngh "$cmd"); echo "| $cmd body | $(median "raw server ($cmd) req/s") | $(ratio "$(median "raw server ($cmd) req/s")" "$(median "$ng req/s")") |"
  done
  echo
  echo "Target (issue 40): the collector's \`/v1/track\` and \`/v1/b\` at ≥ 0.8× nghttpd's requests/s with realistic bodies (track, tap), every check on, acknowledged as documented (docs/metrics.md)."
  echo
  echo "Every 2xx stored in SQLite (metric_requests rows with status 200 = 2xx answered; metrics rows per route = 2xx × metrics per body; counted with sqlite3 after each round): **$STORED**. Failed requests over every run (h2load's count): ${FAILED_TOTAL:-0}."
  echo
  echo "h2load repeats one body, so every metric after the first of each (delivery id, metric) is stored as a duplicate — the same work as a new one (a row with duplicate = 1)."
  if [ -n "$PROFILE_ROWS" ]; then
    echo
    echo "## Where the collector's time goes (--ack committed, /v1/track, perf)"
    echo
    echo "\`perf record -F 1999 -g --call-graph dwarf\` on a fresh committed collector during \`h2load -n $((N / 2))\` track requests; share of all samples of the process in each frame and what it calls (nested rows overlap their parent)."
    echo
    echo "| frame | share of samples |"
    echo "| --- | ---: |"
    printf '%s\n' "$PROFILE_ROWS"
  fi
  echo
  echo "## Every run"
  echo
  raw_table
} >"$OUT"
cat "$OUT"
