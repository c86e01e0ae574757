#!/usr/bin/env bash
# benchmarks/client-ab.sh → benchmarks/results/client-ab.md — issue 26's sending cost for two
# pushlab builds in one run, interleaved, so a busy machine moves both alike. Each round runs,
# one after the other: the C libcurl loop + RST filter (the transport's peer), the old and the
# new `pushlab-bench-client` (callers on the client's loop) over TLS and h2c against one
# `pushlab serve --bench`; then the old and the new `pushlab send apns --tokens` (one
# connection, --no-history) against one `pushlab-bench-push-server`. The measure is CPU per
# request or push (user + system time of the client process: /proc/self/stat for the
# transport clients, /usr/bin/time for send), which load moves far less than rates; rates are
# recorded too. Servers are the old build's, the same for both sides.
#   OLD_DIR=dir/with/old/binaries OLD_NOTE="release build of <commit>" ROUNDS=3 N=20000 benchmarks/client-ab.sh
#   BASE=<commit> benchmarks/client-ab.sh      builds BASE's release binaries in a worktree
# OLD_DIR holds the old build's pushlab, pushlab-bench-client and pushlab-bench-push-server; the
# results file names it by OLD_NOTE (what it was built from), never by its path.
set -euo pipefail
export PUSHLAB_BENCH=1  # the pushlab-bench-* drivers exist only then (Package.swift)
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
N=${N:-20000}              # requests per transport run, pushes per send run
M=${M:-100}                # transport: requests in flight (the bench server allows 100 streams)
CONCURRENCY=${CONCURRENCY:-200}
PRODUCTS=(pushlab pushlab-bench-client pushlab-bench-push-server)
[ -n "${SKIP_BUILD:-}" ] || for p in "${PRODUCTS[@]}"; do swift build -c release --product "$p" >/dev/null; done
NEW_DIR=.build/release
if [ -z "${OLD_DIR:-}" ]; then
  if [ -z "${BASE:-}" ]; then echo "client-ab.sh: nothing to compare with; set BASE=<commit> or OLD_DIR=<dir>"; exit 0; fi
  BASE_WORKTREE=$(mktemp -d)/base
  git worktree add -q --detach "$BASE_WORKTREE" "$BASE"
  (cd "$BASE_WORKTREE" && for p in "${PRODUCTS[@]}"; do swift build -c release --product "$p" >/dev/null; done)
  OLD_DIR=$BASE_WORKTREE/.build/release
fi
source benchmarks/lib/scratch.sh WORK
source benchmarks/lib/runs.sh
CBENCH=$WORK/curl_multi_bench_filtered
cc -O2 -rdynamic -I Sources/CPushLab/include -o "$CBENCH" benchmarks/c/curl_multi_bench.c Sources/CPushLab/curl_shim.c -lcurl -lnghttp2

"$OLD_DIR/pushlab" serve --bench --apns-port 0 --port 0 --h2c-port 0 >"$WORK/serve.out" 2>"$WORK/serve.err" &
PIDS+=($!)
for _ in $(seq 300); do grep -q "(h2c, " "$WORK/serve.out" && break; sleep 0.1; done
TLS_URL="$(awk '/\(h2, / { print $1 }' "$WORK/serve.out")/bench"
H2C_URL="$(awk '/\(h2c, / { print $1 }' "$WORK/serve.out")/bench"
TLS_URL=${TLS_URL/127.0.0.1/localhost}   # the certificate names localhost
"$OLD_DIR/pushlab-bench-push-server" --max-streams 500 >"$WORK/push.url" 2>"$WORK/push.err" &
PIDS+=($!)
for _ in $(seq 50); do [ -s "$WORK/push.url" ] && break; sleep 0.1; done
PUSH_URL=$(head -1 "$WORK/push.url")
python3 -c "
with open('$WORK/tokens.txt', 'w') as f:
    for i in range($N): f.write('%064x\n' % i)"
printf '%s' '{"aps":{"alert":{"title":"Benchmark","body":"Hello from the benchmark"}}}' >"$WORK/payload.json"
# FCM: the service account's token_uri pointed at the push server (as benchmarks/fcm-send.sh does).
python3 benchmarks/lib/fcm-inputs.py "$PUSH_URL" "$N" "$WORK/sa.json" "$WORK/fcm-tokens.txt"
printf '%s' '{"message":{"notification":{"title":"Benchmark","body":"Hello from the benchmark"},"data":{"k":"v"}}}' >"$WORK/message.json"

kv() { tr ' ' '\n' | awk -F= -v k="$1" '$1 == k { print $2 }'; }
# transport KEY command… — records "KEY cpu µs/req" and "KEY req/s" (and fails loudly on errors).
transport() {
  local key=$1; shift
  local line
  line=$("$@" 2>&1 | head -1)
  [ "$(kv ok <<<"$line")" = "$N" ] || echo "client-ab.sh: $key: $line" >&2
  record "$key cpu µs/req" "$(kv cpu_us_per_req <<<"$line")"
  record "$key req/s" "$(kv rps <<<"$line")"
}
# A build whose `send` can choose its transport (--transport) is told to use libcurl's client,
# the one this A/B is about.
curl_transport_flag() { if "$1/pushlab" send "${2:-apns}" --help 2>&1 | grep -q -- '--transport'; then echo "--transport curl"; fi; }
# bulk KEY DIR apns|fcm — one `send … --tokens` run: "KEY CPU µs/push" and "KEY pushes/s".
bulk() {
  local key=$1 dir=$2
  if [ "$3" = apns ]; then
    /usr/bin/time -f "%U %S" -o "$WORK/send.time" "$dir/pushlab" send apns $(curl_transport_flag "$dir") --url "$PUSH_URL" --ca-file certs/ca.pem \
      --key certs/AuthKey_PLDEVKEY01.p8 --team-id PLDEVTEAM1 --topic io.pushlab.demo --tokens "$WORK/tokens.txt" \
      --concurrency "$CONCURRENCY" --connections 1 --no-history --json "$WORK/payload.json" >"$WORK/send.json" 2>/dev/null || true
  else
    /usr/bin/time -f "%U %S" -o "$WORK/send.time" "$dir/pushlab" send fcm $(curl_transport_flag "$dir" fcm) --url "$PUSH_URL" --ca-file certs/ca.pem \
      --service-account "$WORK/sa.json" --tokens "$WORK/fcm-tokens.txt" \
      --concurrency "$CONCURRENCY" --connections 1 --no-history --json "$WORK/message.json" >"$WORK/send.json" 2>/dev/null || true
  fi
  local accepted rate
  read -r accepted rate < <(python3 -c "import json; d = json.load(open('$WORK/send.json')); print(d['accepted'], d['perSecond'])")
  [ "$accepted" = "$N" ] || echo "client-ab.sh: $key accepted $accepted of $N" >&2
  record "$key CPU µs/push" "$(awk -v n="$N" '{ printf "%.1f", ($1 + $2) * 1e6 / n }' "$WORK/send.time")"
  record "$key pushes/s" "$rate"
}
client() { "$1/pushlab-bench-client" --url "$2" --mode "$3" --ca-file certs/ca.pem -n "$N" -m "$M" --body-bytes 200; }

for ROUND in $(seq "$ROUNDS"); do
  echo "client-ab.sh: round $ROUND/$ROUNDS" >&2
  transport "C loop TLS" "$CBENCH" "$TLS_URL" "$N" "$M" h2 certs/ca.pem 200
  transport "old TLS" client "$OLD_DIR" "$TLS_URL" http2
  transport "new TLS" client "$NEW_DIR" "$TLS_URL" http2
  transport "C loop h2c" "$CBENCH" "$H2C_URL" "$N" "$M" h2c certs/ca.pem 200
  transport "old h2c" client "$OLD_DIR" "$H2C_URL" h2c
  transport "new h2c" client "$NEW_DIR" "$H2C_URL" h2c
  bulk "old send apns" "$OLD_DIR" apns
  bulk "new send apns" "$NEW_DIR" apns
  bulk "old send fcm" "$OLD_DIR" fcm
  bulk "new send fcm" "$NEW_DIR" fcm
done
ROUND=1

{
  echo "# Sending cost A/B (issue 26): two builds, one run"
  echo
  machine_lines
  if [ -n "${OLD_NOTE:-}" ]; then old_text=$OLD_NOTE
  elif [ -n "${BASE:-}" ]; then old_text="the release build of $BASE"
  else old_text="another build (set OLD_NOTE to say which)"; fi
  echo "- old: $old_text; new: the release build of $(git rev-parse --short HEAD)"
  echo "- each round: the C libcurl loop + RST filter, old and new \`pushlab-bench-client\` (callers on the loop, $N POSTs of 200 bytes, $M in flight, one connection) over TLS and h2c against \`pushlab serve --bench\`; then old and new \`pushlab send apns --tokens\` and \`send fcm --tokens\` ($N tokens, --concurrency $CONCURRENCY, one connection, --no-history) against \`pushlab-bench-push-server\`; $ROUNDS rounds, medians below"
  echo "- every pushlab row runs libcurl's client (HTTPClient): builds whose \`send\` has \`--transport\` are given \`--transport curl\`"
  echo "- CPU: the client process's user + system time (10 ms ticks) ÷ requests or pushes, start-up included"
  echo
  echo "| measure | C loop | old | new | new ÷ old | old ÷ C loop | new ÷ C loop |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
  for t in TLS h2c; do
    for m in "cpu µs/req" "req/s"; do
      c=$(median "C loop $t $m"); o=$(median "old $t $m"); n=$(median "new $t $m")
      echo "| $t $m | $c | $o | $n | $(ratio "$n" "$o") | $(ratio "$o" "$c") | $(ratio "$n" "$c") |"
    done
  done
  for p in apns fcm; do
    for m in "CPU µs/push" "pushes/s"; do
      o=$(median "old send $p $m"); n=$(median "new send $p $m")
      echo "| send $p --tokens $m | | $o | $n | $(ratio "$n" "$o") | | |"
    done
  done
  echo
  echo "Targets (issue 26, judged on a quiet machine by benchmarks/transport-client.sh and apns-send.sh): CPU ≤ 1.25× and req/s ≥ 0.8× the C loop; send ≥ 10× aioapns."
  echo
  echo "Every run:"
  echo
  raw_table
  echo
  echo "Commands:"
  echo
  echo '```'
  echo "OLD_DIR=<old build> OLD_NOTE=\"${OLD_NOTE:-…}\" ROUNDS=$ROUNDS N=$N benchmarks/client-ab.sh"
  echo "curl_multi_bench_filtered URL $N $M h2|h2c certs/ca.pem 200"
  echo "pushlab-bench-client --url URL --mode http2|h2c --ca-file certs/ca.pem -n $N -m $M --body-bytes 200"
  echo "/usr/bin/time -f '%U %S' pushlab send fcm --url PUSH_URL --ca-file certs/ca.pem --service-account sa.json (token_uri PUSH_URL/token) --tokens fcm-tokens.txt --concurrency $CONCURRENCY --connections 1 --no-history --json message.json"
  echo "/usr/bin/time -f '%U %S' pushlab send apns --url PUSH_URL --ca-file certs/ca.pem --key certs/AuthKey_PLDEVKEY01.p8 --team-id PLDEVTEAM1 --topic io.pushlab.demo --tokens tokens.txt --concurrency $CONCURRENCY --connections 1 --no-history --json payload.json"
  echo '```'
} >benchmarks/results/client-ab.md
echo "client-ab.sh: wrote benchmarks/results/client-ab.md" >&2
