#!/usr/bin/env bash
# Two pushlab builds A and B side by side (issue 40): each its own `serve --bench` on LOOPS event
# loops, every KIND (APNs h2c, APNs TLS, raw /bench, FCM) run against both in turn, the order
# alternating by round; server CPU µs/request from /proc and h2load's req/s, one line per run.
#   benchmarks/lib/gateway-profile/ab.sh OLD_BIN NEW_BIN [ROUNDS] [N]   (LOOPS=2, KINDS="apns tls raw fcm";
#   also rawtls and rawfcm: the raw server over TLS and under the FCM command, gateway.sh's
#   denominators for the APNs TLS and FCM rows; apns2: two device tokens in turn, no path repeated;
#   ng and ngtls: nghttpd serving an empty file on LOOPS workers, h2c and TLS, gateway.sh's
#   requests/s denominators, run once a round between A's and B's kinds, labelled N)
set -euo pipefail
A=$1; B=$2; ROUNDS=${3:-3}; N=${4:-100000}
source "$(dirname "$0")/common.sh"
start_server "$A" "${LOOPS:-2}" A
start_server "$B" "${LOOPS:-2}" B
AT_A=$(access_token "$G_A"); AT_B=$(access_token "$G_B")
AT_N=
case " ${KINDS:-} " in *" ng "*|*" ngtls "*) start_nghttpd "${LOOPS:-2}";; esac
one() {  # LABEL KIND
  local pid=PID_$1 at=AT_$1 before after
  case $2 in ng) pid=PID_NG;; ngtls) pid=PID_NGTLS;; esac
  before=$(ticks "${!pid}")
  load "$2" "$1" "$N" "${!at}"
  after=$(ticks "${!pid}")
  awk -v t=$((after - before)) -v u="$TICK_US" -v n="$N" -v s="$1" -v k="$2" '
    /^finished in/ { gsub(",", "", $4); r = $4 } /^status codes:/ { x = $3 }
    END { printf "%s %s cpu=%.2f rps=%s 2xx=%s\n", k, s, t * u / n, r, x }' "$T/h2load.out"
}
echo "uptime: $(uptime)"
for r in $(seq "$ROUNDS"); do
  for k in ${KINDS:-apns tls raw fcm}; do
    case $k in ng|ngtls) one N "$k"; continue;; esac
    if [ $((r % 2)) = 1 ]; then one A "$k"; one B "$k"; else one B "$k"; one A "$k"; fi
  done
done
echo "uptime: $(uptime)"
