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
# which shared load does not inflate the way it does req/s; taken once the server is idle again,
# so a queued collector's commits after the last answer count). After each round the SQLite files
# are counted: every 2xx must be stored (requests and metrics rows). ROUNDS interleaved rounds
# (default 3), medians; every run is in the results file. Then the SQLite floor (the collector's
# rows written by a C program alone, benchmarks/lib/collector-sqlite-floor.c) and a perf profile
# of the collector (committed, track and tap) with each frame's µs per request, when perf is
# allowed. Writes benchmarks/results/collector.md.
# BASE_BIN=path/to/an/older/pushlab adds that build's collector ("before") to every round and to
# the profile, so a change is compared with what it replaced in the same run, under the same load.
# This build's collectors run with their default event loops (one per core; EVENT_LOOPS=N to
# change it); ONE_LOOP=1 adds this build on one loop ("one loop") to every round, to tell the
# loops' share of a change from the rest. BASE_BIN's run with its own default.
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
BASE_BIN=${BASE_BIN:-}
EVENT_LOOPS=${EVENT_LOOPS:-}
ONE_LOOP=${ONE_LOOP:-}
PROFILE_N=${PROFILE_N:-$((N / 2))}
[ -n "${SKIP_BUILD:-}" ] || swift build -c release --product pushlab >/dev/null  # SKIP_BUILD=1 reuses the current release binary
for tool in h2load nghttpd sqlite3; do
  command -v $tool >/dev/null || { echo "collector.sh: $tool missing (scripts/bootstrap installs nghttp2-client, nghttp2-server, sqlite3)" >&2; exit 1; }
done
source benchmarks/lib/scratch.sh TMP
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

# start_collector LOG ACK DB [BINARY [EXTRA-ARGS]] → sets C_PID, C_PORT (cleartext).
start_collector() {
  : >"$TMP/$1"  # before the fork: the log is reused each round
  # shellcheck disable=SC2086  # EXTRA-ARGS are words
  "${4:-$BIN}" collector --port off --h2c-port 0 --db "$3" --cdp-key k1 --quiet --ack "$2" --bench ${5:-} >"$TMP/$1" 2>&1 &
  C_PID=$!; PIDS+=($!)
  for _ in $(seq 200); do
    C_PORT=$(sed -n 's|^http://127.0.0.1:\([0-9]*\).*|\1|p' "$TMP/$1" | head -1)
    [ -n "$C_PORT" ] && return
    sleep 0.05
  done
  echo "collector.sh: the collector did not start: $(cat "$TMP/$1")" >&2; exit 1
}
stop_pid() { kill -INT "$1"; wait "$1" 2>/dev/null || true; }

# settled_ticks PID → cpu_ticks once PID stopped using CPU (unchanged over 0.3 s; at most 30 s): a
# queued collector's writer may still be committing after h2load got its last answer, and that
# CPU belongs to this run — measured too early it lowered the run's µs/request and slowed the
# next server measured.
settled_ticks() {
  local last now
  last=$(cpu_ticks "$1")
  for _ in $(seq 100); do
    sleep 0.3
    now=$(cpu_ticks "$1")
    [ "$now" = "$last" ] && break
    last=$now
  done
  echo "$last"
}

# load PID URL COMMAND → "req/s succeeded failed 2xx cpu-µs/request"; the same h2load command
# for every server of a COMMAND (body, content-type, authorization, the SDK's user-agent).
load() {
  local pid=$1 url=$2 cmd=$3 n=${COUNT[$3]} before after out
  before=$(cpu_ticks "$pid")
  out=$(h2load -n "$n" -c "$CLIENTS" -m "$STREAMS" -d "${BODY[$cmd]}" -H "content-type: application/json; charset=utf-8" \
        -H "$AUTH" -H "$NSE_UA" "$url")
  after=$(settled_ticks "$pid")
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
# The collectors of a round: after (this build), with ONE_LOOP this build on one event loop, and
# with BASE_BIN before (that build).
BUILDS=(collector); [ -n "$ONE_LOOP" ] && BUILDS+=("one loop"); [ -n "$BASE_BIN" ] && BUILDS+=(before)
declare -A BUILD_BIN=([collector]="$BIN" ["one loop"]="$BIN" [before]="$BASE_BIN")
declare -A BUILD_ARGS=([collector]="${EVENT_LOOPS:+--event-loops $EVENT_LOOPS}" ["one loop"]="--event-loops 1" [before]="")
for ROUND in $(seq "$ROUNDS"); do
  declare -A CPID=() CPORT=() EXPECT_METRICS=() EXPECT_REQUESTS=()
  for b in "${BUILDS[@]}"; do
    for ack in committed queued; do
      start_collector "${b// /-}-$ack.log" "$ack" "$TMP/${b// /-}-$ack-$ROUND.sqlite" "${BUILD_BIN[$b]}" "${BUILD_ARGS[$b]}"
      CPID[$b $ack]=$C_PID; CPORT[$b $ack]=$C_PORT; EXPECT_REQUESTS[$b $ack]=0
    done
  done
  for cmd in "${CMDS[@]}"; do
    run "nghttpd, 1 worker ($cmd)" "$NG1_PID" "http://127.0.0.1:$NG1/empty" "$cmd"
    run "nghttpd, $(nproc) workers ($cmd)" "$NGN_PID" "http://127.0.0.1:$NGN/empty" "$cmd"
    run "raw server ($cmd)" "${CPID[collector committed]}" "http://127.0.0.1:${CPORT[collector committed]}/bench" "$cmd"
    for b in "${BUILDS[@]}"; do
      for ack in committed queued; do
        [ "$cmd" = b20 ] && [ "$ack" = queued ] && continue
        run "$b $ack ($cmd)" "${CPID[$b $ack]}" "http://127.0.0.1:${CPORT[$b $ack]}${ROUTE[$cmd]}" "$cmd"
        EXPECT_METRICS[$b $ack ${ROUTE[$cmd]}]=$(( ${EXPECT_METRICS[$b $ack ${ROUTE[$cmd]}]:-0} + XX * PER[$cmd] ))
        EXPECT_REQUESTS[$b $ack]=$(( EXPECT_REQUESTS[$b $ack] + XX ))
      done
    done
  done
  for b in "${BUILDS[@]}"; do
    for ack in committed queued; do
      stop_pid "${CPID[$b $ack]}"
      db="$TMP/${b// /-}-$ack-$ROUND.sqlite"
      got_requests=$(rows "$db" "SELECT COUNT(*) FROM metric_requests WHERE status = 200")
      record "$b $ack: 2xx answered" "${EXPECT_REQUESTS[$b $ack]}"; record "$b $ack: metric_requests rows (status 200)" "$got_requests"
      [ "$got_requests" = "${EXPECT_REQUESTS[$b $ack]}" ] || STORED="NO (round $ROUND, $b $ack requests)"
      for route in /v1/track /v1/b; do
        [ -n "${EXPECT_METRICS[$b $ack $route]:-}" ] || continue
        got=$(rows "$db" "SELECT COUNT(*) FROM metrics WHERE route = '$route'")
        record "$b $ack: $route metrics expected (2xx × metrics per body)" "${EXPECT_METRICS[$b $ack $route]}"; record "$b $ack: $route metrics rows" "$got"
        [ "$got" = "${EXPECT_METRICS[$b $ack $route]}" ] || STORED="NO (round $ROUND, $b $ack $route)"
      done
    done
  done
done

# SQLite floor: the same two INSERTs per request in C with nothing else in the process
# (benchmarks/lib/collector-sqlite-floor.c), for the file as the collector made it before
# 2026-12-06 (4 KiB pages, the metrics index) and as it makes it now (16 KiB pages, no index);
# both with SQLite's automatic checkpoints in the process, so their CPU is counted. The least
# any collector storing these rows in SQLite spends per request, whatever its HTTP side does.
FLOOR_CMDS=()
CC_BIN=$(command -v cc || command -v clang || true)
if [ -n "$CC_BIN" ] && "$CC_BIN" -O2 -o "$TMP/floor" benchmarks/lib/collector-sqlite-floor.c -lsqlite3 2>"$TMP/floor.err"; then
  echo "collector.sh: SQLite floor" >&2
  for ROUND in $(seq "$ROUNDS"); do
    for cmd in track tap; do
      record "SQLite floor ($cmd), 4 KiB pages + index" "$("$TMP/floor" "$TMP/floor.sqlite" "${BODY[$cmd]}" "$N" 256 4096 1 1)"
      record "SQLite floor ($cmd), 16 KiB pages, no index" "$("$TMP/floor" "$TMP/floor.sqlite" "${BODY[$cmd]}" "$N" 256 16384 0 1)"
    done
  done
  FLOOR_CMDS=(track tap)
fi

# Where the collector's CPU goes: perf samples of the whole process (event loop, writer, pool)
# during one more committed load per body, as shares of the samples ("children": a frame and
# everything it calls) and as µs per request (share × the process's CPU µs per request in that
# same profiled run). Skipped when perf is missing or not permitted, or PROFILE=0.
# profile LABEL BINARY COMMAND → prints "frame<TAB>share<TAB>µs" rows; the profiled run's CPU
# µs/request is recorded as "profile LABEL (COMMAND) cpu µs/req".
profile() {
  local label=$1 bin=$2 cmd=$3 extra=${4:-} child before after
  echo "collector.sh: profile (perf, --ack committed, $label, $cmd)" >&2
  : >"$TMP/profile.log"; rm -f "$TMP/profile.sqlite"*
  # Started under perf, so every thread it ever runs (the SQLite writer's too) is sampled.
  perf record -F 999 -g --call-graph dwarf,16384 -o "$TMP/perf.data" -- \
    "$bin" collector --port off --h2c-port 0 --db "$TMP/profile.sqlite" --cdp-key k1 --quiet --ack committed $extra >"$TMP/profile.log" 2>&1 &
  local perf_pid=$!; PIDS+=($!)
  for _ in $(seq 400); do grep -q '^http://' "$TMP/profile.log" && break; sleep 0.05; done
  local port; port=$(sed -n 's|^http://127.0.0.1:\([0-9]*\).*|\1|p' "$TMP/profile.log" | head -1)
  child=$(pgrep -P "$perf_pid" | head -1)
  before=$(cpu_ticks "$child")
  h2load -n "$PROFILE_N" -c "$CLIENTS" -m "$STREAMS" -d "${BODY[$cmd]}" -H "content-type: application/json; charset=utf-8" \
    -H "$AUTH" -H "$NSE_UA" "http://127.0.0.1:$port${ROUTE[$cmd]}" >/dev/null
  after=$(settled_ticks "$child")
  local us; us=$(awk -v t=$((after - before)) -v u="$TICK_US" -v n="$PROFILE_N" 'BEGIN { printf "%.2f", t * u / n }')
  record "profile $label ($cmd) cpu µs/req" "$us"
  kill -INT "$child"; wait "$perf_pid" 2>/dev/null || true
  perf report -i "$TMP/perf.data" --children --sort symbol -g none --stdio 2>/dev/null | swift demangle --simplified |
    awk '/^ +[0-9.]+%/ { share = $1; $1 = ""; $2 = ""; $3 = ""; sub(/^ +/, ""); print share "\t" $0 }' |
    awk -F'\t' -v us="$us" '
      function pick(label, pattern) { if (!(label in seen) && $2 ~ pattern) { seen[label] = $1; order[++n] = label } }
      { pick("HTTP/2 input (nghttp2 + request assembly)", "^HTTP2Session.receive")
        pick("request dispatch (router + handler)", "^RequestDispatcher.dispatch")
        pick("collector handler (checks, hand-over to the writer)", "^MetricsCollector.handle")
        pick("collector › body checks (JSON)", "^(specialized )?static MetricRequestParser.parse")
        pick("collector › credentials", "^CollectorCredentials.check")
        pick("collector › hand-over (duplicate flags, queue)", "^MetricWriter.submit")
        pick("writer: one group commit", "MetricWriter.drain")
        pick("writer › SQLite inserts", "MetricStore.insert")
        pick("checkpoint thread (WAL copied into the file)", "MetricStore.checkpointSoon")
        pick("HTTP/2 output (frames + writev)", "^ServerConnection.finishEvent")
        pick("answers delivered on the loop", "^ServerConnection.deliver")
        pick("SQLite: sqlite3_step, all callers", "^sqlite3_step$")
        pick("malloc, all callers", "^__GI___libc_malloc|^malloc$")
        pick("free, all callers", "^__GI___libc_free|^free$")
        pick("kernel: write/fsync of the SQLite WAL and database", "^__libc_pwrite|^pwrite64|^__GI___pwrite64") }
      END { for (i = 1; i <= n; i++) { s = seen[order[i]]; sub(/%/, "", s); printf "%s\t%s\t%.2f\n", order[i], seen[order[i]], s * us / 100 } }'
}
declare -A PROFILE_ROWS=()
PROFILE_CMDS=(track tap)
PROFILED=()
if [ "$PROFILE" = 1 ] && command -v perf >/dev/null && perf record -o "$TMP/probe.data" -- true >/dev/null 2>&1; then
  for cmd in "${PROFILE_CMDS[@]}"; do
    for b in "${BUILDS[@]}"; do
      [ "$b" = "one loop" ] && continue
      PROFILE_ROWS[$b $cmd]=$(profile "$b" "${BUILD_BIN[$b]}" "$cmd" "${BUILD_ARGS[$b]}")
    done
  done
  PROFILED=("${PROFILE_CMDS[@]}")
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
  [ -n "$BASE_BIN" ] && echo "- before: \`$BASE_BIN\` (BASE_BIN), the same commands, a pair of its collectors started beside this build's in every round"
  echo "- collector: \`$BIN collector --port off --h2c-port 0 --db FILE --cdp-key k1 --quiet --ack committed|queued --bench${EVENT_LOOPS:+ --event-loops $EVENT_LOOPS}\` ($( [ -n "$EVENT_LOOPS" ] && echo "$EVENT_LOOPS event loops" || echo "its default event loops: one per core, $(nproc) here" )$( [ -n "$ONE_LOOP" ] && echo "; \"one loop\": the same with \`--event-loops 1\`" ); \`--bench\` adds the raw server's POST /bench, an empty 200 from an event loop with no route work, in the same process); nghttpd: \`nghttpd --no-tls 0 -d DOCROOT\` (1 worker) and \`nghttpd -n $(nproc) …\`, serving an empty file"
  echo "- $ROUNDS interleaved rounds; fresh collectors (committed, queued) and fresh SQLite files each round; values are medians, ratios are of medians; every run is under \"Every run\""
  echo "- cpu µs/request: the server process's user+system time over the run (from /proc/PID/stat), all threads (event loop, SQLite writer, checkpoint thread), from the run's start until the process is idle again (a queued collector's last commits included), divided by the requests; a queued collector's req/s counts answers, given before their commits"
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
  if [ -n "$BASE_BIN" ]; then
    echo
    echo "## Before and after, same run"
    echo
    echo "| route, body, ack | before req/s | after req/s | before ÷ nghttpd | **after ÷ nghttpd** | before cpu µs/req | after cpu µs/req | after ÷ before (cpu) |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    for cmd in "${CMDS[@]}"; do
      for ack in committed queued; do
        [ "$cmd" = b20 ] && [ "$ack" = queued ] && continue
        ng=$(median "$(best_ngh "$cmd") req/s"); x=$(median "before $ack ($cmd) req/s"); y=$(median "collector $ack ($cmd) req/s")
        cx=$(median "before $ack ($cmd) cpu µs/req"); cy=$(median "collector $ack ($cmd) cpu µs/req")
        echo "| ${ROUTE[$cmd]} $cmd, $ack | $x | $y | $(ratio "$x" "$ng") | **$(ratio "$y" "$ng")** | $cx | $cy | $(ratio "$cy" "$cx") |"
      done
    done
  fi
  if [ -n "$ONE_LOOP" ]; then
    echo
    echo "## This build on one event loop, same run"
    echo
    echo "| route, body, ack | one loop req/s | default loops req/s | one loop ÷ nghttpd | **default loops ÷ nghttpd** | one loop cpu µs/req | default loops cpu µs/req |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
    for cmd in "${CMDS[@]}"; do
      for ack in committed queued; do
        [ "$cmd" = b20 ] && [ "$ack" = queued ] && continue
        ng=$(median "$(best_ngh "$cmd") req/s"); x=$(median "one loop $ack ($cmd) req/s"); y=$(median "collector $ack ($cmd) req/s")
        echo "| ${ROUTE[$cmd]} $cmd, $ack | $x | $y | $(ratio "$x" "$ng") | **$(ratio "$y" "$ng")** | $(median "one loop $ack ($cmd) cpu µs/req") | $(median "collector $ack ($cmd) cpu µs/req") |"
      done
    done
  fi
  if [ ${#FLOOR_CMDS[@]} -gt 0 ]; then
    echo
    echo "## SQLite floor: the rows alone"
    echo
    echo "CPU µs per request (user + system, medians of $ROUNDS) of \`benchmarks/lib/collector-sqlite-floor.c\` ($("$CC_BIN" --version | head -1)): a C program making the collector's two INSERTs per accepted request (the metric_requests row with the body, the metrics row) for $N requests in transactions of 256, WAL, synchronous=NORMAL, SQLite's automatic checkpoints included — no HTTP, no JSON, no threads. No collector that stores these rows in SQLite on this machine can spend less per request."
    echo
    echo "| body | 4 KiB pages + metrics index (the file before) | 16 KiB pages, no index (the file now) | collector cpu µs/req, committed | raw server cpu µs/req |"
    echo "| --- | ---: | ---: | ---: | ---: |"
    for cmd in "${FLOOR_CMDS[@]}"; do
      echo "| $cmd | $(median "SQLite floor ($cmd), 4 KiB pages + index") | $(median "SQLite floor ($cmd), 16 KiB pages, no index") | $(median "collector committed ($cmd) cpu µs/req") | $(median "raw server ($cmd) cpu µs/req") |"
    done
  fi
  for cmd in "${PROFILED[@]}"; do
    echo
    echo "## Where the µs go (--ack committed, ${ROUTE[$cmd]} $cmd, perf)"
    echo
    echo "\`perf record -F 999 -g --call-graph dwarf\` on a fresh committed collector during \`h2load -n $PROFILE_N\` $cmd requests (the same h2load options); share of all samples of the process in each frame and what it calls (nested rows overlap their parent), and that share of the process's CPU µs per request measured in the same profiled run (perf's own overhead included)."
    echo
    if [ -n "$BASE_BIN" ]; then
      echo "| frame | before: share | before: µs/req | after: share | after: µs/req |"
      echo "| --- | ---: | ---: | ---: | ---: |"
      echo "| whole process (CPU µs/req in the profiled run) | 100% | $(median "profile before ($cmd) cpu µs/req") | 100% | $(median "profile collector ($cmd) cpu µs/req") |"
      awk -F'\t' 'NR == FNR { b[$1] = $2 "\t" $3; if (!($1 in o)) { o[$1] = ++n; name[n] = $1 }; next }
                   { a[$1] = $2 "\t" $3; if (!($1 in o)) { o[$1] = ++n; name[n] = $1 } }
                   END { for (i = 1; i <= n; i++) { k = name[i]; split((k in b) ? b[k] : "-\t-", x, "\t"); split((k in a) ? a[k] : "-\t-", y, "\t")
                         printf "| %s | %s | %s | %s | %s |\n", k, x[1], x[2], y[1], y[2] } }' \
        <(printf '%s\n' "${PROFILE_ROWS[before $cmd]}") <(printf '%s\n' "${PROFILE_ROWS[collector $cmd]}")
    else
      echo "| frame | share | µs/req |"
      echo "| --- | ---: | ---: |"
      echo "| whole process (CPU µs/req in the profiled run) | 100% | $(median "profile collector ($cmd) cpu µs/req") |"
      printf '%s\n' "${PROFILE_ROWS[collector $cmd]}" | awk -F'\t' 'NF == 3 { printf "| %s | %s | %s |\n", $1, $2, $3 }'
    fi
  done
  echo
  echo "## Every run"
  echo
  raw_table
} >"$OUT"
cat "$OUT"
