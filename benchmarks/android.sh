#!/usr/bin/env bash
# The virtual Android phone (issue 21), two measurements:
# 1. receive → shown: `pushlab android receive` of a Customer.io data message whose image is a
#    IMAGE_KB KB PNG served over HTTPS from loopback (`pushlab serve --images`); the time from the
#    message's arrival to notify() with the picture, read from the receive report's real-time
#    timeline (target ≤ 50 ms). Peer in the same run: curl downloading the same image over a new
#    TLS connection (the download alone; ratio = pushlab / curl).
# 2. `pushlab simulate --platform both --pushes PUSHES --compare`: wall time and peak RSS (GNU
#    time) for the three stores on both phones (target ≤ 60 s for 10,000 pushes on 2 cores).
# 3. The Android SDK's 100-entry pending store: one phone (--devices 1) offline for pushes
#    101…400 of 500, each store; the table's `dropped by store cap` and `lost` (cio-android's
#    workers claim their entry first, so what the cap dropped is never sent).
# Writes benchmarks/results/android.md (every raw run, medians, date, machine, load).
#
#   RUNS=5 PUSHES=10000 IMAGE_KB=500 [SKIP_BUILD=1] [CONFIG=release] benchmarks/android.sh
#   CONFIG=debug SKIP_BUILD=1 RUNS=3 PUSHES=300 benchmarks/android.sh   # check the script on a busy machine
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
PUSHES=${PUSHES:-10000}
IMAGE_KB=${IMAGE_KB:-500}
SIM_RUNS=${SIM_RUNS:-1}
CONFIG=${CONFIG:-release}  # CONFIG=debug only to check the script: not a measurement to compare
OUT=benchmarks/results/android.md
source benchmarks/lib/scratch.sh WORK
source benchmarks/lib/runs.sh

[ -n "${SKIP_BUILD:-}" ] || swift build -c "$CONFIG" --product pushlab >/dev/null  # SKIP_BUILD=1 reuses the current binary
PUSHLAB=.build/$CONFIG/pushlab

# A PNG of incompressible pixels, IMAGE_KB KB, that the phone's format check accepts.
mkdir -p "$WORK/images"
python3 - "$WORK/images/bench.png" "$IMAGE_KB" <<'EOF'
import os, struct, sys, zlib
path, kb = sys.argv[1], int(sys.argv[2])
width = 256
rows = max(1, kb * 1024 // (width * 3 + 1))
raw = b"".join(b"\x00" + os.urandom(width * 3) for _ in range(rows))
def chunk(kind, data): return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, rows, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw, 0)) + chunk(b"IEND", b"")
open(path, "wb").write(png)
EOF
IMAGE_BYTES=$(stat -c %s "$WORK/images/bench.png")

# The image server: pushlab serve on free ports, its Google host serving $WORK/images.
"$PUSHLAB" serve --port 0 --apns-port 0 --h2c-port 0 --images "$WORK/images" --quiet >"$WORK/serve.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 200); do grep -q '^images: ' "$WORK/serve.log" && break; sleep 0.05; done
BASE=$(sed -n 's|^images: \(https://[^/]*\)/images/.*|\1|p' "$WORK/serve.log" | sed 's|127.0.0.1|localhost|')
[ -n "$BASE" ] || { cat "$WORK/serve.log"; echo "android.sh: pushlab serve did not start" >&2; exit 1; }
IMAGE_URL="$BASE/images/bench.png"
cat >"$WORK/message.json" <<EOF
{"message":{"data":{"title":"bench","body":"500 KB picture","image":"$IMAGE_URL","CIO-Delivery-ID":"bench-1","CIO-Delivery-Token":"bench-token"},"android":{"priority":"high"}}}
EOF

RECEIVE_CMD="$PUSHLAB android receive \$WORK/message.json --app payloads/apps/android-demo.json --ca-file certs/ca.pem --json"
CURL_CMD="curl -s -o /dev/null -w '%{time_total}' --cacert certs/ca.pem $IMAGE_URL"
for ROUND in $(seq 1 "$RUNS"); do
  json=$("$PUSHLAB" android receive "$WORK/message.json" --app payloads/apps/android-demo.json --ca-file certs/ca.pem --json)
  shown=$(python3 -c '
import json, sys
r = json.load(sys.stdin)
n = r.get("notification") or {}
assert (n.get("image") or {}).get("shown"), "the picture was not shown: %s" % r.get("diagnostics")
print([e["atMs"] for e in r["timeline"] if e["event"].startswith("notify(): shown")][0])' <<<"$json")
  record receive_to_shown_ms "$shown"
  curl_s=$(curl -s -o /dev/null -w '%{time_total}' --cacert certs/ca.pem "$IMAGE_URL")
  record curl_download_ms "$(awk -v s="$curl_s" 'BEGIN { printf "%.1f", s * 1000 }')"
done

SIM_CMD="$PUSHLAB simulate --platform both --pushes $PUSHES --compare --seed 42 --kill-rate 0.2 --kill-stage mixed --metric-failure-rate 0.05 --doze-rate 0.1 --launches 4"
for ROUND in $(seq 1 "$SIM_RUNS"); do
  /usr/bin/time -f '%e %M' -o "$WORK/time.txt" $SIM_CMD >"$WORK/sim-$ROUND.txt"
  read -r wall rss_kb <"$WORK/time.txt"
  record simulate_both_wall_s "$wall"
  record simulate_both_peak_rss_mib "$(awk -v k="$rss_kb" 'BEGIN { printf "%.1f", k / 1024 }')"
done

CAP_CMD="$PUSHLAB simulate --platform android --pushes 500 --devices 1 --offline 101-400 --kill-rate 0 --compare"
$CAP_CMD >"$WORK/cap.txt"

SHOWN=$(median receive_to_shown_ms)
CURL=$(median curl_download_ms)
WALL=$(median simulate_both_wall_s)
RSS=$(median simulate_both_peak_rss_mib)
{
  echo "# The virtual Android phone"
  echo
  echo "Written by \`benchmarks/android.sh\`."
  echo
  machine_lines
  echo "- build: $CONFIG"
  echo "- command: \`RUNS=$RUNS PUSHES=$PUSHES IMAGE_KB=$IMAGE_KB SIM_RUNS=$SIM_RUNS CONFIG=$CONFIG benchmarks/android.sh\`"
  echo "- receive: \`$RECEIVE_CMD\` ($IMAGE_BYTES-byte PNG from \`pushlab serve --images\` over HTTPS on loopback; the time is the report's real-time timeline from arrival to notify() with the picture)"
  echo "- peer: \`$CURL_CMD\` (the download alone, new TLS connection each run)"
  echo "- simulate: \`/usr/bin/time $SIM_CMD\`"
  echo
  echo "| measure | median | target | ratio |"
  echo "| --- | ---: | --- | --- |"
  echo "| receive → shown with a $IMAGE_KB KB image (pushlab) | $SHOWN ms | ≤ 50 ms | $(ratio "$SHOWN" 50) of target |"
  echo "| the same image downloaded by curl (peer) | $CURL ms | | pushlab / curl = $(ratio "$SHOWN" "$CURL") |"
  if [ "$PUSHES" = 10000 ]; then SIM_RATIO="$(ratio "$WALL" 60) of target"; else SIM_RATIO="— (a check run with $PUSHES pushes; the target is for 10,000)"; fi
  echo "| simulate --platform both --pushes $PUSHES --compare, wall | $WALL s | ≤ 60 s for 10,000 | $SIM_RATIO |"
  echo "| the same, peak RSS | $RSS MiB | | |"
  echo
  echo "Every raw run:"
  echo
  raw_table
  echo
  echo "The last simulate run's output:"
  echo
  echo '```'
  cat "$WORK/sim-$SIM_RUNS.txt"
  echo '```'
  echo
  echo "The pending store's cap: \`$CAP_CMD\`"
  echo
  echo '```'
  cat "$WORK/cap.txt"
  echo '```'
} >"$OUT"
cat "$OUT"
