#!/usr/bin/env bash
# Per-request counts of one `pushlab collector` under h2load (issue 40: what a request costs
# besides CPU time): commits (sqlite3_exec runs BEGIN and COMMIT, 2 per commit), wake-ups and
# hand-overs (futex calls, context switches), socket and WAL writes (writev, pwrite64), and with
# ALLOC=1 malloc and swift_slowAlloc calls (uprobes: they slow the collector several times, so
# its commits get smaller; compare builds with the same setting). Exact counts from `perf stat -p`
# over N requests after 20,000 of warm-up; every row is divided by N. Adds its uprobes (group
# `collectorcounts`) when missing and deletes them at exit.
#   benchmarks/lib/collector-counts.sh BIN committed|queued [N] [track|tap]
# Example: benchmarks/lib/collector-counts.sh .build/release/pushlab committed 100000
set -euo pipefail
BIN=$(realpath "$1"); ACK=$2; N=${3:-100000}; BODY=${4:-track}
cd "$(dirname "$0")/../.."
source benchmarks/lib/scratch.sh TMP
source benchmarks/lib/listening.sh  # port_of, cpu_ticks, TICK_US
case $BODY in
  track) ROUTE=/v1/track
    printf '%s' '{"anonymousId":"RPILAgUBcRhIBqSfeiIwdIYJKxTY","event":"Report Delivery Event","properties":{"recipient":"dtok-9f8e7d6c5b4a","metric":"delivered","deliveryId":"RPILAgUBcRhIBqSfeiIwdIYJKxTY"}}' >"$TMP/body.json" ;;
  tap) ROUTE=/v1/b
    # The host app's batch after a tap, as collector.sh sends it, without the CDP context.
    printf '%s' '{"batch":[{"type":"track","event":"Application Opened","properties":{"from_background":true},"anonymousId":"3D9A1F2E","timestamp":"2026-04-02T10:46:07.912Z","messageId":"8C1D2E3F"},{"type":"track","event":"Report Delivery Event","properties":{"metric":"opened","deliveryId":"RPILAgUBcRhIBqSfeiIwdIYJKxTY","recipient":"dtok-9f8e7d6c5b4a"},"anonymousId":"3D9A1F2E","timestamp":"2026-04-02T10:46:08.123Z","messageId":"1A2B3C4D"},{"type":"screen","name":"Order Details","anonymousId":"3D9A1F2E","timestamp":"2026-04-02T10:46:08.377Z","messageId":"9F8E7D6C"}],"sentAt":"2026-04-02T10:46:09.001Z","writeKey":"k1"}' >"$TMP/body.json" ;;
  *) echo "collector-counts.sh: body is track or tap" >&2; exit 2 ;;
esac
library() { ldd "$BIN" | awk -v name="$1" '$1 == name { print $3 }'; }
added=()
probe() {  # EVENT LIBRARY FUNCTION
  perf probe -l 2>/dev/null | grep -q "collectorcounts:$1 " && return
  perf probe -q -x "$2" "collectorcounts:$1=$3"
  added+=("collectorcounts:$1")
}
scratch_extra_cleanup() { local e; for e in "${added[@]}"; do perf probe -q -d "$e"; done; }
EVENTS=collectorcounts:exec
probe exec "$(library libsqlite3.so.0)" sqlite3_exec
if [ -n "${ALLOC:-}" ]; then
  probe malloc "$(library libc.so.6)" malloc
  probe slowalloc "$(library libswiftCore.so)" swift_slowAlloc
  EVENTS+=,collectorcounts:malloc,collectorcounts:slowalloc
fi
EVENTS+=,context-switches,syscalls:sys_enter_futex,syscalls:sys_enter_writev,syscalls:sys_enter_pwrite64,syscalls:sys_enter_epoll_wait

"$BIN" collector --port off --h2c-port 0 --db "$TMP/metrics.sqlite" --cdp-key k1 --quiet --ack "$ACK" >"$TMP/collector.log" 2>&1 &
PID=$!; PIDS+=($PID)
PORT=$(port_of $PID)
load() {
  h2load -n "$1" -c 4 -m 50 -d "$TMP/body.json" -H 'content-type: application/json; charset=utf-8' \
    -H "authorization: Basic $(printf 'k1:' | base64)" \
    -H 'user-agent: Customer.io NSE Client/4.7.5 (iPhone15,2; iOS 18.1) io.pushlab.demo/2.4.1' \
    "http://127.0.0.1:$PORT$ROUTE" >"$TMP/h2load.out"
}
load 20000
perf stat -e "$EVENTS" -p $PID -o "$TMP/stat" &
STAT=$!; sleep 0.5
before=$(cpu_ticks $PID)
load "$N"
sleep 0.5  # a queued collector's last commits
after=$(cpu_ticks $PID)
kill -INT $STAT; wait $STAT || true
grep -E '^finished|^status codes' "$TMP/h2load.out"
awk -v n="$N" -v cpu="$(( (after - before) * TICK_US ))" 'BEGIN { printf "%-34s %8.2f\n", "cpu us per request (perf stat on)", cpu / n }
  /collectorcounts:|context-sw|syscalls:/ { gsub(",", "", $1); printf "%-34s %8.3f per request\n", $2, $1 / n }' "$TMP/stat"
