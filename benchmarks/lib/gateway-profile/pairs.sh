#!/usr/bin/env bash
# Two builds' `serve --bench --event-loops 1` under one KIND of load in pairs: A then B, B then A
# on even pairs; server CPU µs per request from `perf stat -e task-clock` over N requests
# (CONNS=1: `h2load -c 1`, as session 19 ran it). One line a pair: A, B, B − A.
#   CONNS=1 benchmarks/lib/gateway-profile/pairs.sh A_BIN B_BIN PAIRS KIND [N]
set -euo pipefail
A=$1; B=$2; PAIRS=$3; KIND=$4; N=${5:-50000}
source "$(dirname "$0")/common.sh"
start_server "$A" 1 A; start_server "$B" 1 B
AT_A=$(access_token "$G_A"); AT_B=$(access_token "$G_B")
load "$KIND" A 20000 "$AT_A"; load "$KIND" B 20000 "$AT_B"
cpu() {  # LABEL → µs per request
  local pid=PID_$1 at=AT_$1 p
  perf stat -e task-clock -x, -p "${!pid}" -o "$T/stat.$1" &
  p=$!; sleep 0.3
  load "$KIND" "$1" "$N" "${!at}"
  kill -INT $p; wait $p || true
  awk -F, -v n="$N" '/task-clock/ { printf "%.3f", $1 * 1000 / n }' "$T/stat.$1"
}
echo "start $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$PAIRS"); do
  if [ $((i % 2)) = 1 ]; then a=$(cpu A); b=$(cpu B); else b=$(cpu B); a=$(cpu A); fi
  echo "$a $b $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%+.3f", b - a }')"
done
echo "end $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
