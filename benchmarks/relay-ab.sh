#!/usr/bin/env bash
# benchmarks/relay-ab.sh → benchmarks/results/relay-ab.md — the relay's end to end (issue 18:
# relay ÷ direct ≥ 0.8) for two pushlab builds in one run, interleaved, so a busy machine moves
# both alike. Each round, for old then new: E2E_TARGETS targets (pushes of 1,000) through
# `pushlab relay` to the emulator until the queue is empty (benchmarks/lib/relay-e2e.py), then
# the same tokens with that build's `pushlab send apns --tokens` straight to the emulator; both
# with CONCURRENCY sends in flight on one HTTP/2 connection. Each of the four measurements
# meets a fresh emulator, and odd rounds run old first, even rounds new first. Also the relay
# process's CPU time (user + system, /proc/PID/stat) per 1,000 deliveries, which load moves
# less than rates, and the emulator's (relay's run and direct run: issue 40).
#   OLD_BIN=path/to/old/pushlab [NEW_BIN=.build/release/pushlab] ROUNDS=5 E2E_TARGETS=50000 benchmarks/relay-ab.sh
#   BASE=<commit> benchmarks/relay-ab.sh      builds BASE's release binary in a worktree
#   OLD_NOTE/NEW_NOTE: what each binary is, for the results file, in place of its path (default:
#   old is named by its path, new is HEAD's build); CLIENT_NOTE: which HTTP/2 client each relay uses
#   APPEND="title": add the run as a dated section "## <date> — title" at the end of the results
#   file (the sections before it stay) instead of replacing the file
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
E2E_TARGETS=${E2E_TARGETS:-50000}
CONCURRENCY=${CONCURRENCY:-100}
NEW_BIN=${NEW_BIN:-.build/release/pushlab}
source benchmarks/lib/ab.sh
source benchmarks/lib/scratch.sh WORK KILL
source benchmarks/lib/runs.sh
REPO=$(pwd)
PUSHLAB=$NEW_BIN
source benchmarks/lib/relay.sh
TICK_MS=$((1000 / $(getconf CLK_TCK)))
per_1000() { awk -v t="$1" -v ms="$TICK_MS" -v n="$2" 'BEGIN { printf "%.1f", t * ms * 1000 / n }'; }

python3 -c "
for i in range($E2E_TARGETS): print('%064x' % (0xE0000000 + i))" >"$WORK/tokens.txt"

# transport_of BINARY → the HTTP/2 client its `send apns` uses by default.
transport_of() { if "$1" send apns --help 2>&1 | grep -q -- '--transport'; then echo "nghttp2 (default of --transport)"; else echo "libcurl (no --transport)"; fi; }

# one BINARY LABEL: the relay's end to end, then the direct send, with that build, each
# against a fresh emulator.
one() {
  PUSHLAB=$1
  local label=$2
  fresh_emulator
  relay_config "$WORK/e2e.json" 100000000 "$CONCURRENCY"
  rm -rf "$WORK/e2e-data"
  local key admin sent total secs rate p50 p99 cpu
  key=$("$PUSHLAB" relay keys create --data "$WORK/e2e-data" --app bench 2>/dev/null)
  admin=$("$PUSHLAB" relay keys create --data "$WORK/e2e-data" --admin 2>/dev/null)
  start_relay "$WORK/e2e.json" "$WORK/e2e-data"
  local e0 e1
  e0=$(emulator_ticks)
  read -r sent total secs rate p50 p99 cpu < <(python3 benchmarks/lib/relay-e2e.py "$RELAY_URL" "$key" "$admin" "$WORK/tokens.txt" "$RELAY_PID")
  e1=$(emulator_ticks)  # after the results were read too: an upper bound for the emulator's share
  kill "$RELAY_PID"; wait "$RELAY_PID" 2>/dev/null || true
  [ "$sent" = "$total" ] || echo "relay-ab.sh: $label relay sent $sent of $total" >&2
  record "$label relay deliveries/s" "$rate"
  record "$label relay CPU ms per 1,000" "$(awk -v t="$cpu" -v ms="$TICK_MS" -v n="$total" 'BEGIN { printf "%.1f", t * ms * 1000 / n }')"
  record "$label relay enqueue→final p50 ms" "$p50"
  record "$label emulator CPU ms per 1,000, relay's run" "$(per_1000 $((e1 - e0)) "$total")"
  fresh_emulator
  e0=$(emulator_ticks)
  send_direct
  e1=$(emulator_ticks)
  record "$label direct deliveries/s" "$(python3 -c "import json; print(json.load(open('$WORK/direct.json'))['perSecond'])")"
  record "$label emulator CPU ms per 1,000, direct run" "$(per_1000 $((e1 - e0)) "$E2E_TARGETS")"
}
for ROUND in $(seq "$ROUNDS"); do
  echo "relay-ab.sh: round $ROUND/$ROUNDS" >&2
  if [ $((ROUND % 2)) = 1 ]; then one "$OLD_BIN" old; one "$NEW_BIN" new; else one "$NEW_BIN" new; one "$OLD_BIN" old; fi
done
ROUND=1

{
  if [ -n "${APPEND:-}" ]; then echo "## $(date -u +%F) — $APPEND"; else echo "# Relay A/B: end to end through the relay, two builds, one run"; fi
  echo
  machine_lines
  echo "- old: ${OLD_NOTE:-\`$OLD_BIN\`}${BASE:+ (commit $BASE)}; new: \`$NEW_BIN\` (${NEW_NOTE:-commit $(git rev-parse --short HEAD)})"
  echo "- each round, old then new (odd rounds) or new then old (even rounds), each measurement against a fresh emulator: \`pushlab relay\` (workers.concurrency $CONCURRENCY, apns.url → \`pushlab serve\`, SQLite queue with fsync) takes $E2E_TARGETS targets as pushes of 1,000 and sends them until the queue is empty; then that build's \`pushlab send apns --tokens\` sends the same tokens straight to the emulator (\`--concurrency $CONCURRENCY --connections 1\`); $ROUNDS rounds"
  echo "- HTTP/2 clients: each build's defaults (\`workers.transport\` and \`send apns --transport\` where the build has them, nghttp2 by default; libcurl where it does not) — old send apns: $(transport_of "$OLD_BIN"), new send apns: $(transport_of "$NEW_BIN")${CLIENT_NOTE:+; $CLIENT_NOTE}. **relay ÷ direct compares like with like only when a build's relay and send apns use the same client.**"
  echo "- relay CPU: the relay process's user+system time from the first POST until its queue was empty, per 1,000 targets; emulator CPU: the emulator's (\`pushlab serve\`, the old or new build alike) user+system time over the same span (relay's run: until the results were read) or over the direct send, per 1,000 targets"
  echo
  echo "| measure | old (median) | new (median) | new ÷ old |"
  echo "| --- | ---: | ---: | ---: |"
  for m in "relay deliveries/s" "direct deliveries/s" "relay CPU ms per 1,000" "relay enqueue→final p50 ms" \
           "emulator CPU ms per 1,000, relay's run" "emulator CPU ms per 1,000, direct run"; do
    o=$(median "old $m"); n=$(median "new $m")
    echo "| $m | $o | $n | $(ratio "$n" "$o") |"
  done
  echo "| **relay ÷ direct** (target ≥ 0.8) | $(ratio "$(median "old relay deliveries/s")" "$(median "old direct deliveries/s")") | **$(ratio "$(median "new relay deliveries/s")" "$(median "new direct deliveries/s")")** | |"
  echo
  echo "Every run:"
  echo
  raw_table
  echo
  echo "Re-run: \`OLD_BIN=<old pushlab> ROUNDS=$ROUNDS E2E_TARGETS=$E2E_TARGETS CONCURRENCY=$CONCURRENCY benchmarks/relay-ab.sh\` (or \`BASE=<commit>\`)"
} >"$WORK/report.md"
if [ -n "${APPEND:-}" ]; then { echo; cat "$WORK/report.md"; } >>benchmarks/results/relay-ab.md; else cp "$WORK/report.md" benchmarks/results/relay-ab.md; fi
cat "$WORK/report.md"
