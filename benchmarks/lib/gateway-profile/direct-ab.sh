#!/usr/bin/env bash
# The emulator's CPU per 1,000 targets as relay.sh's direct side meets it (`pushlab send apns
# --tokens`, TLS, one connection, 100 in flight, distinct tokens), for two emulator builds A and B
# in turn, the order alternating by round; the sender is SENDER (default: B).
#   benchmarks/lib/gateway-profile/direct-ab.sh OLD_BIN NEW_BIN [ROUNDS] [TARGETS]
set -euo pipefail
A=$1; B=$2; ROUNDS=${3:-3}; TARGETS=${4:-50000}; SENDER=${SENDER:-$B}
source "$(dirname "$0")/common.sh"
python3 -c "
for i in range($TARGETS): print('%064x' % (0xE0000000 + i))" >"$T/tokens.txt"
printf '%s' '{"aps":{"alert":{"title":"bench","body":"relay end to end"}}}' >"$T/payload.json"
one() {  # LABEL BIN
  : >"$T/serve.log"
  "$2" serve --apns-port 0 --port 0 --h2c-port 0 --quiet >"$T/serve.log" 2>&1 &
  local pid=$! url before after; SERVERS+=("$pid")
  for _ in $(seq 200); do grep -q '^APNs: https://' "$T/serve.log" && break; sleep 0.05; done
  url=$(sed -n 's|^APNs: \(https://[^ ]*\) .*|\1|p' "$T/serve.log")
  before=$(ticks "$pid")
  "$SENDER" send apns --url "$url" --ca-file certs/ca.pem --key certs/AuthKey_PLDEVKEY01.p8 --team-id PLDEVTEAM1 --topic io.pushlab.demo \
    --tokens "$T/tokens.txt" --concurrency 100 --connections 1 --no-history --json "$T/payload.json" >"$T/direct.json" 2>"$T/direct.err"
  after=$(ticks "$pid")
  kill "$pid"; wait "$pid" 2>/dev/null || true
  python3 -c "import json; d = json.load(open('$T/direct.json')); print('$1 accepted', d['accepted'], 'perSecond', d['perSecond'], 'emulator_ms_per_1000', round(($after - $before) * $TICK_US / 1000 * 1000 / $TARGETS, 2))"
}
echo "uptime: $(uptime)"
for r in $(seq "$ROUNDS"); do
  if [ $((r % 2)) = 1 ]; then one A "$A"; one B "$B"; else one B "$B"; one A "$A"; fi
done
echo "uptime: $(uptime)"
