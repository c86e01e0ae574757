#!/usr/bin/env bash
# The web console (docs/console.md) with a big log and a busy gateway:
#  1. page load with PAGE_PUSHES pushes recorded (default 100,000, sent through the real
#     gateway with the bulk sender): time from navigation to the first rows on screen in headless
#     Chromium (Tests/Peers/console_browser.py, which also runs the browser test's checks);
#  2. the live stream under load: STREAM_PUSHES pushes (default 100,000) sent as fast as the
#     bulk sender goes while a client follows the server-sent events as EventSource does
#     (benchmarks/lib/console_stream.py): did every push arrive, how fast, how late.
# RUNS runs of each (default 3); medians. No peer is named for the console by the issue; the
# stream is compared with the gateway's own send rate in the same run (ratio ≥ 1.0: it keeps up).
# NOTE="…" adds a line to the results (e.g. that the run was a check on a busy machine).
# Usage: benchmarks/console.sh   (small check: PAGE_PUSHES=5000 STREAM_PUSHES=20000 RUNS=1 benchmarks/console.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
PAGE_PUSHES=${PAGE_PUSHES:-100000}
STREAM_PUSHES=${STREAM_PUSHES:-100000}
RUNS=${RUNS:-3}
PY=.venv/bin/python
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
# PUSHLAB_BIN picks another build (e.g. the debug one for a quick check); the results say which.
if [ -n "${PUSHLAB_BIN:-}" ]; then BIN=$PUSHLAB_BIN; else swift build -c release --product pushlab >/dev/null; BIN=.build/release/pushlab; fi
OUT=benchmarks/results/console.md
page_runs=(); stream_runs=()
for i in $(seq "$RUNS"); do
  page_runs+=("$($PY Tests/Peers/console_browser.py --root . --pushlab "$BIN" --prefill "$PAGE_PUSHES" --skip-android | tail -1)")
  stream_runs+=("$($PY benchmarks/lib/console_stream.py . "$BIN" "$STREAM_PUSHES" | tail -1)")
done
median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
field() { for r in "$@"; do echo "$r" | $PY -c "import json,sys; print(json.load(sys.stdin).get('$F'))"; done; }
F=first_page_ms; PAGE_MS=$(field "${page_runs[@]}" | median)
F=send_rate; SEND=$(field "${stream_runs[@]}" | median)
F=stream_rate; STREAM=$(field "${stream_runs[@]}" | median)
F=lag_after_last_send_ms; LAG=$(field "${stream_runs[@]}" | median)
F=streamed; STREAMED=$(field "${stream_runs[@]}" | median)
RATIO=$(awk -v s="$STREAM" -v g="$SEND" 'BEGIN { printf "%.2f", s / g }')
{
  echo "# Console: page load with a big log, live stream under load"
  echo
  echo "Run $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores, $(uname -srm); load average at start: $LOAD_START (at the end: $(cut -d' ' -f1-3 /proc/loadavg))."
  [ -n "${NOTE:-}" ] && echo "$NOTE" && echo
  echo "Written by \`benchmarks/console.sh\` (PAGE_PUSHES=$PAGE_PUSHES STREAM_PUSHES=$STREAM_PUSHES RUNS=$RUNS), binary \`$BIN\`."
  echo
  echo "Commands:"
  echo "- page: \`$PY Tests/Peers/console_browser.py --pushlab $BIN --prefill $PAGE_PUSHES --skip-android\` — $PAGE_PUSHES pushes through the gateway with \`pushlab send apns --tokens\`, then headless Chromium opens /console; \`first_page_ms\` is performance.now() when the first page of rows is on screen."
  echo "- stream: \`$PY benchmarks/lib/console_stream.py . $BIN $STREAM_PUSHES\` — the bulk sender sends $STREAM_PUSHES pushes while a client follows /console/api/events as EventSource does."
  echo
  echo "| measure | median |"
  echo "| --- | --- |"
  echo "| page load, first rows on screen, $PAGE_PUSHES pushes recorded (issue bound ≤ 1000 ms) | $PAGE_MS ms |"
  echo "| gateway receive rate (bulk sender, pushes/s) | $SEND |"
  echo "| live stream delivery rate over the run (pushes/s) | $STREAM |"
  echo "| stream rate / send rate (≥ 1.0 would be keeping up exactly; the stream ends after the last send) | $RATIO |"
  echo "| pushes the stream delivered (of $STREAM_PUSHES) | $STREAMED |"
  echo "| lag of the last streamed push after the bulk sender's process exited (negative: it was on the stream before that process had finished) | $LAG ms |"
  echo
  echo "Every run (raw JSON):"
  echo
  for r in "${page_runs[@]}"; do echo "- page: \`$r\`"; done
  for r in "${stream_runs[@]}"; do echo "- stream: \`$r\`"; done
} > "$OUT"
cat "$OUT"
