#!/usr/bin/env bash
# A/B of two pushlab builds on the FCM route with nghttpd (empty file) and the raw server as
# controls, the same h2load FCM command for all (benchmarks/gateway.sh's): per round nghttpd h2c
# (2 workers), raw /bench A and B, FCM messages:send A and B; order of A/B alternating by round.
#   benchmarks/lib/gateway-profile/fcm-ab.sh OLD_BIN NEW_BIN [ROUNDS] [N]   (session 16, fc40)
# One line per run: server cpu µs/request (/proc), h2load req/s, 2xx, h2load's own cpu µs/request.
set -euo pipefail
A=$1; B=$2; ROUNDS=${3:-3}; N=${4:-100000}
source "$(dirname "$0")/common.sh"
source benchmarks/lib/listening.sh
start_server "$A" 2 A
start_server "$B" 2 B
mkdir -p "$T/docroot" && : >"$T/docroot/empty"
nghttpd -n 2 --no-tls 0 -d "$T/docroot" >/dev/null 2>&1 &
PID_NG=$!; SERVERS+=("$PID_NG"); NGPORT=$(port_of "$PID_NG")
AT_A=$(access_token "$G_A"); AT_B=$(access_token "$G_B")
run() {  # LABEL KIND URL TOKEN
  local pid=PID_$1 before after
  before=$(ticks "${!pid}")
  { time -p h2load -n "$N" -c 4 -m 100 -d "$T/fcm.json" -H "authorization: Bearer $4" -H "content-type: application/json" "$3" >"$T/h2load.out" 2>&1; } 2>"$T/time.out"
  after=$(ticks "${!pid}")
  local client; client=$(awk '/^user|^sys/ {s+=$2} END {print s}' "$T/time.out")
  awk -v t=$((after - before)) -v u="$TICK_US" -v n="$N" -v s="$1" -v k="$2" -v c="$client" '
    /^finished in/ { gsub(",", "", $4); r = $4 } /^status codes:/ { x = $3 }
    END { printf "%s %s cpu=%.2f rps=%s 2xx=%s h2load_cpu=%.2f\n", k, s, t * u / n, r, x, c * 1e6 / n }' "$T/h2load.out"
}
echo "uptime: $(uptime)"
for r in $(seq "$ROUNDS"); do
  run NG nghttpd "http://127.0.0.1:$NGPORT/empty" "$AT_A"
  if [ $((r % 2)) = 1 ]; then o="A B"; else o="B A"; fi
  for s in $o; do g=G_$s at=AT_$s; run "$s" raw "http://127.0.0.1:${!g}/bench" "${!at}"; done
  for s in $o; do g=G_$s at=AT_$s; run "$s" fcm "http://127.0.0.1:${!g}/v1/projects/pushlab-dev/messages:send" "${!at}"; done
done
echo "uptime: $(uptime)"
