#!/usr/bin/env bash
# What the provider token costs a server (issue 40): the raw server (`serve --bench`, POST /bench,
# LOOPS event loops) and nghttpd (empty file, LOOPS workers) under gateway.sh's APNs h2load command,
# with and without its `authorization: bearer <JWT>` header. nghttp2's HPACK encoder never indexes
# `authorization`, so every request carries the token as a literal the server decodes again.
# Prints server CPU µs/request (from /proc) and h2load's req/s per run.
#   benchmarks/lib/gateway-profile/authorization.sh BIN [ROUNDS] [N]
set -euo pipefail
BIN=$1; ROUNDS=${2:-3}; N=${3:-200000}
source "$(dirname "$0")/common.sh"
start_server "$BIN" "${LOOPS:-2}" S
start_nghttpd "${LOOPS:-2}"
run() {  # PID h2load-arguments…
  local pid=$1 b a; shift
  b=$(ticks "$pid"); h2load -n "$N" -c 4 -m 100 -d "$T/body.json" "$@" >"$T/o" 2>&1; a=$(ticks "$pid")
  awk -v t=$((a - b)) -v u="$TICK_US" -v n="$N" '/^finished in/ { r = $4 } /^status codes/ { s = $3 }
    END { printf "cpu=%.2f rps=%s 2xx=%s\n", t * u / n, r, s }' "$T/o"
}
H=(-H "apns-topic: io.pushlab.demo" -H "apns-push-type: alert")
A=(-H "authorization: bearer $JWT")
echo "uptime: $(uptime); JWT: ${#JWT} bytes"
for _ in $(seq "$ROUNDS"); do
  echo "raw+jwt  $(run "$PID_S" "${H[@]}" "${A[@]}" "http://127.0.0.1:$G_S/bench")"
  echo "raw-jwt  $(run "$PID_S" "${H[@]}" "http://127.0.0.1:$G_S/bench")"
  echo "ng+jwt   $(run "$PID_NG" "${H[@]}" "${A[@]}" "http://127.0.0.1:$NG_H2C/empty")"
  echo "ng-jwt   $(run "$PID_NG" "${H[@]}" "http://127.0.0.1:$NG_H2C/empty")"
done
