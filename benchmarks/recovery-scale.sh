#!/usr/bin/env bash
# App Group recovery at scale (issue 23 item 3): `pushlab simulate` with N pushes (default
# 100,000) and the `sqlite` store, the store that promises to lose nothing (docs/recovery.md),
# over the default fleet of 100 phones with kills, failed metric requests and 4 launches.
# Exits 1 if any metric is lost or dropped by the store's cap, or if the counts do not add up
# (every push sent, accepted and run by an extension; delivered live + recovered + lost =
# extension runs). Too slow for `make test` in a debug build, so it is a benchmark-style check.
# Writes benchmarks/results/recovery-scale.md: date, machine, load, command, the counts, wall
# time and peak RSS (GNU time).
#   benchmarks/recovery-scale.sh                                  # release build, 100,000 pushes
#   CONFIG=debug SKIP_BUILD=1 N=2000 benchmarks/recovery-scale.sh  # check the script
#   BIN=/path/to/pushlab SKIP_BUILD=1 N=20000 benchmarks/recovery-scale.sh
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-100000}
CONFIG=${CONFIG:-release}
BIN=${BIN:-.build/$CONFIG/pushlab}
OUT=${OUT:-benchmarks/results/recovery-scale.md}
ARGS=(simulate --pushes "$N" --app-group sqlite --seed 42 --kill-rate 0.2 --kill-stage mixed --metric-failure-rate 0.05 --launches 4 --json)
[ -n "${SKIP_BUILD:-}" ] || swift build -c "$CONFIG" --product pushlab >/dev/null  # SKIP_BUILD=1 reuses the current binary
source benchmarks/lib/scratch.sh TMP
source benchmarks/lib/runs.sh

echo "recovery-scale.sh: $BIN ${ARGS[*]}"
status=0
/usr/bin/time -v "$BIN" "${ARGS[@]}" >"$TMP/result.json" 2>"$TMP/time.txt" || status=$?
if [ "$status" -ne 0 ]; then
  echo "recovery-scale.sh: pushlab simulate exited $status" >&2
  cat "$TMP/time.txt" >&2
  exit 1
fi
WALL=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; printf "%.1f", s }' "$TMP/time.txt")
CPU=$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { printf "%.1f", u + s }' "$TMP/time.txt")
RSS=$(awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$TMP/time.txt")

# The counts and the verdict; one line per failed check.
python3 - "$TMP/result.json" "$N" >"$TMP/check.md" <<'PY' || status=$?
import json, sys
result = json.load(open(sys.argv[1]))["results"][0]
n = int(sys.argv[2])
keys = ["sent", "accepted", "extensionRan", "killed", "expired", "deliveredLive", "recoveredAtLaunch", "lost", "duplicates", "droppedByCap", "recoveryRatio"]
print("| " + " | ".join(keys) + " |")
print("|" + "---:|" * len(keys))
print("| " + " | ".join(str(result[k]) for k in keys) + " |")
print()
failures = []
if result["parameters"]["store"] != "sqlite": failures.append("the run did not use the sqlite store")
for k in ("sent", "accepted", "extensionRan"):
    if result[k] != n: failures.append(f"{k} is {result[k]}, not {n}")
if result["lost"] != 0: failures.append(f"{result['lost']} metrics lost")
if result["droppedByCap"] != 0: failures.append(f"{result['droppedByCap']} rows dropped by the store's cap")
total = result["deliveredLive"] + result["recoveredAtLaunch"] + result["lost"]
if total != result["extensionRan"]:
    failures.append(f"delivered live {result['deliveredLive']} + recovered {result['recoveredAtLaunch']} + lost {result['lost']} = {total}, not the {result['extensionRan']} extension runs")
if result["recoveredAtLaunch"] == 0: failures.append("nothing was recovered at launch: the run did not exercise recovery")
if failures:
    print("**FAILED**: " + "; ".join(failures))
    sys.exit(1)
print(f"**passed**: all {n} pushes ran, {result['recoveredAtLaunch']} metrics came back at launch, none lost, none dropped by the cap")
PY
{
  echo "# App Group recovery at scale: the sqlite store"
  echo
  machine_lines
  echo "- command: \`$BIN ${ARGS[*]}\` ($CONFIG build; 100 phones, one extension at a time per phone, 4 launches)"
  echo "- wall time **$WALL s**, CPU $CPU s (user + system), peak RSS **$RSS MiB** (GNU time)"
  echo
  cat "$TMP/check.md"
  echo
  echo "Written by \`benchmarks/recovery-scale.sh\` (N=$N), which exits 1 when a metric is lost, a row is"
  echo "dropped by the store's cap or the counts do not add up."
} >"$OUT"
cat "$OUT"
exit "$status"
