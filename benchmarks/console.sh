#!/usr/bin/env bash
# The web console (docs/console.md) with a big log and a busy gateway:
#  1. page load with PAGE_PUSHES pushes recorded (default 100,000, sent through the real
#     gateway with the bulk sender): time from navigation to the first rows on screen in headless
#     Chromium (Tests/Peers/console_browser.py, which also runs the browser test's checks);
#  2. the live stream under load, as an A/B in one run: STREAM_PUSHES pushes (default 100,000)
#     sent by SENDERS bulk senders at once (default 2; one sender process tops out below the
#     gateway) into `pushlab serve` in three setups, interleaved run by run:
#       none         no --console: the gateway alone (the peer)
#       console      --console, the virtual iPhone at its default --console-phone-rate
#       console-all  --console --console-phone-rate 1000000: the iPhone runs every push it can
#                    (what the console did before the rate)
#     while a client follows the server-sent events as EventSource does
#     (benchmarks/lib/console_stream.py): the send rate, the gateway's CPU per push, did every
#     push reach the stream, how fast, how late, and how many pushes the iPhone ran.
# RUNS runs of each (default 3); medians, and the console setups' ratios to the gateway alone.
# SENDER=h2load sends with nghttp2's h2load instead of pushlab's bulk sender (SENDERS connections,
# 100 streams each): C needs a fraction of the CPU, so more of the 2 cores go to the gateway.
# PAGE_PUSHES=0 skips the page load; OUT=FILE writes the results elsewhere (default
# benchmarks/results/console.md), e.g. SENDER=h2load SENDERS=4 PAGE_PUSHES=0
# OUT=benchmarks/results/console-h2load.md benchmarks/console.sh.
# The issue's bound: the stream keeps up with 10,000 pushes/s through the gateway.
# NOTE="…" adds a line to the results (e.g. that the run was a check on a busy machine).
# Usage: benchmarks/console.sh   (small check: PAGE_PUSHES=5000 STREAM_PUSHES=20000 RUNS=1 benchmarks/console.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
PAGE_PUSHES=${PAGE_PUSHES:-100000}
STREAM_PUSHES=${STREAM_PUSHES:-100000}
RUNS=${RUNS:-3}
SENDERS=${SENDERS:-2}
CONNECTIONS=${CONNECTIONS:-1}
SENDER=${SENDER:-pushlab}
RPS=${RPS:-}  # SENDER=h2load: a fixed send rate in requests/s (h2load --rps), e.g. RPS=10000
OUT=${OUT:-benchmarks/results/console.md}
MODES=(none console console-all)
PY=.venv/bin/python
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
# PUSHLAB_BIN picks another build (e.g. the debug one for a quick check); the results say which.
if [ -n "${PUSHLAB_BIN:-}" ]; then BIN=$PUSHLAB_BIN; else swift build -c release --product pushlab >/dev/null; BIN=.build/release/pushlab; fi
page_runs=(); stream_runs=()
for i in $(seq "$RUNS"); do
  [ "$PAGE_PUSHES" -gt 0 ] && page_runs+=("$($PY Tests/Peers/console_browser.py --root . --pushlab "$BIN" --prefill "$PAGE_PUSHES" --skip-android | tail -1)")
  for mode in "${MODES[@]}"; do
    stream_runs+=("$($PY benchmarks/lib/console_stream.py . "$BIN" "$STREAM_PUSHES" --mode "$mode" --senders "$SENDERS" --connections "$CONNECTIONS" --sender "$SENDER" ${RPS:+--rps "$RPS"} | tail -1)")
  done
done
median() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) print "n/a"; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
# field NAME [MODE] → that field of every page run (no MODE) or every stream run of MODE, one per line.
field() {
  if [ -z "${2:-}" ]; then for r in "${page_runs[@]}"; do echo "$r"; done
  else for r in "${stream_runs[@]}"; do echo "$r"; done; fi |
    $PY -c "import json,sys
for line in sys.stdin:
    d = json.loads(line)
    if '${2:-}' and d.get('mode') != '${2:-}': continue
    v = d.get('$1')
    if isinstance(v, dict): v = v.get('ran')
    if v is not None: print(v)"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0 || a == "n/a" || b == "n/a") print "n/a"; else printf "%.2f", a / b }'; }
PAGE_MS=$(field first_page_ms | median)
declare -A SEND CPU STREAM STREAMED LAG RAN ANSWERED
for mode in "${MODES[@]}"; do
  SEND[$mode]=$(field send_rate "$mode" | median)
  CPU[$mode]=$(field gateway_cpu_us_per_push "$mode" | median)
  STREAM[$mode]=$(field stream_rate "$mode" | median)
  STREAMED[$mode]=$(field streamed "$mode" | median)
  ANSWERED[$mode]=$(field answered "$mode" | median)
  LAG[$mode]=$(field lag_after_last_send_ms "$mode" | median)
  RAN[$mode]=$(field phone "$mode" | median)
done
{
  echo "# Console: page load with a big log, live stream under load"
  echo
  echo "Run $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores, $(uname -srm); load average at start: $LOAD_START (at the end: $(cut -d' ' -f1-3 /proc/loadavg))."
  [ -n "${NOTE:-}" ] && echo "$NOTE" && echo
  echo "Written by \`benchmarks/console.sh\` (PAGE_PUSHES=$PAGE_PUSHES STREAM_PUSHES=$STREAM_PUSHES RUNS=$RUNS SENDER=$SENDER${RPS:+ RPS=$RPS} SENDERS=$SENDERS CONNECTIONS=$CONNECTIONS), binary \`$BIN\`$( [[ "$BIN" == *debug* ]] && echo ' — a **debug build**: rates are several times below a release build; this run only shows the script works')."
  echo
  echo "Commands:"
  [ "$PAGE_PUSHES" -gt 0 ] && echo "- page: \`$PY Tests/Peers/console_browser.py --pushlab $BIN --prefill $PAGE_PUSHES --skip-android\` — $PAGE_PUSHES pushes through the gateway with \`pushlab send apns --tokens\`, then headless Chromium opens /console; \`first_page_ms\` is performance.now() when the first page of rows is on screen."
  echo "- stream: \`$PY benchmarks/lib/console_stream.py . $BIN $STREAM_PUSHES --mode MODE --senders $SENDERS --connections $CONNECTIONS --sender $SENDER\` for MODE in ${MODES[*]}, interleaved — $( [ "$SENDER" = h2load ] && echo "h2load sends $STREAM_PUSHES requests on $SENDERS connections (100 streams each; the stream must carry every answered one)" || echo "$SENDERS bulk senders at once send $STREAM_PUSHES pushes (a share each)") while a client follows /console/api/events as EventSource does. \`none\`: \`serve\` without \`--console\` (the peer); \`console\`: \`serve --console\` (the virtual iPhone at its default \`--console-phone-rate\`, 100/s); \`console-all\`: \`serve --console --console-phone-rate 1000000\` (the iPhone runs every push it can, as before the rate)."
  echo
  if [ "$PAGE_PUSHES" -gt 0 ]; then
    echo "| measure | median |"
    echo "| --- | --- |"
    echo "| page load, first rows on screen, $PAGE_PUSHES pushes recorded (issue bound ≤ 1000 ms) | $PAGE_MS ms |"
    echo
  fi
  echo "| measure | none (gateway alone) | console | console-all |"
  echo "| --- | ---: | ---: | ---: |"
  echo "| gateway receive rate, $SENDERS $( [ "$SENDER" = h2load ] && echo "h2load connections" || echo senders) (pushes/s) | ${SEND[none]} | ${SEND[console]} | ${SEND[console-all]} |"
  echo "| ÷ the gateway alone | 1.00 | $(ratio "${SEND[console]}" "${SEND[none]}") | $(ratio "${SEND[console-all]}" "${SEND[none]}") |"
  echo "| gateway CPU per push (µs, user+system while sending) | ${CPU[none]} | ${CPU[console]} | ${CPU[console-all]} |"
  echo "| live stream delivery rate over the run (pushes/s) | – | ${STREAM[console]} | ${STREAM[console-all]} |"
  echo "| stream rate ÷ send rate (1.00: it keeps up) | – | $(ratio "${STREAM[console]}" "${SEND[console]}") | $(ratio "${STREAM[console-all]}" "${SEND[console-all]}") |"
  echo "| pushes answered (of $STREAM_PUSHES sent) | ${ANSWERED[none]} | ${ANSWERED[console]} | ${ANSWERED[console-all]} |"
  echo "| pushes the stream delivered | – | ${STREAMED[console]} | ${STREAMED[console-all]} |"
  echo "| lag of the last streamed push after the last sender exited | – | ${LAG[console]} ms | ${LAG[console-all]} ms |"
  echo "| of the newest pushes the device view lists, the iPhone ran | – | ${RAN[console]} | ${RAN[console-all]} |"
  echo
  echo "The issue's bound is a live stream keeping up with 10,000 pushes/s through the gateway: the \`console\` column's receive rate and its stream ÷ send ratio say whether this run showed it."
  echo
  echo "Every run (raw JSON):"
  echo
  for r in "${page_runs[@]}"; do echo "- page: \`$r\`"; done
  for r in "${stream_runs[@]}"; do echo "- stream: \`$r\`"; done
} > "$OUT"
cat "$OUT"
