#!/usr/bin/env bash
# Relay drain stress (the relay stall, docs/relay.md "Stopping a node"): ROUNDS times, start a
# `pushlab relay` node on a real redis-server (`--queue redis://…`, started here on a free port
# with a temp dir) sending to the gateway emulator (`pushlab serve`), post TARGETS targets,
# send SIGTERM once a quarter of them are finished, and time the drain until the process exits.
# A node still running STALL seconds after the signal is a stall: the script asks it for its
# state (SIGQUIT, docs/relay.md "Asking a node what it waits on"), attaches gdb for every
# thread's stack (`thread apply all bt`; attaching interrupts every epoll_wait, which is how the
# stall was first cut short), then waits for the exit. An exit status other than 0 (the drain
# overran its bound) counts too, and so does a node that reports missed wake-ups as it exits (its
# client loops slept on work they held; since the 1 s cap such a sleep only delays). Prints one
# line per round and a summary; the dumps stay in
# OUT_DIR (default $TMPDIR/pushlab-drain-stress). Measured runs: benchmarks/results/relay-drain-stress.md.
#   ROUNDS=50 TARGETS=2000 SKIP_BUILD=1 BIN=.build/debug/pushlab nice -n 19 benchmarks/relay-drain-stress.sh
# Variables: ROUNDS, TARGETS, CONCURRENCY (workers.concurrency), RATE (rate_per_minute; a low one
# makes the workers wait in the shared Redis budget as RelayRateLimitLeaseTests does), WHEN (mid:
# SIGTERM a quarter through; idle: once all are finished, the workers parked; both: alternate), STALL
# (seconds before a drain counts as stalled, default 8: measured drains take 0.03-2 s), BIN,
# SKIP_BUILD=1. TESTS=N instead runs `swift test --skip-build --filter RelayRateLimitLeaseTests`
# N times (the first sighting) and counts the failed runs.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-20}
TARGETS=${TARGETS:-2000}
CONCURRENCY=${CONCURRENCY:-64}
RATE=${RATE:-100000000}
STALL=${STALL:-8}
WHEN=${WHEN:-both}
OUT_DIR=${OUT_DIR:-${TMPDIR:-/tmp}/pushlab-drain-stress}
BIN=${BIN:-.build/debug/pushlab}

if [ -n "${TESTS:-}" ]; then
  failed=0
  for i in $(seq "$TESTS"); do
    if swift test --skip-build --filter RelayRateLimitLeaseTests >"/tmp/drain-stress-tests-$$.log" 2>&1; then
      echo "run $i: passed"
    else
      failed=$((failed + 1)); echo "run $i: FAILED"; grep -E "error:|failed" "/tmp/drain-stress-tests-$$.log" | head -5
      cp "/tmp/drain-stress-tests-$$.log" "/tmp/drain-stress-tests-$$-run$i.log"
    fi
  done
  rm -f "/tmp/drain-stress-tests-$$.log"
  echo "RelayRateLimitLeaseTests: $failed failed of $TESTS runs ($(uptime | sed 's/.*load/load/'))"
  exit 0
fi

[ -n "${SKIP_BUILD:-}" ] || swift build --product pushlab >/dev/null
source benchmarks/lib/scratch.sh TMP
source benchmarks/lib/listening.sh
mkdir -p "$OUT_DIR"

REDIS_PORT=$(free_port)
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$TMP" --save '' --appendonly no \
  --daemonize no --logfile "$TMP/redis.log" &
PIDS+=($!)
wait_for "$TMP/redis.log" "Ready to accept connections"
REDIS_URL="redis://127.0.0.1:$REDIS_PORT"

"$BIN" serve --apns-port 0 --port 0 --h2c-port 0 --quiet >"$TMP/serve.log" 2>&1 &
PIDS+=($!)
wait_for "$TMP/serve.log" "^APNs: https://"
APNS_PORT=$(sed -n 's|^APNs: https://127.0.0.1:\([0-9]*\).*|\1|p' "$TMP/serve.log")

cat >"$TMP/relay.json" <<JSON
{"listen": {"port": 0},
 "workers": {"concurrency": $CONCURRENCY, "lease_seconds": 5},
 "apps": {"demo": {"rate_per_minute": $RATE,
   "apns": {"key": "$PWD/certs/AuthKey_PLDEVKEY01.p8", "key_id": "PLDEVKEY01", "team_id": "PLDEVTEAM1",
            "bundle_id": "io.pushlab.demo", "url": "https://127.0.0.1:$APNS_PORT", "ca_file": "$PWD/certs/ca.pem"}}}}
JSON
python3 - "$TMP/body.json" "$TARGETS" <<'PY'
import json, sys
tokens = ["%064x" % (0xD0000000 + i) for i in range(int(sys.argv[2]))]
json.dump({"apns": {"payload": {"aps": {"alert": "drain stress"}}}, "apns_tokens": tokens}, open(sys.argv[1], "w"))
PY

now_ms() { date +%s%3N; }
stalls=0; overruns=0; missed_rounds=0; drains=()
for round in $(seq "$ROUNDS"); do
  redis-cli -p "$REDIS_PORT" FLUSHALL >/dev/null
  KEY=$("$BIN" relay keys create --queue "$REDIS_URL" --app demo 2>/dev/null)
  log="$TMP/node-$round.log"
  "$BIN" relay --config "$TMP/relay.json" --data "$TMP/data" --queue "$REDIS_URL" --node stress --quiet >"$log" 2>&1 &
  node=$!; PIDS+=($node)
  wait_for "$log" "relay: listening on http://"
  url=$(sed -n 's|^relay: listening on \(http://[0-9.:]*\).*|\1|p' "$log")
  curl -sS --http2-prior-knowledge -X POST "$url/v1/apps/demo/pushes" -H "authorization: Bearer $KEY" \
    -H 'content-type: application/json' --data-binary "@$TMP/body.json" >/dev/null
  # SIGTERM a quarter of the way through (WHEN=mid), or once every target is finished and the
  # workers are parked (WHEN=idle: the quiet node of the first sighting); alternating by default.
  when=$WHEN
  [ "$when" = both ] && { [ $((round % 2)) = 1 ] && when=mid || when=idle; }
  goal=$((TARGETS / 4)); [ "$when" = idle ] && goal=$TARGETS
  for _ in $(seq 600); do
    n=$(redis-cli -p "$REDIS_PORT" GET pushlab:finished | sed 's/^$/0/')
    [ "$n" -ge "$goal" ] && break
    sleep 0.05
  done
  [ "$when" = idle ] && sleep 0.3  # the last answers recorded, the workers parked
  start=$(now_ms)
  kill -TERM "$node"
  stalled=0
  while kill -0 "$node" 2>/dev/null; do
    if [ "$stalled" = 0 ] && [ $(( $(now_ms) - start )) -ge $((STALL * 1000)) ]; then
      stalled=1; stalls=$((stalls + 1))
      dump="$OUT_DIR/stall-$(date -u +%Y%m%dT%H%M%S)-round$round"
      kill -QUIT "$node" 2>/dev/null || true
      sleep 1
      cp "$log" "$dump.log"
      gdb -p "$node" -batch -ex 'thread apply all bt' >"$dump.gdb.txt" 2>&1 || true
      echo "round $round: still draining after ${STALL} s: state in $dump.log, stacks in $dump.gdb.txt"
    fi
    sleep 0.05
  done
  status=0; wait "$node" || status=$?
  ms=$(( $(now_ms) - start ))
  drains+=("$ms")
  [ "$status" = 0 ] || { overruns=$((overruns + 1)); cp "$log" "$OUT_DIR/exit$status-round$round.log"; }
  # A node whose client loops slept on work they held says so as it exits (each such sleep
  # ended at the loop's 1 s cap): the stall's cause, made visible.
  m=$(sed -n 's/.*loops missed \([0-9]*\) wake-ups.*/\1/p' "$log" | head -1); m=${m:-0}
  [ "$m" = 0 ] || missed_rounds=$((missed_rounds + 1))
  echo "round $round ($when): drained in $ms ms, exit $status, $n finished at SIGTERM, missed wake-ups $m"
done
sorted=$(printf '%s\n' "${drains[@]}" | sort -n)
echo "drains: $ROUNDS, stalled (> ${STALL} s): $stalls, exit status not 0: $overruns, with missed wake-ups: $missed_rounds; drain ms min $(echo "$sorted" | head -1) median $(echo "$sorted" | sed -n "$(( (ROUNDS + 1) / 2 ))p") max $(echo "$sorted" | tail -1)"
echo "targets $TARGETS, concurrency $CONCURRENCY, rate_per_minute $RATE, $(date -u), $(uptime | sed 's/.*load/load/'), $BIN"
