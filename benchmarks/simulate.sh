#!/usr/bin/env bash
# The delivery-metric experiment at scale (issue 10): `pushlab simulate` with 10,000 pushes and
# --compare (off, cio, sqlite on the same seed), its wall time and peak memory (GNU time).
# Writes benchmarks/results/simulate.md.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-10000}
ARGS=(--pushes "$N" --compare --seed 42 --kill-rate 0.2 --kill-stage mixed --metric-failure-rate 0.05 --launches 4)
OUT=benchmarks/results/simulate.md
BIN=.build/release/pushlab
[ -n "${SKIP_BUILD:-}" ] || swift build -c release --product pushlab >/dev/null  # SKIP_BUILD=1 reuses the current release binary
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
/usr/bin/time -v "$BIN" simulate "${ARGS[@]}" >"$TMP/table.md" 2>"$TMP/time.txt"
WALL=$(awk -F': ' '/Elapsed \(wall clock\)/ { print $2 }' "$TMP/time.txt")
RSS=$(awk -F': ' '/Maximum resident set size/ { printf "%.1f MiB", $2 / 1024 }' "$TMP/time.txt")
CPU=$(awk -F': ' '/Percent of CPU/ { print $2 }' "$TMP/time.txt")
{
  echo "# pushlab simulate at scale"
  echo
  echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "- machine: $(nproc) cores, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), $(free -g | awk '/Mem:/ { print $2 }') GiB RAM; load average at start: $LOAD"
  echo "- command: \`$BIN simulate ${ARGS[*]}\` (release build, default time scale 20×, 30-s budget, 64 pushes in flight)"
  echo "- wall time for all three stores ($((N * 3)) pushes): **$WALL** (GNU time), CPU $CPU; peak RSS **$RSS**"
  echo "- target (issue 10): 10,000 pushes in ≤ 60 s on this 2-core machine"
  echo
  echo "## The table"
  echo
  cat "$TMP/table.md"
} >"$OUT"
cat "$OUT"
