#!/usr/bin/env bash
# Live Activity broadcast fan-out in the emulator (issue 20): one broadcast (pushlab's channel
# client → the gateway over HTTP/2 + TLS) to ACTIVITIES subscribed virtual activities, one per
# virtual iPhone. Measures the time from sending the broadcast until every activity has applied it
# (target ≤ 2 s on 2 cores) and the resident memory each subscribed activity adds (target ≤ 2 KB).
# No peer runs a channel fan-out on Linux, so the results compare against those targets.
# Writes benchmarks/results/live-activities.md.
#
#   ACTIVITIES=100000 RUNS=5 [SKIP_BUILD=1] [CONFIG=debug] benchmarks/live-activities.sh
set -euo pipefail
export PUSHLAB_BENCH=1  # the pushlab-bench-* drivers exist only then (Package.swift)
cd "$(dirname "$0")/.."
ACTIVITIES=${ACTIVITIES:-100000}
RUNS=${RUNS:-5}
OUT=benchmarks/results/live-activities.md
LOAD=$(cut -d' ' -f1-3 /proc/loadavg)

CONFIG=${CONFIG:-release}  # CONFIG=debug only to check the script on a busy machine: not a measurement to compare
[ -n "${SKIP_BUILD:-}" ] || swift build -c "$CONFIG" --product pushlab-bench-live >/dev/null  # SKIP_BUILD=1 reuses the current binary
BENCH=.build/$CONFIG/pushlab-bench-live
CMD="$BENCH \"\$PWD\" $ACTIVITIES $RUNS"
RAW=$("$BENCH" "$PWD" "$ACTIVITIES" "$RUNS")

median() { sort -n | awk '{a[NR]=$1} END {if (NR % 2) printf "%.1f", a[(NR+1)/2]; else printf "%.1f", (a[NR/2]+a[NR/2+1])/2}'; }
field() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p"; }
ALL=$(field all_applied_ms <<<"$RAW" | median)
ACC=$(field accepted_ms <<<"$RAW" | median)
BYTES=$(field bytes_per_activity <<<"$RAW" | head -1)
RATIO_TIME=$(awk -v a="$ALL" 'BEGIN {printf "%.2f", a / 2000}')
RATIO_MEM=$(awk -v b="$BYTES" 'BEGIN {printf "%.2f", b / 2048}')

{
  echo "# Live Activity broadcast fan-out"
  echo
  echo "Written by \`benchmarks/live-activities.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC')."
  echo
  echo "- machine: $(nproc) cores, $(uname -srm)"
  echo "- load average at start: $LOAD"
  echo "- build: $CONFIG"
  echo "- command: \`ACTIVITIES=$ACTIVITIES RUNS=$RUNS CONFIG=$CONFIG benchmarks/live-activities.sh\` (runs \`$CMD\`)"
  echo "- what: one broadcast per run, sent by pushlab's channel client to the gateway emulator over HTTP/2 + TLS,"
  echo "  applied by $ACTIVITIES virtual activities (one per virtual iPhone) subscribed to one No-Storage channel"
  echo
  echo "| measure | median | target | ratio to target |"
  echo "| --- | --- | --- | --- |"
  echo "| broadcast sent → all $ACTIVITIES applied | $ALL ms | ≤ 2000 ms | $RATIO_TIME |"
  echo "| broadcast sent → 200 from the emulator | $ACC ms | | |"
  echo "| resident memory per subscribed activity | $BYTES bytes | ≤ 2048 bytes | $RATIO_MEM |"
  echo
  echo "Every raw run:"
  echo
  echo '```'
  echo "$RAW"
  echo '```'
} >"$OUT"
cat "$OUT"
