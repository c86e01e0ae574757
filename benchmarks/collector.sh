#!/usr/bin/env bash
# Metrics collector throughput: h2load POSTing the NSE's /v1/track body (and a 20-event /v1/b
# batch) to `pushlab collector` over h2c, against the same server answering an empty 200
# (`pushlab serve --bench`, POST /bench) — the transport's ceiling — in the same run. After
# each collector run the SQLite file is counted: every 2xx must be a stored row.
# Writes benchmarks/results/collector.md.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-100000}
CLIENTS=${CLIENTS:-4}
STREAMS=${STREAMS:-50}
OUT=benchmarks/results/collector.md
BIN=.build/release/pushlab
swift build -c release --product pushlab >/dev/null
command -v h2load >/dev/null || { echo "collector.sh: h2load missing (scripts/bootstrap installs nghttp2-client)" >&2; exit 1; }
TMP=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$TMP"; }
trap cleanup EXIT

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

echo "collector.sh: baseline (pushlab serve --bench, empty 200)"
start "$TMP/serve.log" "$BIN" serve --port 0 --h2c-port 0 --bench
read -r BASE_RPS BASE_OK BASE_FAILED BASE_2XX <<<"$(load "http://127.0.0.1:$PORT/bench" "$TMP/track.json")"
stop_last

echo "collector.sh: /v1/track, --ack queued"
start "$TMP/c1.log" "$BIN" collector --port off --h2c-port 0 --db "$TMP/q.sqlite" --cdp-key k1 --quiet
read -r Q_RPS Q_OK Q_FAILED Q_2XX <<<"$(load "http://127.0.0.1:$PORT/v1/track" "$TMP/track.json" -H "$AUTH")"
stop_last
Q_ROWS=$(rows "$TMP/q.sqlite" metrics)

echo "collector.sh: /v1/track, --ack committed"
start "$TMP/c2.log" "$BIN" collector --port off --h2c-port 0 --db "$TMP/c.sqlite" --cdp-key k1 --quiet --ack committed
read -r C_RPS C_OK C_FAILED C_2XX <<<"$(load "http://127.0.0.1:$PORT/v1/track" "$TMP/track.json" -H "$AUTH")"
stop_last
C_ROWS=$(rows "$TMP/c.sqlite" metrics)

echo "collector.sh: /v1/b, 20 events per batch"
start "$TMP/c3.log" "$BIN" collector --port off --h2c-port 0 --db "$TMP/b.sqlite" --cdp-key k1 --quiet
read -r B_RPS B_OK B_FAILED B_2XX <<<"$(load "http://127.0.0.1:$PORT/v1/b" "$TMP/batch.json" -H "$AUTH")"
stop_last
B_ROWS=$(rows "$TMP/b.sqlite" metrics)

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
check() { [ "$1" = "$2" ] && echo "yes" || echo "NO ($1 rows for $2)"; }
{
  echo "# Metrics collector throughput"
  echo
  echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "- machine: $(nproc) cores, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), $(awk '/MemTotal/ { printf "%.1f GB", $2/1048576 }' /proc/meminfo) RAM, load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (shared with other jobs)"
  echo "- tools: $(swift --version 2>&1 | head -1), $(h2load --version | head -1), SQLite $(sqlite3 --version | cut -d' ' -f1)"
  echo "- load: \`h2load -n $N -c $CLIENTS -m $STREAMS -d BODY -H 'content-type: application/json' -H 'authorization: Basic …' http://127.0.0.1:PORT/ROUTE\` over h2c, release build"
  echo "- baseline: \`pushlab serve --port 0 --h2c-port 0 --bench\` (POST /bench answers an empty 200), same body"
  echo "- collector: \`pushlab collector --port off --h2c-port 0 --db FILE --cdp-key k1 --quiet [--ack committed]\`"
  echo
  echo "| run | requests/s | metrics/s | succeeded | failed | 2xx | rows in SQLite | every 2xx stored | vs baseline |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |"
  echo "| baseline: empty 200 | $BASE_RPS | – | $BASE_OK | $BASE_FAILED | $BASE_2XX | – | – | 1.00 |"
  echo "| /v1/track, ack queued | $Q_RPS | $Q_RPS | $Q_OK | $Q_FAILED | $Q_2XX | $Q_ROWS | $(check "$Q_ROWS" "$Q_2XX") | $(ratio "$Q_RPS" "$BASE_RPS") |"
  echo "| /v1/track, ack committed | $C_RPS | $C_RPS | $C_OK | $C_FAILED | $C_2XX | $C_ROWS | $(check "$C_ROWS" "$C_2XX") | $(ratio "$C_RPS" "$BASE_RPS") |"
  echo "| /v1/b, 20 events/batch | $B_RPS | $(awk -v r="$B_RPS" 'BEGIN { printf "%.0f", r * 20 }') | $B_OK | $B_FAILED | $B_2XX | $B_ROWS | $(check "$B_ROWS" "$((B_2XX * 20))") | $(ratio "$B_RPS" "$BASE_RPS") |"
  echo
  echo "Every request carries the same delivery id (h2load repeats one body), so all metrics after"
  echo "the first of each (delivery id, metric) are stored as duplicates — the same work as new ones."
} >"$OUT"
cat "$OUT"
