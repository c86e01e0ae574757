#!/usr/bin/env bash
# malloc and swift_slowAlloc calls per request of one `serve --bench` (one event loop) under one
# KIND of load (common.sh's h2load commands), counted exactly with uprobes (`perf stat`) over N
# requests after 20,000 of warm-up. Adds the two probes when missing and deletes them at exit.
#   benchmarks/lib/gateway-profile/allocs.sh BIN KIND [N]
set -euo pipefail
BIN=$1; KIND=$2; N=${3:-50000}
source "$(dirname "$0")/common.sh"
LIBC=$(ldd "$BIN" | awk '$1 == "libc.so.6" { print $3 }'); SWIFTCORE=$(ldd "$BIN" | awk '$1 == "libswiftCore.so" { print $3 }')
added=()
perf probe -l 2>/dev/null | grep -q 'probe_libc:malloc ' || { perf probe -q -x "$LIBC" malloc; added+=(probe_libc:malloc); }
perf probe -l 2>/dev/null | grep -q 'probe_libswiftCore:swift_slowAlloc ' || { perf probe -q -x "$SWIFTCORE" swift_slowAlloc; added+=(probe_libswiftCore:swift_slowAlloc); }
trap 'for p in "${SERVERS[@]}"; do kill "$p" 2>/dev/null || true; done; for e in "${added[@]}"; do perf probe -q -d "$e"; done; rm -rf "$T"' EXIT
start_server "$BIN" 1 S
AT=$(access_token "$G_S")
load "$KIND" S 20000 "$AT"
perf stat -e probe_libc:malloc -e probe_libswiftCore:swift_slowAlloc -p "$PID_S" -o "$T/stat" &
P=$!; sleep 0.5
load "$KIND" S "$N" "$AT"
sleep 0.2; kill -INT $P; wait $P || true
grep -E '^status codes' "$T/h2load.out"
awk -v n="$N" '/probe_/ { gsub(",", "", $1); printf "%s %.2f per request\n", $2, $1 / n }' "$T/stat"
