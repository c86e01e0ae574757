#!/usr/bin/env bash
# benchmarks/emulator-clients.sh — issue 40: what one APNs push costs the emulator (`pushlab serve`,
# TLS, its own process) depending on who sends it, all against the same build, N pushes each with
# 100 in flight on one HTTP/2 connection to N different tokens, every client against a fresh emulator,
# the order rotating by round:
#   h2load          h2load -c 1 -m 100 -i (N URIs) with the headers pushlab's senders send but
#                   apns-id: authorization (PyJWT ES256), apns-topic, apns-push-type, apns-priority, content-type
#   h2load+id       the same plus one fixed apns-id on every request
#   send            pushlab send apns --tokens (a fresh apns-id per push, as by default)
#   send+id         pushlab send apns --tokens --apns-id <one fixed UUID>
#   relay           pushlab relay end to end (benchmarks/lib/relay-e2e.py, pushes of 1,000)
# and, with MODEL=1, h2load with 30, 10 and 3 streams in flight (the emulator's cost per wakeup).
# Per client: the emulator's CPU µs per push (user + system from /proc/PID/stat), its bytes read and
# written per push (/proc/PID/io: TLS bytes on the socket), and — where perf may trace system calls
# — its read, write and epoll_wait calls per push (perf's tracing adds a little CPU to every call).
# PIN=1 runs the emulator on CPU 0 and everything else (clients, relay) on CPU 1 (taskset): on a
# 2-core machine an unpinned multi-threaded client preempts the emulator hundreds of times per run.
# Writes benchmarks/results/emulator-clients.md (table of medians, every run) and prints it.
#   [PUSHLAB=.build/release/pushlab] [N=50000] [ROUNDS=3] [MODEL=1] [PIN=1] [CLIENTS="h2load send …"] benchmarks/emulator-clients.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PUSHLAB=${PUSHLAB:-.build/release/pushlab}
N=${N:-50000}
ROUNDS=${ROUNDS:-3}
CLIENTS=${CLIENTS:-"h2load h2load+id send send+id relay"}
[ -n "${MODEL:-}" ] && CLIENTS="$CLIENTS h2load-m30 h2load-m10 h2load-m3"
CONCURRENCY=100
FIXED_ID=9f4a4c1e-6b1d-4f1e-9a7e-0c1b2d3e4f50
source benchmarks/lib/scratch.sh WORK KILL
source benchmarks/lib/runs.sh
REPO=$(pwd)
PY=${PY:-.venv/bin/python}
source benchmarks/lib/relay.sh
TICK_US=$((1000000 / $(getconf CLK_TCK)))

python3 -c "
for i in range($N): print('%064x' % (0xE0000000 + i))" >"$WORK/tokens.txt"
JWT=$("$PY" - <<'PY'
import time, jwt
key = open("certs/AuthKey_PLDEVKEY01.p8").read()
print(jwt.encode({"iss": "PLDEVTEAM1", "iat": int(time.time())}, key, algorithm="ES256", headers={"kid": "PLDEVKEY01"}))
PY
)
# PIN=1: this script and what it starts on CPU 1; the emulator moves to CPU 0 once started.
[ -z "${PIN:-}" ] || taskset -p -c 1 $$ >/dev/null
PERF=""
if command -v perf >/dev/null && perf stat -e syscalls:sys_enter_read -- true >/dev/null 2>&1; then PERF=1; fi

h2load_run() {  # STREAMS [extra h2load args…]
  local streams=$1; shift
  awk -v u="$APNS_URL" '{ print u "/3/device/" $1 }' "$WORK/tokens.txt" >"$WORK/uris.txt"
  h2load -n "$N" -c 1 -m "$streams" -d "$WORK/payload.json" -H "authorization: bearer $JWT" -H "apns-topic: io.pushlab.demo" \
    -H "apns-push-type: alert" -H "apns-priority: 10" -H "content-type: application/json" "$@" -i "$WORK/uris.txt" >"$WORK/h2load.txt" 2>&1
  local ok; ok=$(awk '/^status codes:/ { print $3 }' "$WORK/h2load.txt")
  # APNs's start-of-connection rule (docs/specs/apns.md): streams opened before the first
  # authenticated answer are refused, at most STREAMS − 1 of them.
  [ "${ok:-0}" -ge $((N - streams)) ] || { cat "$WORK/h2load.txt"; echo "emulator-clients.sh: h2load got $ok 2xx of $N" >&2; exit 1; }
}
send_run() {  # [extra send apns args…]
  "$PUSHLAB" send apns --url "$APNS_URL" --ca-file certs/ca.pem --key certs/AuthKey_PLDEVKEY01.p8 --team-id PLDEVTEAM1 \
    --topic io.pushlab.demo --tokens "$WORK/tokens.txt" --concurrency "$CONCURRENCY" --connections 1 --no-history "$@" \
    --json "$WORK/payload.json" >"$WORK/direct.json" 2>"$WORK/direct.err" || { cat "$WORK/direct.err"; exit 1; }
}
relay_run() {
  relay_config "$WORK/e2e.json" 100000000 "$CONCURRENCY"
  rm -rf "$WORK/e2e-data"
  local key admin
  key=$("$PUSHLAB" relay keys create --data "$WORK/e2e-data" --app bench 2>/dev/null)
  admin=$("$PUSHLAB" relay keys create --data "$WORK/e2e-data" --admin 2>/dev/null)
  start_relay "$WORK/e2e.json" "$WORK/e2e-data"
  SKIP_RESULTS=1 python3 benchmarks/lib/relay-e2e.py "$RELAY_URL" "$key" "$admin" "$WORK/tokens.txt" >/dev/null
  kill "$RELAY_PID"; wait "$RELAY_PID" 2>/dev/null || true
}
io() { awk -v k="$1" '$1 == k ":" { print $2 }' "/proc/$SERVE_PID/io"; }

measure() {  # CLIENT
  fresh_emulator
  [ -z "${PIN:-}" ] || taskset -a -p -c 0 "$SERVE_PID" >/dev/null
  printf '%s' '{"aps":{"alert":{"title":"bench","body":"relay end to end"}}}' >"$WORK/payload.json"
  local sp="" t0 t1 r0 r1 w0 w1
  if [ -n "$PERF" ]; then
    perf stat -x, -e syscalls:sys_enter_read,syscalls:sys_enter_write,syscalls:sys_enter_epoll_wait -p "$SERVE_PID" -o "$WORK/stat.txt" &
    sp=$!
    sleep 0.3
  fi
  t0=$(emulator_ticks); r0=$(io rchar); w0=$(io wchar)
  case $1 in
    h2load) h2load_run 100 ;;
    h2load+id) h2load_run 100 -H "apns-id: $FIXED_ID" ;;
    h2load-m*) h2load_run "${1#h2load-m}" ;;
    send) send_run ;;
    send+id) send_run --apns-id "$FIXED_ID" ;;
    relay) relay_run ;;
  esac
  t1=$(emulator_ticks); r1=$(io rchar); w1=$(io wchar)
  record "$1 emulator CPU µs per push" "$(awk -v t=$((t1 - t0)) -v us="$TICK_US" -v n="$N" 'BEGIN { printf "%.2f", t * us / n }')"
  record "$1 emulator bytes read per push" "$(awk -v b=$((r1 - r0)) -v n="$N" 'BEGIN { printf "%.0f", b / n }')"
  record "$1 emulator bytes written per push" "$(awk -v b=$((w1 - w0)) -v n="$N" 'BEGIN { printf "%.0f", b / n }')"
  if [ -n "$sp" ]; then
    kill -INT "$sp"; wait "$sp" 2>/dev/null || true
    for call in read write epoll_wait; do
      record "$1 emulator $call calls per push" "$(awk -F, -v c="syscalls:sys_enter_$call" -v n="$N" '$3 == c { printf "%.3f", $1 / n }' "$WORK/stat.txt")"
    done
  fi
}

read -r -a ORDER <<<"$CLIENTS"
for ROUND in $(seq "$ROUNDS"); do
  echo "emulator-clients.sh: round $ROUND/$ROUNDS" >&2
  count=${#ORDER[@]}
  for i in $(seq 0 $((count - 1))); do measure "${ORDER[$(( (i + ROUND - 1) % count ))]}"; done
done
ROUND=1
[ -z "${PIN:-}" ] || taskset -p -c "0-$(( $(nproc --all) - 1 ))" $$ >/dev/null  # the report counts every core

{
echo "# What one push costs the emulator, by client (issue 40)"
echo
machine_lines
echo "- build: \`$PUSHLAB\` ($("$PUSHLAB" --version)), $(h2load --version 2>&1 | head -1); N=$N pushes per run to N tokens, 100 in flight on one TLS connection, $ROUNDS rounds (order rotating), a fresh emulator per run$([ -z "${PIN:-}" ] || echo "; PIN=1: the emulator on CPU 0, clients and relay on CPU 1")"
echo "- h2load: \`h2load -n $N -c 1 -m 100 -i <N URIs> -d payload.json -H 'authorization: bearer <PyJWT ES256>' -H 'apns-topic: io.pushlab.demo' -H 'apns-push-type: alert' -H 'apns-priority: 10' -H 'content-type: application/json'\` (+id: \`-H 'apns-id: $FIXED_ID'\`); send: \`pushlab send apns --tokens … --concurrency 100 --connections 1\` (+id: \`--apns-id $FIXED_ID\`); relay: \`pushlab relay\` end to end as in relay.sh"
echo "- emulator CPU: user + system (/proc/PID/stat) over the run; bytes: /proc/PID/io rchar/wchar (TLS on the socket); calls: perf tracepoints$([ -n "$PERF" ] || echo " (not available here)")"
echo
printf '| client | emulator CPU µs per push | bytes read / written per push |%s\n' "$([ -n "$PERF" ] && echo ' read / write / epoll_wait calls per push |')"
printf '| --- | ---: | ---: |%s\n' "$([ -n "$PERF" ] && echo ' ---: |')"
for c in "${ORDER[@]}"; do
  calls=""
  [ -n "$PERF" ] && calls=" $(median "$c emulator read calls per push") / $(median "$c emulator write calls per push") / $(median "$c emulator epoll_wait calls per push") |"
  echo "| $c | $(median "$c emulator CPU µs per push") | $(median "$c emulator bytes read per push") / $(median "$c emulator bytes written per push") |$calls"
done
echo
echo "Every run:"
echo
raw_table
echo
echo "Re-run: \`N=$N ROUNDS=$ROUNDS${MODEL:+ MODEL=1}${PIN:+ PIN=1} PUSHLAB=<pushlab> benchmarks/emulator-clients.sh\`"
} >benchmarks/results/emulator-clients.md
cat benchmarks/results/emulator-clients.md
