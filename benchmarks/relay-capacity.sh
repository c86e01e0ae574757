#!/usr/bin/env bash
# Relay capacity model (issue 37 item 3): what each component spends per delivery, the ceilings
# that follows from it, and a check of those predictions against runs pinned to cores.
#
# 1. Calibration (CAL_ROUNDS rounds, every process free to run on both CPUS, as
#    benchmarks/relay-cluster.sh runs them): one `pushlab relay` on SQLite, then one on Redis
#    (`--queue redis://…`), each delivering TARGETS APNs tokens to the gateway emulator
#    (`pushlab serve`). Per run, each process's CPU time (user + system from /proc/PID/stat;
#    redis-server's includes its reaped children, the AOF rewrites) ÷ TARGETS = its CPU µs per
#    delivery. The medians are the model's parameters: relay (SQLite), relay (Redis),
#    redis-server, emulator.
# 2. The model: one Redis core's ceiling = 1 / (redis-server CPU per delivery); N shards = N ×
#    that from the one-instance number (the arithmetic upper bound; the cluster ceiling from
#    per-master CPU and shares measured on a real N-master cluster is `CLUSTER=3
#    benchmarks/relay-cluster.sh`'s, in benchmarks/results/relay-redis-cluster.md); how many relay and emulator cores one Redis core feeds; and for a setup that puts
#    components on cores, the predicted deliveries/s = min over cores of (core share left to us)
#    ÷ (sum of the CPU per delivery of the components on that core).
# 3. Pinned runs (PIN_ROUNDS each): for every setup below, the processes pinned with `taskset`
#    to the two cores of CPUS; the run's deliveries/s against the prediction. The share of each
#    core left to us is measured in the same run from /proc/stat (the core's busy time minus our
#    processes' CPU time on it: other users of a shared machine, and steal): the prediction
#    "with the share left" uses it, the "full cores" one does not; within 20% is judged on the
#    first. On an idle machine the two are the same.
# Writes benchmarks/results/relay-capacity.md (date, machine, load, command, every raw run).
#
# Variables (defaults):
#   TARGETS=40000       targets per run (APNs tokens, in push requests of ≤ 10,000)
#   CAL_ROUNDS=3        calibration rounds (each: one SQLite run, one Redis run)
#   PIN_ROUNDS=1        runs per pinned setup
#   CONCURRENCY=64      workers.concurrency of the relay
#   CPUS="0 1"          the two cores the setups pin to (the first is "core A", the second "core B")
#   BIN=.build/release/pushlab   the pushlab binary
#   SKIP_BUILD=         set to 1 to skip `swift build -c release --product pushlab`
#   OUT=benchmarks/results/relay-capacity.md
#   PERF_DIR=           a directory: the calibration Redis runs are also recorded with `perf record
#                       -e cpu-clock -g` (redis-server and the relay, one file each per round) for
#                       `perf report -i DIR/redis-cal1.data`; perf's own cost lands in the numbers
# Examples:
#   benchmarks/relay-capacity.sh
#   SKIP_BUILD=1 TARGETS=20000 CAL_ROUNDS=1 benchmarks/relay-capacity.sh
set -euo pipefail
cd "$(dirname "$0")/.."
TARGETS=${TARGETS:-40000}
CAL_ROUNDS=${CAL_ROUNDS:-3}
PIN_ROUNDS=${PIN_ROUNDS:-1}
CONCURRENCY=${CONCURRENCY:-64}
read -r CPU_A CPU_B <<<"${CPUS:-0 1}"
[ -n "${CPU_A:-}" ] && [ -n "${CPU_B:-}" ] || { echo "relay-capacity.sh: CPUS must name two cores, e.g. CPUS=\"0 1\"" >&2; exit 2; }
BIN=${BIN:-.build/release/pushlab}
OUT=${OUT:-benchmarks/results/relay-capacity.md}
for tool in taskset redis-server redis-cli curl python3; do
  command -v "$tool" >/dev/null || { echo "relay-capacity.sh: $tool is not installed (scripts/bootstrap installs it)" >&2; exit 2; }
done
[ -n "${SKIP_BUILD:-}" ] || swift build -c release --product pushlab >/dev/null  # SKIP_BUILD=1 reuses $BIN
[ -x "$BIN" ] || { echo "relay-capacity.sh: no $BIN (build it with swift build -c release, or set BIN)" >&2; exit 2; }
source benchmarks/lib/scratch.sh TMP
source benchmarks/lib/listening.sh
source benchmarks/lib/runs.sh

# ticks_with_children PID → user + system time of PID and its reaped children (redis-server's
# AOF rewrites run in a forked child), in clock ticks.
ticks_with_children() { awk '{ print $14 + $15 + $16 + $17 }' "/proc/$1/stat"; }
# core_busy CPU → busy ticks of that core so far (user nice system irq softirq steal; /proc/stat).
core_busy() { awk -v c="cpu$1" '$1 == c { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
pin() { taskset -a -p -c "$1" "$2" >/dev/null; }  # pin CORES PID: every thread of PID
us() { awk -v t="$1" -v u="$TICK_US" -v n="$TARGETS" 'BEGIN { printf "%.1f", t * u / n }'; }

# Redis as a team would run it: AOF on, fsync once a second (docs/relay.md "Running several nodes").
REDIS_PORT=$(free_port)
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$TMP" --save '' --appendonly yes --appendfsync everysec \
  --daemonize no --logfile "$TMP/redis.log" &
REDIS_PID=$!; PIDS+=($REDIS_PID)
wait_for "$TMP/redis.log" "Ready to accept connections"
REDIS_URL="redis://127.0.0.1:$REDIS_PORT/0"
rcli() { redis-cli -p "$REDIS_PORT" "$@"; }

"$BIN" serve --apns-port 0 --port 0 --h2c-port 0 --quiet >"$TMP/serve.log" 2>&1 &
EMU_PID=$!; PIDS+=($EMU_PID)
wait_for "$TMP/serve.log" "^APNs: https://"
APNS_PORT=$(sed -n 's|^APNs: https://127.0.0.1:\([0-9]*\).*|\1|p' "$TMP/serve.log")

cat >"$TMP/relay.json" <<EOF
{"listen": {"port": 0},
 "workers": {"concurrency": $CONCURRENCY},
 "apps": {"demo": {"rate_per_minute": 100000000,
   "apns": {"key": "$PWD/certs/AuthKey_PLDEVKEY01.p8", "key_id": "PLDEVKEY01", "team_id": "PLDEVTEAM1",
            "bundle_id": "io.pushlab.demo", "url": "https://127.0.0.1:$APNS_PORT", "ca_file": "$PWD/certs/ca.pem"}}}}
EOF
SQLITE_KEY=$("$BIN" relay keys create --data "$TMP/data" --app demo 2>/dev/null)

# The push bodies: TARGETS distinct tokens, in requests of at most 10,000 (limits.max_targets).
python3 - "$TMP" "$TARGETS" <<'PY'
import json, sys
tmp, n = sys.argv[1], int(sys.argv[2])
tokens = ["%064x" % (0xC0000000 + i) for i in range(n)]
for part, start in enumerate(range(0, n, 10000)):
    body = {"apns": {"payload": {"aps": {"alert": "capacity"}}}, "apns_tokens": tokens[start:start + 10000]}
    open(f"{tmp}/body-{part}.json", "w").write(json.dumps(body))
PY

# run LABEL QUEUE RELAY_CORES REDIS_CORES EMU_CORES — one measured run: pins redis-server and the
# emulator, starts one relay on RELAY_CORES, posts every body, waits for the last final result
# and records deliveries/s, each component's CPU µs per delivery, and per core of CPUS the
# share of its time used by others (busy ticks minus ours, when each of our processes is
# pinned to one core).
run() {
  local label=$1 queue=$2 relay_cores=$3 redis_cores=$4 emu_cores=$5 key log
  rcli FLUSHALL >/dev/null
  rm -rf "$TMP/data/queue.sqlite"*
  pin "$redis_cores" "$REDIS_PID"
  pin "$emu_cores" "$EMU_PID"
  log=$(mktemp "$TMP/relay.XXXX")
  local queue_args=()
  if [ "$queue" = redis ]; then
    key=$("$BIN" relay keys create --queue "$REDIS_URL" --app demo 2>/dev/null)
    queue_args=(--queue "$REDIS_URL" --node n1)
  else
    key=$SQLITE_KEY
  fi
  taskset -c "$relay_cores" "$BIN" relay --config "$TMP/relay.json" --data "$TMP/data" --quiet ${queue_args[@]+"${queue_args[@]}"} >"$log" 2>&1 &
  local relay_pid=$!; PIDS+=($relay_pid)
  wait_for "$log" "relay: listening on http://"
  local url; url=$(sed -n 's|^relay: listening on \(http://[0-9.:]*\).*|\1|p' "$log")
  local r0 s0 e0 a0 b0 t0 t1
  [ "$queue" = redis ] && rcli CONFIG RESETSTAT >/dev/null
  r0=$(cpu_ticks "$relay_pid"); s0=$(ticks_with_children "$REDIS_PID"); e0=$(cpu_ticks "$EMU_PID")
  a0=$(core_busy "$CPU_A"); b0=$(core_busy "$CPU_B")
  local perf_pids=()
  if [ -n "${PERF_DIR:-}" ] && [ "$queue" = redis ] && [[ "$label" == calibration* ]]; then
    mkdir -p "$PERF_DIR"
    perf record -e cpu-clock -g -p "$REDIS_PID" -o "$PERF_DIR/redis-$ROUND.data" >/dev/null 2>&1 & perf_pids+=($!)
    perf record -e cpu-clock -g -p "$relay_pid" -o "$PERF_DIR/relay-$ROUND.data" >/dev/null 2>&1 & perf_pids+=($!)
    sleep 1  # perf attaches
  fi
  t0=$(date +%s%3N)
  local ids=() body id
  for body in "$TMP"/body-*.json; do
    ids+=("$(curl -sS --http2-prior-knowledge -X POST "$url/v1/apps/demo/pushes" -H "authorization: Bearer $key" \
      -H 'content-type: application/json' --data-binary "@$body" | sed -n 's/.*"id":"\([^"]*\)".*/\1/p')")
  done
  for id in "${ids[@]}"; do
    [ -n "$id" ] || { echo "relay-capacity.sh: a push was refused ($label):" >&2; cat "$log" >&2; exit 1; }
    until curl -sS --http2-prior-knowledge "$url/v1/pushes/$id?wait=30s&results=false" -H "authorization: Bearer $key" | grep -q '"finished":true'; do :; done
  done
  t1=$(date +%s%3N)
  local p; for p in ${perf_pids[@]+"${perf_pids[@]}"}; do kill -INT "$p"; wait "$p" || true; done
  local dr ds de da db
  dr=$(( $(cpu_ticks "$relay_pid") - r0 )); ds=$(( $(ticks_with_children "$REDIS_PID") - s0 )); de=$(( $(cpu_ticks "$EMU_PID") - e0 ))
  da=$(( $(core_busy "$CPU_A") - a0 )); db=$(( $(core_busy "$CPU_B") - b0 ))
  # Where redis-server's time went: its per-command counters (commands a script runs count
  # under their own names and inside the script's evalsha).
  [ "$queue" = redis ] && rcli INFO commandstats >"$TMP/commandstats-$ROUND-${label%%;*}.txt"
  kill "$relay_pid"; while kill -0 "$relay_pid" 2>/dev/null; do sleep 0.05; done
  local ms=$((t1 - t0))
  record "$label: deliveries/s" "$(awk -v n="$TARGETS" -v ms="$ms" 'BEGIN { printf "%.0f", n * 1000 / ms }')"
  record "$label: relay CPU µs/delivery" "$(us "$dr")"
  [ "$queue" = redis ] && record "$label: redis-server CPU µs/delivery" "$(us "$ds")"
  record "$label: emulator CPU µs/delivery" "$(us "$de")"
  # Others' share of each core: only when each of our processes sits on one core.
  if [[ "$relay_cores$redis_cores$emu_cores" != *,* ]]; then
    local ours_a=0 ours_b=0 wall_ticks
    wall_ticks=$(awk -v ms="$ms" -v u="$TICK_US" 'BEGIN { printf "%.0f", ms * 1000 / u }')
    [ "$relay_cores" = "$CPU_A" ] && ours_a=$((ours_a + dr)) || ours_b=$((ours_b + dr))
    if [ "$queue" = redis ]; then [ "$redis_cores" = "$CPU_A" ] && ours_a=$((ours_a + ds)) || ours_b=$((ours_b + ds)); fi
    [ "$emu_cores" = "$CPU_A" ] && ours_a=$((ours_a + de)) || ours_b=$((ours_b + de))
    record "$label: core A ours %" "$(awk -v o="$ours_a" -v w="$wall_ticks" 'BEGIN { printf "%.0f", 100 * o / w }')"
    record "$label: core A others %" "$(awk -v b="$da" -v o="$ours_a" -v w="$wall_ticks" 'BEGIN { x = 100 * (b - o) / w; if (x < 0) x = 0; if (x > 99) x = 99; printf "%.0f", x }')"
    record "$label: core B ours %" "$(awk -v o="$ours_b" -v w="$wall_ticks" 'BEGIN { printf "%.0f", 100 * o / w }')"
    record "$label: core B others %" "$(awk -v b="$db" -v o="$ours_b" -v w="$wall_ticks" 'BEGIN { x = 100 * (b - o) / w; if (x < 0) x = 0; if (x > 99) x = 99; printf "%.0f", x }')"
  fi
}

BOTH="$CPU_A,$CPU_B"
# The pinned setups: label, queue, relay core, redis-server core, emulator core (A or B).
SETUPS=(
  "SQLite; A: relay, B: emulator;sqlite;A;A;B"
  "SQLite; A: relay + emulator (one core);sqlite;A;A;A"
  "Redis; A: relay, B: redis-server + emulator;redis;A;B;B"
  "Redis; A: relay + emulator, B: redis-server;redis;A;B;A"
  "Redis; A: relay + redis-server, B: emulator;redis;A;A;B"
  "Redis; A: relay + redis-server + emulator (one core);redis;A;A;A"
)
core() { [ "$1" = A ] && echo "$CPU_A" || echo "$CPU_B"; }

for round in $(seq "$CAL_ROUNDS"); do
  ROUND=cal$round
  echo "relay-capacity.sh: calibration round $round" >&2
  run "calibration SQLite" sqlite "$BOTH" "$BOTH" "$BOTH"
  run "calibration Redis" redis "$BOTH" "$BOTH" "$BOTH"
done
for round in $(seq "$PIN_ROUNDS"); do
  ROUND=pin$round
  for setup in "${SETUPS[@]}"; do
    IFS=';' read -r q1 q2 queue rc sc ec <<<"$setup"; label="$q1;$q2"
    echo "relay-capacity.sh: $label" >&2
    run "$label" "$queue" "$(core "$rc")" "$(core "$sc")" "$(core "$ec")"
  done
done

m() { median "$1"; }
RELAY_SQLITE=$(m "calibration SQLite: relay CPU µs/delivery")
EMU_SQLITE=$(m "calibration SQLite: emulator CPU µs/delivery")
RELAY_REDIS=$(m "calibration Redis: relay CPU µs/delivery")
REDIS_US=$(m "calibration Redis: redis-server CPU µs/delivery")
EMU_REDIS=$(m "calibration Redis: emulator CPU µs/delivery")
calc() { awk "BEGIN { $1 }"; }
# predict QUEUE RC SC EC [SHARE_A SHARE_B] → predicted deliveries/s: min over the two cores of
# share ÷ (sum of the µs per delivery of what runs there) × 10^6.
predict() {
  local queue=$1 rc=$2 sc=$3 ec=$4 share_a=${5:-1} share_b=${6:-1}
  local relay emu redis=0
  if [ "$queue" = redis ]; then relay=$RELAY_REDIS; emu=$EMU_REDIS; redis=$REDIS_US; else relay=$RELAY_SQLITE; emu=$EMU_SQLITE; fi
  calc "a = 0; b = 0;
    if (\"$rc\" == \"A\") a += $relay; else b += $relay;
    if (\"$sc\" == \"A\") a += $redis; else b += $redis;
    if (\"$ec\" == \"A\") a += $emu; else b += $emu;
    ca = a > 0 ? $share_a * 1e6 / a : 1e18; cb = b > 0 ? $share_b * 1e6 / b : 1e18;
    printf \"%.0f\", (ca < cb ? ca : cb)"
}

{
  echo "# Relay capacity model: CPU per delivery per component, ceilings, pinned runs"
  echo
  echo "Written by \`benchmarks/relay-capacity.sh\` (issue 37 item 3). Every raw run is below; medians, the model and the predictions are computed by the script."
  echo
  machine_lines
  echo "- binary: \`$BIN\`$( [[ "$BIN" == *debug* ]] && echo ' — a **debug build**: CPU numbers are several times those of a release build; this run only shows the script works')"
  echo "- command: \`TARGETS=$TARGETS CAL_ROUNDS=$CAL_ROUNDS PIN_ROUNDS=$PIN_ROUNDS CONCURRENCY=$CONCURRENCY CPUS=\"$CPU_A $CPU_B\" BIN=$BIN benchmarks/relay-capacity.sh\`"
  echo "- setup: redis-server $(redis-server --version | sed -n 's/.*v=\([0-9.]*\).*/\1/p') (AOF, appendfsync everysec), \`pushlab serve\` as APNs, one \`pushlab relay\` (workers.concurrency $CONCURRENCY) per run, on SQLite or on Redis (\`--queue\`); each run posts $TARGETS APNs tokens (requests of ≤ 10,000) and waits for the last final result; Redis flushed and the relay restarted between runs."
  echo "- deliveries/s: targets ÷ (last final result − first POST). CPU µs/delivery: the process's user + system time during the run ÷ targets (redis-server's with its reaped children: AOF rewrites). Clock ticks are $TICK_US µs: ±$(us 1) µs per delivery at $TARGETS targets."
  echo
  echo "## The model's parameters (calibration, every process free on cores $CPU_A and $CPU_B; medians of $CAL_ROUNDS)"
  echo
  echo "| component | CPU µs per delivery |"
  echo "| --- | ---: |"
  echo "| relay on SQLite | $RELAY_SQLITE |"
  echo "| relay on Redis | $RELAY_REDIS |"
  echo "| redis-server (one instance) | $REDIS_US |"
  echo "| emulator (\`pushlab serve\`), SQLite runs | $EMU_SQLITE |"
  echo "| emulator (\`pushlab serve\`), Redis runs | $EMU_REDIS |"
  echo
  echo "Calibration deliveries/s (medians, unpinned): SQLite $(m "calibration SQLite: deliveries/s"), Redis $(m "calibration Redis: deliveries/s") — Redis ÷ SQLite $(ratio "$(m "calibration Redis: deliveries/s")" "$(m "calibration SQLite: deliveries/s")")× (issue 37 target ≥ 0.9×); relay CPU Redis ÷ SQLite $(ratio "$RELAY_REDIS" "$RELAY_SQLITE")× (target ≤ 1.2×)."
  echo
  echo "## Ceilings"
  echo
  one=$(calc "printf \"%.0f\", 1e6 / $REDIS_US")
  echo "- One Redis core (one instance, one shard): 10^6 ÷ $REDIS_US µs = **$one deliveries/s**."
  echo "- N shards: N × $one (3 shards: $(calc "printf \"%.0f\", 3e6 / $REDIS_US")), taking each shard's CPU per delivery as the one instance's and the pushes as evenly spread: an upper bound, arithmetic only. The ceiling from per-master CPU and shares measured on a real cluster is in [relay-redis-cluster.md](relay-redis-cluster.md) (\`CLUSTER=3 benchmarks/relay-cluster.sh\`, \"Cluster ceiling\"). The budget buckets, API keys and provider tokens live on the shard of their key and are not in this number."
  echo "- What one Redis core feeds at its ceiling: $(calc "printf \"%.1f\", $RELAY_REDIS / $REDIS_US") relay cores ($RELAY_REDIS ÷ $REDIS_US) and $(calc "printf \"%.1f\", $EMU_REDIS / $REDIS_US") emulator cores ($EMU_REDIS ÷ $REDIS_US; a real APNs/FCM is not on your cores)."
  echo "- Per 10,000 deliveries/s: $(calc "printf \"%.2f\", $RELAY_REDIS / 100") relay cores on Redis and $(calc "printf \"%.2f\", $REDIS_US / 100") Redis cores; $(calc "printf \"%.2f\", $RELAY_SQLITE / 100") relay cores on SQLite."
  echo
  if [ "$PIN_ROUNDS" -gt 0 ]; then
  echo "## Pinned runs against the model"
  echo
  echo "Core A = cpu$CPU_A, core B = cpu$CPU_B. Predicted deliveries/s = min over the cores of (share of the core left to us) × 10^6 ÷ (sum of the calibration µs per delivery of the components on it). \"Share left\" = 1 − the core's busy time not spent by our processes (others on the shared machine, steal), measured in the same run; \"full cores\" assumes all of both. Within 20% is judged against the prediction with the share left. Medians of $PIN_ROUNDS run(s)."
  echo
  echo "| setup | predicted, full cores | core A / B left to us | predicted, share left | measured | measured ÷ predicted | within 20% | core A / B busy with ours | relay / redis-server / emulator µs per delivery in this run |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | :---: | ---: | ---: |"
  for setup in "${SETUPS[@]}"; do
    IFS=';' read -r q1 q2 queue rc sc ec <<<"$setup"; label="$q1;$q2"
    oa=$(m "$label: core A others %"); ob=$(m "$label: core B others %")
    sa=$(calc "printf \"%.2f\", 1 - $oa / 100"); sb=$(calc "printf \"%.2f\", 1 - $ob / 100")
    full=$(predict "$queue" "$rc" "$sc" "$ec")
    left=$(predict "$queue" "$rc" "$sc" "$ec" "$sa" "$sb")
    got=$(m "$label: deliveries/s")
    r=$(ratio "$got" "$left")
    ok=$(calc "d = $r - 1; if (d < 0) d = -d; print (d <= 0.2 ? \"yes\" : \"**no**\")")
    redis_here=$(m "$label: redis-server CPU µs/delivery")
    echo "| $label | $full | $sa / $sb | $left | $got | $r | $ok | $(m "$label: core A ours %")% / $(m "$label: core B ours %")% | $(m "$label: relay CPU µs/delivery") / ${redis_here/n\/a/–} / $(m "$label: emulator CPU µs/delivery") |"
  done
  echo
  declare -A best=([sqlite]=0 [redis]=0) best_label=()
  for setup in "${SETUPS[@]}"; do
    IFS=';' read -r q1 q2 queue _ <<<"$setup"; label="$q1;$q2"
    v=$(m "$label: deliveries/s")
    if awk -v a="$v" -v b="${best[$queue]}" 'BEGIN { exit !(a > b) }'; then best[$queue]=$v; best_label[$queue]=$label; fi
  done
  echo "- Redis 1 node ÷ SQLite 1 node, each in its fastest pinned setup on these 2 cores: ${best[redis]} (\"${best_label[redis]:-}\") ÷ ${best[sqlite]} (\"${best_label[sqlite]:-}\") = $(ratio "${best[redis]}" "${best[sqlite]}")× (issue 37 target ≥ 0.9×)."
  echo
  fi
  echo "## Where redis-server's time goes (INFO commandstats, last calibration round)"
  echo
  echo "Redis's own accounting of command time (it leaves out reading requests, writing replies and the AOF, which are the rest of the CPU above). A script's EVALSHA time includes the commands it runs, which are also counted under their own names."
  echo
  echo "| command | calls per 1,000 deliveries | µs per call | µs per delivery |"
  echo "| --- | ---: | ---: | ---: |"
  tr -d '\r' <"$TMP/commandstats-cal$CAL_ROUNDS-calibration Redis.txt" | awk -F'[:,=]' -v n="$TARGETS" '/^cmdstat_/ {
      sub(/^cmdstat_/, "", $1); printf "%s\t%.1f\t%.2f\t%.2f\n", $1, 1000 * $3 / n, $7, $5 / n }' | sort -t$'\t' -k4 -g -r |
    awk -F'\t' '{ printf "| %s | %s | %s | %s |\n", $1, $2, $3, $4 }'
  echo
  echo "## Raw runs"
  echo
  raw_table
} >"$OUT"
cat "$OUT"
