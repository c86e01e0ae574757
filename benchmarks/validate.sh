#!/usr/bin/env bash
# Validation throughput on the payloads/ corpus, on one core, with peak memory.
# pushlab: parse + full rule catalog, and parse only (`pushlab validate --repeat N`).
# Reference (parse only, NOT a validator): CPython's json.loads on the same bytes, same rounds.
# Writes benchmarks/results/validate.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-2000}
BIN=.build/release/pushlab
OUT=benchmarks/results/validate.md
[ -x "$BIN" ] || swift build -c release --product pushlab >/dev/null

# The corpus: every good sample and every invalid sample (one per rule).
mapfile -t FILES < <(ls payloads/apns/*.json payloads/fcm/*.json payloads/simulator/*.apns; ls payloads/invalid/* | grep -v expected.json)
GOOD=(payloads/apns/*.json payloads/fcm/*.json payloads/simulator/*.apns)
PY=python3

run_pushlab() {  # $1 label, rest: files
  local label=$1; shift
  local err; err=$(mktemp)
  /usr/bin/time -v taskset -c 0 "$BIN" validate --repeat "$ROUNDS" "$@" >/dev/null 2>"$err" || true
  local v p rss
  v=$(sed -n 's/.*bench: validate .* → \([0-9]*\) payloads\/s.*/\1/p' "$err")
  p=$(sed -n 's/.*bench: parse-only .* → \([0-9]*\) payloads\/s.*/\1/p' "$err")
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): \([0-9]*\).*/\1/p' "$err")
  echo "$label $v $p $rss"
  rm -f "$err"
}

run_python() {  # parse-only reference: json.loads over the same bytes, same rounds
  local err; err=$(mktemp)
  /usr/bin/time -v taskset -c 0 "$PY" - "$ROUNDS" "$@" >"$err.out" 2>"$err" <<'PYEOF' || true
import json, sys, time
rounds = int(sys.argv[1]); blobs = [open(f, "rb").read() for f in sys.argv[2:]]
ok = 0
t = time.perf_counter()
for _ in range(rounds):
    for b in blobs:
        try:
            json.loads(b); ok += 1
        except Exception:
            pass
dt = time.perf_counter() - t
print(int(rounds * len(blobs) / dt))
PYEOF
  echo "$(cat "$err.out") $(sed -n 's/.*Maximum resident set size (kbytes): \([0-9]*\).*/\1/p' "$err")"
  rm -f "$err" "$err.out"
}

# The machine is shared: every measurement runs 3 times, interleaved; the median is reported
# and every run is kept beside it (in the order they ran).
median() { printf '%s\n' "$@" | sort -n | sed -n 2p; }
spread() { printf '%s\n' "$@" | paste -sd' ' | sed 's/ /, /g'; }
declare -a AV AP GV GP PA PG
for i in 1 2 3; do
  read -r _ v p ALLRSS < <(run_pushlab all "${FILES[@]}"); AV+=("$v"); AP+=("$p")
  read -r _ v p GOODRSS < <(run_pushlab good "${GOOD[@]}"); GV+=("$v"); GP+=("$p")
  read -r v PYRSS < <(run_python "${FILES[@]}"); PA+=("$v")
  read -r v _ < <(run_python "${GOOD[@]}"); PG+=("$v")
done
BASERSS=$(/usr/bin/time -v "$BIN" --version 2>&1 >/dev/null | sed -n 's/.*Maximum resident set size (kbytes): \([0-9]*\).*/\1/p')
ALLV=$(median "${AV[@]}"); ALLP=$(median "${AP[@]}"); GOODV=$(median "${GV[@]}"); GOODP=$(median "${GP[@]}")
PYALL=$(median "${PA[@]}"); PYGOOD=$(median "${PG[@]}")
BYTES=$(cat "${FILES[@]}" | wc -c)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

{
  echo "# Validation throughput"
  echo
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "- machine: $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo) RAM"
  echo "- load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (the machine is shared with other jobs; single runs vary by 2× or more, hence 3 interleaved runs and the median)"
  echo "- tools: $(swift --version 2>&1 | head -1); $($PY --version 2>&1)"
  echo "- corpus: ${#FILES[@]} files from payloads/ (${#GOOD[@]} good samples + one invalid sample per rule), $BYTES bytes; $ROUNDS rounds"
  echo "- pinned to one core with \`taskset -c 0\`; peak memory is the maximum RSS from \`/usr/bin/time -v\`"
  echo
  echo "Commands:"
  echo
  echo '```'
  echo "taskset -c 0 $BIN validate --repeat $ROUNDS <corpus>      # prints validate and parse-only rates to stderr"
  echo "taskset -c 0 $PY -c 'json.loads over the same bytes, same rounds'   # see benchmarks/validate.sh"
  echo '```'
  echo
  echo "| what | corpus | payloads/s (1 core, median of 3) | the 3 runs | peak RSS |"
  echo "| --- | --- | ---: | --- | ---: |"
  echo "| pushlab: parse + all $(.build/release/pushlab validate --rules | tail -1 | cut -d' ' -f1) rules | all ${#FILES[@]} files | $ALLV | $(spread "${AV[@]}") | $ALLRSS KiB |"
  echo "| pushlab: parse + all rules | ${#GOOD[@]} good samples | $GOODV | $(spread "${GV[@]}") | $GOODRSS KiB |"
  echo "| pushlab: parse only | all | $ALLP | $(spread "${AP[@]}") | (same process) |"
  echo "| pushlab: parse only | good | $GOODP | $(spread "${GP[@]}") | (same process) |"
  echo "| reference, parse only: CPython json.loads | all | $PYALL | $(spread "${PA[@]}") | $PYRSS KiB |"
  echo "| reference, parse only: CPython json.loads | good | $PYGOOD | $(spread "${PG[@]}") | |"
  echo "| baseline: \`pushlab --version\` (runtime + Foundation, no work) | | | | $BASERSS KiB |"
  echo
  echo "Ratios from this run: pushlab parse-only / json.loads = $(ratio "$ALLP" "$PYALL") (all), $(ratio "$GOODP" "$PYGOOD") (good);"
  echo "pushlab full validation / json.loads parse-only = $(ratio "$ALLV" "$PYALL") (all), $(ratio "$GOODV" "$PYGOOD") (good)."
  echo
  echo "json.loads is a parse-only reference, not a peer validator: it keeps no positions, key order"
  echo "duplicates or number literals and checks no rules. The target is ≥ 50,000 payloads/s for full"
  echo "validation on one core."
} > "$OUT"
cat "$OUT"
