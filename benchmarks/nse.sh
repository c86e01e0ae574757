#!/usr/bin/env bash
# The NSE emulator (issue 7): (1) one push with a 1 MB image from a loopback HTTPS server,
# push received → content handler (target ≤ 50 ms); (2) concurrent NSE runs with small images
# and the delivered metric, pushes/s (target ≥ 500/s), per App Group store kind.
# Peers from the same run: curl fetching the same 1 MB image (one fresh TLS connection per
# fetch, the floor of a cold download) and h2load GETting the small image at the same
# concurrency on one connection (the transport's ceiling). Writes benchmarks/results/nse.md.
#
#   SINGLES=30 PUSHES=5000 CONCURRENCY=64 [SKIP_BUILD=1] benchmarks/nse.sh
set -euo pipefail
export PUSHLAB_BENCH=1  # the pushlab-bench-* drivers exist only then (Package.swift)
cd "$(dirname "$0")/.."
SINGLES=${SINGLES:-30}
PUSHES=${PUSHES:-5000}
CONCURRENCY=${CONCURRENCY:-64}
OUT=benchmarks/results/nse.md

[ -n "${SKIP_BUILD:-}" ] || swift build -c release --product pushlab-bench-nse >/dev/null  # SKIP_BUILD=1 reuses the current release binary
BENCH=.build/release/pushlab-bench-nse
kv() { tr ' ' '\n' | awk -F= -v k="$1" '$1 == k { print $2 }'; }

declare -A RPS
for store in off cio sqlite; do
  echo "nse.sh: store=$store"
  out=$("$BENCH" --root "$PWD" --singles "$SINGLES" --pushes "$PUSHES" --concurrency "$CONCURRENCY" --store "$store")
  grep -q '^error=' <<<"$out" && { echo "$out"; exit 1; }
  RPS[$store]=$(grep concurrent_ <<<"$out" | kv pushes_per_s)
  if [ "$store" = off ]; then
    FIRST=$(grep single_ <<<"$out" | kv single_first_ms)
    MEDIAN=$(grep single_ <<<"$out" | kv single_median_ms)
    P95=$(grep single_ <<<"$out" | kv single_p95_ms)
  fi
done

# Peers: an image server of the same kind (pushlab's HTTPServer in the bench binary is
# in-process, so the peers get a standalone one: Python's http.server cannot do h2, so use
# nghttpd, the nghttp2 reference server, with the same dev certificate).
source benchmarks/lib/scratch.sh TMP
head -c 1048576 /dev/zero >"$TMP/1mb.png"
head -c 4096 /dev/zero >"$TMP/small.png"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
nghttpd -d "$TMP" "$PORT" certs/server.key certs/server.pem >/dev/null 2>&1 &
PIDS+=($!)
sleep 0.5
CURL_MS=$(for _ in $(seq "$SINGLES"); do
  curl -s -o /dev/null --cacert certs/ca.pem -w '%{time_total}\n' "https://localhost:$PORT/1mb.png"
done | sort -n | awk '{a[NR]=$1} END {m = NR % 2 ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%.2f", m*1000}')
H2LOAD_RPS=$(h2load -n "$PUSHES" -c 1 -m "$CONCURRENCY" "https://localhost:$PORT/small.png" 2>/dev/null \
  | awk '/^finished in/ { gsub(",", "", $4); print $4 }')

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
CPU=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')
MEM=$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
{
  echo "# NSE emulator benchmark"
  echo
  echo "Run $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores ($CPU), $MEM RAM; load average at the end: $LOAD"
  echo "(the machine is shared with other builds, so absolute numbers vary between runs)."
  echo "Tools: $(swift --version 2>&1 | head -1); $(curl --version | head -1 | cut -d' ' -f1-2); $(h2load --version 2>&1 | head -1); nghttpd from nghttp2."
  echo
  echo "Commands: \`SINGLES=$SINGLES PUSHES=$PUSHES CONCURRENCY=$CONCURRENCY benchmarks/nse.sh\`, which runs"
  echo "\`.build/release/pushlab-bench-nse --singles $SINGLES --pushes $PUSHES --concurrency $CONCURRENCY --store off|cio|sqlite\`"
  echo "(pushlab's HTTPServer over TLS in-process, the libcurl HTTPClient with the dev CA, cio-4 profile with autoTrackPushEvents on),"
  echo "\`curl -o /dev/null --cacert certs/ca.pem https://localhost:PORT/1mb.png\` ×$SINGLES and"
  echo "\`h2load -n $PUSHES -c 1 -m $CONCURRENCY https://localhost:PORT/small.png\` against \`nghttpd\` serving the same files."
  echo
  echo "## One push, 1 MB image, push received → content handler"
  echo
  echo "| measurement | ms |"
  echo "| --- | ---: |"
  echo "| pushlab NSE, first push (cold TLS connection) | $FIRST |"
  echo "| pushlab NSE, median of the next $((SINGLES - 1)) | $MEDIAN |"
  echo "| pushlab NSE, p95 | $P95 |"
  echo "| peer: curl fetch of the same size, new connection each (median) | $CURL_MS |"
  echo
  echo "Target ≤ 50 ms. Each NSE run writes the image to \`<tmp>/cio_sdk/\`, checks it, and sends the delivered metric in parallel."
  echo "Ratio pushlab median / curl median: $(ratio "$MEDIAN" "$CURL_MS") (curl pays a TLS handshake per fetch; the NSE reuses the client's connection)."
  echo
  echo "## Concurrent NSE runs, 4 KB image + delivered metric each, $CONCURRENCY in flight, $PUSHES pushes"
  echo
  echo "| App Group store | pushes/s | vs h2load GET ceiling |"
  echo "| --- | ---: | ---: |"
  for store in off cio sqlite; do
    echo "| $store | ${RPS[$store]} | $(ratio "${RPS[$store]}" "$H2LOAD_RPS") |"
  done
  echo "| peer: h2load GET small.png (requests/s, one connection) | $H2LOAD_RPS | 1.00 |"
  echo
  echo "Target ≥ 500 pushes/s. Each push is two HTTPS requests (image + metric), one image file written to \`<tmp>/cio_sdk/\`"
  echo "(and deleted by the bench, as iOS consumes it) plus the store's append and remove; the \`cio\` store rewrites the whole"
  echo "JSON file under a lock twice per push, as the reference SDK does (new content into a spare file, atomically exchanged"
  echo "with the target). On this machine's ext4 (no journal, online discard) creating a file gets slower the more files were"
  echo "deleted in the last 1–5 minutes (the allocator skips them), so runs right after other file-heavy work (or each other) measure lower."
} >"$OUT"
cat "$OUT"
