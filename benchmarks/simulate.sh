#!/usr/bin/env bash
# The delivery-metric experiment at scale (issue 10): `pushlab simulate` with 10,000 pushes and
# --compare (off, cio, sqlite on the same seed), its wall time and peak memory (GNU time),
# ROUNDS times (default 3). Every run is written to the results file with its wall time, CPU
# and peak RSS; the summary shows the medians. The same seed must give the same table every
# run, and the script checks it. Writes benchmarks/results/simulate.md.
# Small check: N=500 ROUNDS=2 benchmarks/simulate.sh
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-10000}
ROUNDS=${ROUNDS:-3}
ARGS=(--pushes "$N" --compare --seed 42 --kill-rate 0.2 --kill-stage mixed --metric-failure-rate 0.05 --launches 4)
OUT=benchmarks/results/simulate.md
BIN=.build/release/pushlab
[ -n "${SKIP_BUILD:-}" ] || swift build -c release --product pushlab >/dev/null  # SKIP_BUILD=1 reuses the current release binary
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# record, median, machine_lines, raw_table (every run kept).
source benchmarks/lib/runs.sh

# The table without its wall-clock parts: the last column of each row and the wall-time line.
counts() { grep -v '^wall time' "$1" | sed 's/| [^|]* |$/|/'; }
SAME=yes
for ROUND in $(seq "$ROUNDS"); do
  echo "simulate.sh: round $ROUND/$ROUNDS"
  /usr/bin/time -v "$BIN" simulate "${ARGS[@]}" >"$TMP/table-$ROUND.md" 2>"$TMP/time.txt"
  # GNU time prints h:mm:ss or m:ss.ss; convert to seconds.
  record "wall seconds" "$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; printf "%.2f", s }' "$TMP/time.txt")"
  record "CPU percent" "$(awk -F': ' '/Percent of CPU/ { sub("%", "", $2); print $2 }' "$TMP/time.txt")"
  record "peak RSS MiB" "$(awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$TMP/time.txt")"
  # The counts must repeat; the wall-clock columns (time to metric, total wall time) may not.
  counts "$TMP/table-$ROUND.md" >"$TMP/counts-$ROUND.txt"
  cmp -s "$TMP/counts-1.txt" "$TMP/counts-$ROUND.txt" || SAME="NO (round $ROUND's counts differ from round 1's)"
done
{
  echo "# pushlab simulate at scale"
  echo
  machine_lines
  echo "- command: \`$BIN simulate ${ARGS[*]}\` (release build, default time scale 20×, 30-s budget, 64 pushes in flight), $ROUNDS runs"
  echo "- wall time for all three stores ($((N * 3)) pushes), median of $ROUNDS runs: **$(median "wall seconds") s** (GNU time), CPU $(median "CPU percent")%; peak RSS **$(median "peak RSS MiB") MiB**"
  echo "- the same seed gave the same counts in every run (the wall-clock columns aside): **$SAME**"
  echo "- target (issue 10): 10,000 pushes in ≤ 60 s on this 2-core machine"
  echo
  echo "## Every run"
  echo
  raw_table
  echo
  echo "## The table (round 1)"
  echo
  cat "$TMP/table-1.md"
} >"$OUT"
cat "$OUT"
