#!/usr/bin/env bash
# benchmarks/relay-profile.sh → benchmarks/results/relay-profile.md — where the relay's CPU goes
# end to end (issue 18, relay ÷ direct): `perf record -e cpu-clock` (a software clock: this VM
# has no hardware counters) on the `pushlab relay` process while E2E_TARGETS targets (pushes of
# 1,000) go through it to the gateway emulator (`pushlab serve`, its own process) until the
# queue is empty. Writes the samples' shares by library (libcurl, SQLite, the kernel, malloc,
# Swift's runtime, pushlab itself …) and the top symbols, and the run's rate and CPU per 1,000.
# Then, with `perf stat`, syscalls and context switches per 1,000 targets for the relay and its
# emulator against `pushlab send apns --tokens` and its emulator.
#
#   E2E_TARGETS=20000 CONCURRENCY=100 [SKIP_BUILD=1] benchmarks/relay-profile.sh
#   PUSHLAB_BIN=path/to/pushlab BUILD_NOTE="what it is" benchmarks/relay-profile.sh   # another build
#   CALLGRAPH=1 KEEP=/tmp benchmarks/relay-profile.sh            # with call graphs, perf.data kept
set -euo pipefail
cd "$(dirname "$0")/.."
E2E_TARGETS=${E2E_TARGETS:-20000}
CONCURRENCY=${CONCURRENCY:-100}
FREQ=${FREQ:-999}
OUT=${OUT:-benchmarks/results/relay-profile.md}
source benchmarks/lib/scratch.sh WORK KILL
command -v perf >/dev/null || { echo "relay-profile.sh: perf is not installed (apt-get install linux-perf)" >&2; exit 1; }
source benchmarks/lib/runs.sh
if [ -z "${PUSHLAB_BIN:-}" ]; then
  [ -n "${SKIP_BUILD:-}" ] || swift build -c release --product pushlab >/dev/null
  PUSHLAB_BIN=.build/release/pushlab
fi
PUSHLAB=$PUSHLAB_BIN
REPO=$(pwd)
source benchmarks/lib/relay.sh
start_emulator
TICK_MS=$((1000 / $(getconf CLK_TCK)))
python3 -c "
for i in range($E2E_TARGETS): print('%064x' % (0xF0000000 + i))" >"$WORK/tokens.txt"
relay_config "$WORK/relay.json" 100000000 "$CONCURRENCY"
KEY=$("$PUSHLAB" relay keys create --data "$WORK/data" --app bench 2>/dev/null)
ADMIN=$("$PUSHLAB" relay keys create --data "$WORK/data" --admin 2>/dev/null)
start_relay "$WORK/relay.json" "$WORK/data"
perf record -q -e cpu-clock -F "$FREQ" ${CALLGRAPH:+-g} -p "$RELAY_PID" -o "$WORK/perf.data" 2>"$WORK/perf.log" &
PERF_PID=$!
sleep 0.5
read -r sent total secs rate _ _ cpu < <(SKIP_RESULTS=1 python3 benchmarks/lib/relay-e2e.py "$RELAY_URL" "$KEY" "$ADMIN" "$WORK/tokens.txt" "$RELAY_PID")
kill -INT "$PERF_PID"; wait "$PERF_PID" 2>/dev/null || true
kill "$RELAY_PID"; wait "$RELAY_PID" 2>/dev/null || true
record "relay deliveries/s" "$rate"
record "relay CPU ms per 1,000" "$(awk -v t="$cpu" -v ms="$TICK_MS" -v n="$total" 'BEGIN { printf "%.1f", t * ms * 1000 / n }')"

# Shares by library, and malloc's (libc's allocator symbols) apart from the rest of libc.
perf report -i "$WORK/perf.data" --stdio --no-children --sort dso,sym 2>/dev/null | awk '/^ +[0-9.]+%/' >"$WORK/symbols.txt"
awk '{
  pct = $1; sub(/%/, "", pct); dso = $2; sym = $NF
  group = dso
  if (dso ~ /kernel/) group = "kernel"
  else if (dso ~ /libcurl/) group = "libcurl"
  else if (dso ~ /libsqlite/) group = "SQLite"
  else if (dso ~ /libnghttp2/) group = "nghttp2"
  else if (dso ~ /libssl|libcrypto/) group = "OpenSSL"
  else if (dso ~ /libswiftCore|libswift_Concurrency|libFoundation|libswiftDispatch|libdispatch|libswiftSynchronization/) group = "Swift runtime, Foundation, Dispatch"
  else if (dso ~ /^libc/ && sym ~ /malloc|free|_int_|cfree|realloc|calloc|tcache|arena|consolidate/) group = "malloc (libc)"
  else if (dso ~ /^libc/) group = "libc (other)"
  else if (dso ~ /pushlab/) group = "pushlab"
  share[group] += pct
} END { for (g in share) printf "%.1f\t%s\n", share[g], g }' "$WORK/symbols.txt" | sort -rn >"$WORK/groups.txt"
# Shares by thread, named by what runs there (thread names are cut to 15 characters).
perf report -i "$WORK/perf.data" --stdio --no-children --sort comm -g none 2>/dev/null | awk '/^ +[0-9.]+%/ {
  pct = $1; sub(/%/, "", pct); name = $2
  if (name == "pushlab-client") what = "HTTP/2 client loop (the sends, and the workers that run on it)"
  else if (name ~ /overcommit/) what = "Dispatch threads (the queue writer, its checkpoints, timers)"
  else if (name ~ /default-qos/) what = "Swift global executor (claims, the recorder, the API handlers)"
  else if (name == "pushlab-server") what = "HTTP server loop (the API)"
  else what = name
  share[what] += pct
} END { for (w in share) printf "%.1f\t%s\n", share[w], w }' | sort -rn >"$WORK/threads.txt"
SAMPLES=$(perf report -i "$WORK/perf.data" --stdio 2>/dev/null | sed -n 's/^# Samples: \([0-9.kKM]*\).*/\1/p' | head -1)

# Syscalls and context switches per 1,000 targets (`perf stat`, tracepoints), the relay and its
# emulator against `pushlab send apns --tokens` and its emulator, each with a fresh emulator:
# what the relay's queue and bookkeeping threads add to the sender ⇄ emulator ping-pong.
# Skipped where the kernel offers no syscall tracepoints.
SYSCALLS=(context-switches futex epoll_wait read write pwrite64 pread64 fdatasync)
if [ -n "$(perf list 2>/dev/null | grep 'syscalls:sys_enter_pwrite64')" ]; then
  EVENTS=$(printf '%s\n' "${SYSCALLS[@]}" | sed '/^context-switches$/!s/^/syscalls:sys_enter_/' | paste -sd,)
  # per_1000_targets FILE → "name count-per-1,000-targets" lines from a perf stat output file
  per_1000_targets() { awk -v n="$E2E_TARGETS" '$2 ~ /^(syscalls:sys_enter_|context-switches)/ {
    gsub(",", "", $1); name = $2; sub("syscalls:sys_enter_", "", name); printf "%s %.1f\n", name, $1 * 1000 / n }' "$1"; }
  fresh_emulator
  rm -rf "$WORK/data2"
  KEY=$("$PUSHLAB" relay keys create --data "$WORK/data2" --app bench 2>/dev/null)
  ADMIN=$("$PUSHLAB" relay keys create --data "$WORK/data2" --admin 2>/dev/null)
  relay_config "$WORK/relay.json" 100000000 "$CONCURRENCY"
  start_relay "$WORK/relay.json" "$WORK/data2"
  perf stat -e "$EVENTS" -p "$RELAY_PID" -o "$WORK/stat-relay.txt" & S1=$!
  perf stat -e "$EVENTS" -p "$SERVE_PID" -o "$WORK/stat-relay-emu.txt" & S2=$!
  sleep 0.5
  read -r _ _ _ STAT_RELAY_RATE _ _ _ < <(SKIP_RESULTS=1 python3 benchmarks/lib/relay-e2e.py "$RELAY_URL" "$KEY" "$ADMIN" "$WORK/tokens.txt")
  kill -INT "$S1" "$S2"; wait "$S1" "$S2" 2>/dev/null || true
  kill "$RELAY_PID"; wait "$RELAY_PID" 2>/dev/null || true
  fresh_emulator
  perf stat -e "$EVENTS" -p "$SERVE_PID" -o "$WORK/stat-direct-emu.txt" & S2=$!
  sleep 0.5
  send_direct perf stat -e "$EVENTS" -o "$WORK/stat-direct.txt" --
  kill -INT "$S2"; wait "$S2" 2>/dev/null || true
  STAT_DIRECT_RATE=$(python3 -c "import json; print(json.load(open('$WORK/direct.json'))['perSecond'])")
  for side in relay relay-emu direct direct-emu; do per_1000_targets "$WORK/stat-$side.txt" >"$WORK/per1000-$side.txt"; done
fi
ROUND=1
{
  echo "# Where the relay's CPU goes, end to end"
  echo
  machine_lines
  echo "- build: \`$PUSHLAB\` (${BUILD_NOTE:-commit $(git rev-parse --short HEAD)}); $($PUSHLAB --version)"
  echo "- \`pushlab relay\` (workers.concurrency $CONCURRENCY, SQLite queue with fsync, apns.url → \`pushlab serve\`) sends $E2E_TARGETS targets (pushes of 1,000) until its queue is empty: $sent of $total sent in $secs s"
  echo "- \`perf record -e cpu-clock -F $FREQ -p RELAY_PID\` for that time: $SAMPLES samples"
  echo
  echo "| measure | value |"
  echo "| --- | ---: |"
  echo "| relay deliveries/s | $(median "relay deliveries/s") |"
  echo "| relay CPU ms per 1,000 targets (perf attached: more than without) | $(median "relay CPU ms per 1,000") |"
  echo
  echo "Samples by thread:"
  echo
  echo "| share | thread |"
  echo "| ---: | --- |"
  awk -F'\t' '{ printf "| %s%% | %s |\n", $1, $2 }' "$WORK/threads.txt"
  echo
  echo "Samples by library (malloc: libc's allocator symbols):"
  echo
  echo "| share | where |"
  echo "| ---: | --- |"
  awk -F'\t' '{ printf "| %s%% | %s |\n", $1, $2 }' "$WORK/groups.txt"
  echo
  if [ -s "$WORK/per1000-relay.txt" ]; then
    echo "Syscalls and context switches per 1,000 targets (\`perf stat -e context-switches,syscalls:sys_enter_…\`, a second run"
    echo "of each side with a fresh emulator; the relay at $STAT_RELAY_RATE deliveries/s, \`send apns --tokens\` at $STAT_DIRECT_RATE/s):"
    echo
    echo "| per 1,000 targets | relay | its emulator | \`send apns --tokens\` | its emulator |"
    echo "| --- | ---: | ---: | ---: | ---: |"
    for name in "${SYSCALLS[@]}"; do
      row="| $name"
      for side in relay relay-emu direct direct-emu; do row="$row | $(awk -v k="$name" '$1 == k { print $2 }' "$WORK/per1000-$side.txt")"; done
      echo "$row |"
    done
    echo
  fi
  echo "Top symbols:"
  echo
  echo '```'
  head -30 "$WORK/symbols.txt"
  echo '```'
  echo
  echo "Every run:"
  echo
  raw_table
  echo
  echo "Re-run: \`E2E_TARGETS=$E2E_TARGETS CONCURRENCY=$CONCURRENCY benchmarks/relay-profile.sh\`"
} >"$OUT"
cat "$OUT"
# KEEP=DIR keeps perf.data there (e.g. for perf report -g with CALLGRAPH=1).
[ -z "${KEEP:-}" ] || cp "$WORK/perf.data" "$KEEP/"
