#!/usr/bin/env bash
# Metrics collector throughput: h2load POSTing the NSE's /v1/track body (and a 20-event /v1/b
# batch) to `pushlab collector` over h2c, against the same server answering an empty 200
# (`pushlab serve --bench`, POST /bench) — the transport's ceiling — in the same run. After
# each collector run the SQLite file is counted: every 2xx must be a stored row. ROUNDS
# interleaved rounds (default 3) of the four runs; every run is written to the results file and
# the summary shows medians (ratios of medians). Writes benchmarks/results/collector.md.
# Small check: N=2000 ROUNDS=1 benchmarks/collector.sh
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-100000}
CLIENTS=${CLIENTS:-4}
STREAMS=${STREAMS:-50}
ROUNDS=${ROUNDS:-3}
OUT=benchmarks/results/collector.md
BIN=.build/release/pushlab
swift build -c release --product pushlab >/dev/null
command -v h2load >/dev/null || { echo "collector.sh: h2load missing (scripts/bootstrap installs nghttp2-client)" >&2; exit 1; }
TMP=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$TMP"; }
trap cleanup EXIT
# record, median, ratio, machine_lines, raw_table (every run kept).
source benchmarks/lib/runs.sh

AUTH="authorization: Basic $(printf 'k1:' | base64)"
printf '%s' '{"anonymousId":"RPILAgUBcRhIBqSfeiIwdIYJKxTY","event":"Report Delivery Event","properties":{"recipient":"dtok-9f8e7d6c5b4a","metric":"delivered","deliveryId":"RPILAgUBcRhIBqSfeiIwdIYJKxTY"}}' >"$TMP/track.json"
python3 - "$TMP/batch.json" <<'PY'
import json, sys
items = [{"type": "track", "event": "Report Delivery Event",
          "properties": {"metric": "opened", "deliveryId": f"del-{i:04d}", "recipient": f"dtok-{i:04d}"},
          "anonymousId": "anon-1", "userId": "user-1", "timestamp": "2026-04-02T10:46:08.123Z", "messageId": f"m-{i}"}
         for i in range(20)]
json.dump({"batch": items, "sentAt": "2026-04-02T10:46:09.000Z", "writeKey": "k1"}, open(sys.argv[1], "w"), separators=(",", ":"))
PY

# Starts a server command in the background; sets PORT to its cleartext port.
start() {
  local log=$1; shift
  : >"$log"  # before the fork: the logs are reused each round, and the wait must not read the last one's port
  "$@" >"$log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 100); do
    PORT=$(sed -n 's|^http://127.0.0.1:\([0-9]*\).*|\1|p' "$log" | head -1)
    [ -n "$PORT" ] && return
    sleep 0.05
  done
  echo "collector.sh: server did not start: $(cat "$log")" >&2; exit 1
}
stop_last() { local p=${PIDS[-1]}; kill -INT "$p"; wait "$p" 2>/dev/null || true; unset 'PIDS[-1]'; }
# h2load → "req/s succeeded failed 2xx"
load() {
  local url=$1 body=$2; shift 2
  local out
  out=$(h2load -n "$N" -c "$CLIENTS" -m "$STREAMS" -d "$body" -H "content-type: application/json" "$@" "$url")
  local rps ok failed xx
  rps=$(awk '/^finished in/ { gsub(",", "", $4); print $4 }' <<<"$out")
  ok=$(awk '/^requests:/ { print $8 }' <<<"$out")
  failed=$(awk '/^requests:/ { print $10 }' <<<"$out")
  xx=$(awk '/^status codes:/ { print $3 }' <<<"$out")
  echo "$rps $ok $failed $xx"
}
rows() { sqlite3 "$1" "SELECT COUNT(*) FROM $2"; }

STORED=yes
for ROUND in $(seq "$ROUNDS"); do
  echo "collector.sh: round $ROUND/$ROUNDS: baseline (pushlab serve --bench, empty 200)"
  start "$TMP/serve.log" "$BIN" serve --port 0 --h2c-port 0 --bench
  read -r BASE_RPS BASE_OK BASE_FAILED BASE_2XX <<<"$(load "http://127.0.0.1:$PORT/bench" "$TMP/track.json")"
  stop_last

  echo "collector.sh: round $ROUND/$ROUNDS: /v1/track, --ack queued"
  start "$TMP/c1.log" "$BIN" collector --port off --h2c-port 0 --db "$TMP/q-$ROUND.sqlite" --cdp-key k1 --quiet --ack queued
  read -r Q_RPS Q_OK Q_FAILED Q_2XX <<<"$(load "http://127.0.0.1:$PORT/v1/track" "$TMP/track.json" -H "$AUTH")"
  stop_last
  Q_ROWS=$(rows "$TMP/q-$ROUND.sqlite" metrics)

  echo "collector.sh: round $ROUND/$ROUNDS: /v1/track, --ack committed"
  start "$TMP/c2.log" "$BIN" collector --port off --h2c-port 0 --db "$TMP/c-$ROUND.sqlite" --cdp-key k1 --quiet --ack committed
  read -r C_RPS C_OK C_FAILED C_2XX <<<"$(load "http://127.0.0.1:$PORT/v1/track" "$TMP/track.json" -H "$AUTH")"
  stop_last
  C_ROWS=$(rows "$TMP/c-$ROUND.sqlite" metrics)

  echo "collector.sh: round $ROUND/$ROUNDS: /v1/b, 20 events per batch"
  start "$TMP/c3.log" "$BIN" collector --port off --h2c-port 0 --db "$TMP/b-$ROUND.sqlite" --cdp-key k1 --quiet
  read -r B_RPS B_OK B_FAILED B_2XX <<<"$(load "http://127.0.0.1:$PORT/v1/b" "$TMP/batch.json" -H "$AUTH")"
  stop_last
  B_ROWS=$(rows "$TMP/b-$ROUND.sqlite" metrics)
  record "baseline req/s" "$BASE_RPS"
  record "/v1/track queued req/s" "$Q_RPS"
  record "/v1/track committed req/s" "$C_RPS"
  record "/v1/b req/s" "$B_RPS"
  record "/v1/track queued: 2xx" "$Q_2XX"
  record "/v1/track queued: rows" "$Q_ROWS"
  record "/v1/track committed: 2xx" "$C_2XX"
  record "/v1/track committed: rows" "$C_ROWS"
  record "/v1/b: 2xx × 20" "$((B_2XX * 20))"
  record "/v1/b: rows" "$B_ROWS"
  [ "$Q_ROWS" = "$Q_2XX" ] && [ "$C_ROWS" = "$C_2XX" ] && [ "$B_ROWS" = "$((B_2XX * 20))" ] || STORED="NO (round $ROUND)"
done

BASE=$(median "baseline req/s") Q=$(median "/v1/track queued req/s") C=$(median "/v1/track committed req/s") B=$(median "/v1/b req/s")
{
  echo "# Metrics collector throughput"
  echo
  machine_lines
  echo "- $ROUNDS interleaved rounds of the four runs below; requests/s are medians, ratios are of medians; every run is listed under \"Every run\""
  echo "- tools: $(swift --version 2>&1 | head -1), $(h2load --version | head -1), SQLite $(sqlite3 --version | cut -d' ' -f1)"
  echo "- load: \`h2load -n $N -c $CLIENTS -m $STREAMS -d BODY -H 'content-type: application/json' -H 'authorization: Basic …' http://127.0.0.1:PORT/ROUTE\` over h2c, release build"
  echo "- baseline: \`pushlab serve --port 0 --h2c-port 0 --bench\` (POST /bench answers an empty 200), same body"
  echo "- collector: \`pushlab collector --port off --h2c-port 0 --db FILE --cdp-key k1 --quiet --ack queued|committed\`"
  echo
  echo "| run | requests/s (median) | metrics/s | vs baseline |"
  echo "| --- | ---: | ---: | ---: |"
  echo "| baseline: empty 200 | $BASE | – | 1.00 |"
  echo "| /v1/track, ack queued | $Q | $Q | $(ratio "$Q" "$BASE") |"
  echo "| /v1/track, ack committed | $C | $C | $(ratio "$C" "$BASE") |"
  echo "| /v1/b, 20 events/batch | $B | $(awk -v r="$B" 'BEGIN { printf "%.0f", r * 20 }') | $(ratio "$B" "$BASE") |"
  echo
  echo "Every 2xx stored as a row in SQLite, in every run: **$STORED** (counted with sqlite3 after each run)."
  echo
  echo "Every request carries the same delivery id (h2load repeats one body), so all metrics after"
  echo "the first of each (delivery id, metric) are stored as duplicates — the same work as new ones."
  echo
  echo "## Every run"
  echo
  raw_table
} >"$OUT"
cat "$OUT"
