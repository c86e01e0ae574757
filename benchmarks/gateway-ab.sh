#!/usr/bin/env bash
# Gateway A/B: the CPU per request of two pushlab builds under the same load, in one run,
# interleaved — so a slower (or faster) machine moves both sides alike. Used to tell a code
# regression from machine drift when benchmarks/results/gateway.md moves between dates.
#   BASE=<commit> benchmarks/gateway-ab.sh          builds BASE's release binary in a worktree
#   OLD_BIN=path/to/pushlab benchmarks/gateway-ab.sh  compares with a binary you built
# Load: h2load -n $N -c 4 -m 100 on one event loop, APNs h2c, valid ES256 token (as gateway.sh).
# Writes benchmarks/results/gateway-ab.md.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-200000}
ROUNDS=${ROUNDS:-3}
NEW_BIN=${NEW_BIN:-.build/release/pushlab}
source benchmarks/lib/ab.sh
source benchmarks/lib/scratch.sh TMP  # a failed round leaves no server behind
T=$TMP
source benchmarks/lib/runs.sh
JWT=$(.venv/bin/python - <<'PY'
import jwt, time
key = open("certs/AuthKey_PLDEVKEY01.p8").read()
print(jwt.encode({"iss": "PLDEVTEAM1", "iat": int(time.time())}, key, algorithm="ES256", headers={"kid": "PLDEVKEY01"}))
PY
)
printf '{"aps":{"alert":{"title":"hi","body":"there"}},"CIO-Delivery-ID":"abc"}' >"$T/body.json"
TOKEN=$(printf '%064x' 7)
TICK_US=$((1000000 / $(getconf CLK_TCK)))
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
load() { h2load -n "$1" -c 4 -m 100 -d "$T/body.json" -H "authorization: bearer $JWT" -H "apns-topic: io.pushlab.demo" \
           -H "apns-push-type: alert" "http://127.0.0.1:$2/3/device/$TOKEN"; }
one() {  # binary label
  local bin=$1 label=$2
  local log=$T/$label.log
  : >"$log"  # before the fork: otherwise the wait below can read the previous round's port
  "$bin" serve --event-loops 1 --port 0 --h2c-port 0 --apns-port 0 --apns-h2c-port 0 --quiet >"$log" 2>&1 & local pid=$!; PIDS+=($pid)
  for _ in $(seq 200); do grep -q "quick start" "$log" && break; sleep 0.05; done
  local port; port=$(grep -o "APNs: http://127.0.0.1:[0-9]*" "$log" | grep -o "[0-9]*$" || true)
  [ -n "$port" ] || { cat "$log"; echo "gateway-ab.sh: $label ($bin) did not start within 10 s" >&2; exit 1; }
  load 20000 "$port" >/dev/null  # warm-up: connections authenticated, caches filled
  local before after out
  before=$(ticks "$pid"); out=$(load "$N" "$port"); after=$(ticks "$pid")
  record "$label req/s" "$(awk '/^finished in/ { gsub(",", "", $4); print $4 }' <<<"$out")"
  record "$label cpu µs/request" "$(awk -v t=$((after - before)) -v u="$TICK_US" -v n="$N" 'BEGIN { printf "%.2f", t * u / n }')"
  kill "$pid"; wait "$pid" 2>/dev/null || true
}
for ROUND in $(seq "$ROUNDS"); do
  echo "gateway-ab.sh: round $ROUND" >&2
  one "$OLD_BIN" old
  one "$NEW_BIN" new
done
{
  echo "# Gateway A/B: two builds, one run"
  echo
  machine_lines
  echo "- old: \`$OLD_BIN\`${BASE:+ (commit $BASE)}; new: \`$NEW_BIN\` (commit $(git rev-parse --short HEAD))"
  echo "- load: \`h2load -n $N -c 4 -m 100\` against \`pushlab serve --event-loops 1 --apns-h2c-port 0 --quiet\` (APNs h2c, valid ES256 token), after a 20,000-request warm-up; old and new interleaved, $ROUNDS rounds"
  echo "- cpu µs/request: the server process's user+system time from /proc/PID/stat divided by the requests"
  echo
  echo "| measure | old (median) | new (median) | new ÷ old |"
  echo "| --- | ---: | ---: | ---: |"
  for m in "req/s" "cpu µs/request"; do
    o=$(median "old $m"); n=$(median "new $m")
    echo "| $m | $o | $n | $(ratio "$n" "$o") |"
  done
  echo
  echo "Every run:"
  echo
  raw_table
} >benchmarks/results/gateway-ab.md
echo "gateway-ab.sh: wrote benchmarks/results/gateway-ab.md" >&2
