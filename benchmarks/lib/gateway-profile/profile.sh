#!/usr/bin/env bash
# perf call graphs of one `serve --bench` (LOOPS event loops, default 1) under one KIND of load
# (apns, tls, raw, fcm: the h2load commands of gateway.sh), then the server CPU per request split
# into buckets (buckets.py): every sample goes to the first bucket whose frame is on its stack.
#   benchmarks/lib/gateway-profile/profile.sh BIN KIND [N] > table.tsv
set -euo pipefail
BIN=$1; KIND=$2; N=${3:-100000}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/common.sh"
start_server "$BIN" "${LOOPS:-1}" S
AT=$(access_token "$G_S")
load "$KIND" S 20000 "$AT"  # warm-up: connections authenticated, pools and caches filled
perf record -F 2999 -g --call-graph dwarf,16384 -p "$PID_S" -o "$T/perf.data" >/dev/null 2>&1 & PERF=$!
sleep 0.5
load "$KIND" S "$N" "$AT"
kill -INT "$PERF"; wait "$PERF" || true
grep -E '^(finished|status codes)' "$T/h2load.out" >&2
perf script -i "$T/perf.data" -F ip,sym --no-inline 2>/dev/null | swift demangle --simplified >"$T/perf.txt"
python3 "$HERE/buckets.py" "$T/perf.txt" "$N"
