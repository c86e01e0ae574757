#!/usr/bin/env bash
# HTTP/2 client cost: pushlab's two HTTP/2 clients — HTTPClient (libcurl multi interface under
# Swift async) and NGHTTP2Client (nghttp2 + OpenSSL directly, `--transport nghttp2`) — against
# a minimal C program driving libcurl's multi interface the same way
# (benchmarks/c/curl_multi_bench.c) and h2load (the protocol's ceiling on one connection), all
# posting to the same server in the same run: `pushlab serve --bench` (pushlab's HTTPServer
# answering POST /bench with an empty 200).
#
# The measure is CPU per request of the client process (user + system time from
# /proc/self/stat, printed by each client at its end, divided by the requests), next to
# requests/s. pushlab runs two ways: its callers on the client's loop thread
# (`HTTPClient.executor`, the default of pushlab-bench-client and of `send --tokens`) and on
# Swift's global pool (every request handed to the loop thread and every answer back: the
# cost issue 26 set out to remove). A last set of rows pins the client to CPU 0 and a second
# server to CPU 1 (`taskset`) and reports both processes' CPU per request, so how the client
# would scale with spare cores can be judged on a 2-core machine. Also a perf profile of both
# clients. Writes benchmarks/results/transport-client.md.
#
#   N=100000 M=100 RUNS=5 BODY=200 benchmarks/transport-client.sh      # what the results file shows
#   N=20000 RUNS=1 benchmarks/transport-client.sh                       # a quick check
set -euo pipefail
export PUSHLAB_BENCH=1  # the pushlab-bench-* drivers exist only then (Package.swift)
cd "$(dirname "$0")/.."
N=${N:-100000}          # requests per measurement
M=${M:-100}             # requests in flight per connection (the server allows 100 streams)
RUNS=${RUNS:-5}         # measurements per row; the table shows the median
BODY=${BODY:-200}       # request body bytes
PROFILE_N=${PROFILE_N:-20000}
OUT=benchmarks/results/transport-client.md

echo "transport-client.sh: building (release)"
swift build -c release --product pushlab >/dev/null
swift build -c release --product pushlab-bench-client >/dev/null
# Two builds of the C loop: libcurl as shipped, and with the same RST_STREAM filter pushlab
# links (Sources/CPushLab/curl_shim.c, exported with -rdynamic), the like-for-like peer.
CBENCH=.build/curl_multi_bench
CBENCH_F=.build/curl_multi_bench_filtered
cc -O2 -o "$CBENCH" benchmarks/c/curl_multi_bench.c -lcurl
cc -O2 -rdynamic -I Sources/CPushLab/include -o "$CBENCH_F" benchmarks/c/curl_multi_bench.c Sources/CPushLab/curl_shim.c -lcurl -lnghttp2
CLIENT=.build/release/pushlab-bench-client

source benchmarks/lib/scratch.sh TMP
source benchmarks/lib/runs.sh
source benchmarks/lib/listening.sh   # cpu_ticks PID
# start_server OUTFILE [taskset prefix...] → PID in $STARTED_PID, URLs in $TLS_URL / $H2C_URL
start_server() {
  local out=$1; shift
  "$@" .build/release/pushlab serve --bench --apns-port 0 --port 0 --h2c-port 0 >"$out" 2>"$out.err" &
  STARTED_PID=$!; PIDS+=($!)
  for _ in $(seq 300); do grep -q "(h2c, " "$out" && break; sleep 0.1; done
  TLS_URL="$(awk '/\(h2, / { print $1 }' "$out")/bench"
  H2C_URL="$(awk '/\(h2c, / { print $1 }' "$out")/bench"
  [ "$TLS_URL" != "/bench" ] && [ "$H2C_URL" != "/bench" ] || { echo "server did not start:"; cat "$out.err"; exit 1; }
  # The certificate names localhost; the server listens on 127.0.0.1.
  TLS_URL=${TLS_URL/127.0.0.1/localhost}
}
start_server "$TMP/serve.out"
head -c "$BODY" /dev/zero | tr '\0' x >"$TMP/body"

kv() { tr ' ' '\n' | awk -F= -v k="$1" '$1 == k { print $2 }'; }
# One measurement: runs the command, records "<key> req/s", "<key> cpu µs/req", "<key> failed".
measure() { # key command...
  local key=$1; shift
  local line failed
  line=$("$@" 2>/dev/null | head -1) || true
  local ok
  ok=$(kv ok <<<"$line")
  failed=$(( N - ${ok:-0} ))  # transport errors, non-2xx answers and anything not run
  record "$key req/s" "$(kv rps <<<"$line")"
  local cpu
  cpu=$(kv cpu_us_per_req <<<"$line")
  [ "$cpu" = n/a ] || record "$key cpu µs/req" "$cpu"   # h2load reports none
  record "$key failed" "$failed"
  record "$key connections" "$(kv connections <<<"$line")"
  echo "  run $ROUND $key: $(kv rps <<<"$line") req/s, $(kv cpu_us_per_req <<<"$line") µs CPU/req, failed $failed"
}
PIN=()   # a command prefix for the clients (the pinned rows: taskset -c 0)
c_loop() { "${PIN[@]}" "$1" "$2" "$N" "$M" "$3" certs/ca.pem "$BODY"; }            # binary url h2|h2c
pushlab() { "${PIN[@]}" "$CLIENT" --url "$1" --mode "$2" --executor "$3" --clients "$4" --transport "${5:-curl}" --ca-file certs/ca.pem -n "$N" -m "$M" --body-bytes "$BODY"; }
h2load_run() { # url → prints a line like the clients' (no CPU figure)
  local out rps ok
  out=$(h2load -n "$N" -c 1 -m "$M" -d "$TMP/body" "$1" 2>&1 | grep -v '^progress') || true
  rps=$(awk '/^finished in/ { gsub(",", "", $4); print int($4) }' <<<"$out")
  ok=$(awk '/^status codes:/ { print $3 }' <<<"$out")
  echo "requests=$N ok=${ok:-0} non2xx=0 failed=0 connections=1 rps=${rps:-0} cpu_us_per_req=n/a"
}
"$CLIENT" --url "$TLS_URL" --ca-file certs/ca.pem -n 10 -m 1 >"$TMP/filter" 2>&1 || true

# Rows are interleaved run by run, so a change in the machine's load hits every row alike.
echo "transport-client.sh: $N requests per run, $RUNS runs, rows interleaved"
for ROUND in $(seq "$RUNS"); do
  measure cplain-tls c_loop "$CBENCH" "$TLS_URL" h2
  measure c-tls c_loop "$CBENCH_F" "$TLS_URL" h2
  measure pushlab-tls pushlab "$TLS_URL" http2 loop 1
  measure pool-tls pushlab "$TLS_URL" http2 pool 1
  measure ng-tls pushlab "$TLS_URL" http2 loop 1 nghttp2
  measure h2load-tls h2load_run "$TLS_URL"
  measure cplain-h2c c_loop "$CBENCH" "$H2C_URL" h2c
  measure c-h2c c_loop "$CBENCH_F" "$H2C_URL" h2c
  measure pushlab-h2c pushlab "$H2C_URL" h2c loop 1
  measure pool-h2c pushlab "$H2C_URL" h2c pool 1
  measure ng-h2c pushlab "$H2C_URL" h2c loop 1 nghttp2
  measure h2load-h2c h2load_run "$H2C_URL"
  measure pushlab-tls-x2 pushlab "$TLS_URL" http2 loop 2
  measure ng-tls-x2 pushlab "$TLS_URL" http2 loop 2 nghttp2
done

# Pinned: a second server on CPU 1, each client on CPU 0; the server's CPU is read from
# /proc/PID/stat before and after each client run.
echo "transport-client.sh: pinned rows (client on CPU 0, server on CPU 1)"
start_server "$TMP/pinned.out" taskset -c 1
PINNED_PID=$STARTED_PID
TICK=$(getconf CLK_TCK)
pinned() { # key command...
  local key=$1; shift
  local before after
  before=$(cpu_ticks "$PINNED_PID")
  PIN=(taskset -c 0)
  measure "$key" "$@"
  PIN=()
  after=$(cpu_ticks "$PINNED_PID")
  record "$key server cpu µs/req" "$(awk -v t=$(( after - before )) -v hz="$TICK" -v n="$N" 'BEGIN { printf "%.1f", t * 1e6 / hz / n }')"
}
for ROUND in $(seq "$RUNS"); do
  pinned pin-c-tls c_loop "$CBENCH_F" "$TLS_URL" h2
  pinned pin-pushlab-tls pushlab "$TLS_URL" http2 loop 1
  pinned pin-pool-tls pushlab "$TLS_URL" http2 pool 1
  pinned pin-ng-tls pushlab "$TLS_URL" http2 loop 1 nghttp2
  pinned pin-c-h2c c_loop "$CBENCH_F" "$H2C_URL" h2c
  pinned pin-pushlab-h2c pushlab "$H2C_URL" h2c loop 1
  pinned pin-ng-h2c pushlab "$H2C_URL" h2c loop 1 nghttp2
done
kill "$PINNED_PID" 2>/dev/null; wait "$PINNED_PID" 2>/dev/null || true

echo "transport-client.sh: profiles (perf, $PROFILE_N requests over TLS)"
profile() { # name command...
  local name=$1; shift
  perf record -q -F 1999 -o "$TMP/$name.data" "$@" >/dev/null 2>&1 || true
  perf report -i "$TMP/$name.data" --stdio --sort dso 2>/dev/null >"$TMP/$name.dso.all" || true
  perf report -i "$TMP/$name.data" --stdio --sort dso,sym 2>/dev/null >"$TMP/$name.sym.all" || true
  grep '%' "$TMP/$name.dso.all" | grep -v '^#' | awk 'NR <= 12' >"$TMP/$name.dso" || true
  grep '%' "$TMP/$name.sym.all" | grep -v '^#' | awk 'NR <= 25' >"$TMP/$name.sym" || true
}
PROFILE_OK=yes
if ! perf stat -e task-clock true >/dev/null 2>&1; then PROFILE_OK=no; fi
if [ "$PROFILE_OK" = yes ]; then
  profile c "$CBENCH_F" "$TLS_URL" "$PROFILE_N" "$M" h2 certs/ca.pem "$BODY"
  profile loop "$CLIENT" --url "$TLS_URL" --mode http2 --ca-file certs/ca.pem -n "$PROFILE_N" -m "$M" --body-bytes "$BODY"
  profile pool "$CLIENT" --url "$TLS_URL" --mode http2 --executor pool --ca-file certs/ca.pem -n "$PROFILE_N" -m "$M" --body-bytes "$BODY"
  profile ng "$CLIENT" --url "$TLS_URL" --mode http2 --transport nghttp2 --ca-file certs/ca.pem -n "$PROFILE_N" -m "$M" --body-bytes "$BODY"
fi

sum() { values "$1" | awk '{ s += $1 } END { print s + 0 }'; }
row() { # label key peer-key
  local rps cpu
  rps=$(median "$2 req/s"); cpu=$(median "$2 cpu µs/req")
  echo "| $1 | $rps | $(values "$2 req/s" | paste -sd/) | $cpu | $(values "$2 cpu µs/req" | paste -sd/) | $(sum "$2 failed") | $(values "$2 connections" | tail -1) | $( [ -n "$3" ] && ratio "$rps" "$(median "$3 req/s")" ) | $( [ -n "$3" ] && ratio "$cpu" "$(median "$3 cpu µs/req")" ) |"
}
pinrow() { # label key peer-key
  local cpu server
  cpu=$(median "$2 cpu µs/req"); server=$(median "$2 server cpu µs/req")
  echo "| $1 | $(median "$2 req/s") | $cpu | $(values "$2 cpu µs/req" | paste -sd/) | $server | $(values "$2 server cpu µs/req" | paste -sd/) | $(sum "$2 failed") | $( [ -n "$3" ] && ratio "$cpu" "$(median "$3 cpu µs/req")" ) |"
}
{
  echo "# HTTP/2 client cost (PushHTTP.HTTPClient and NGHTTP2Client)"
  echo
  machine_lines
  echo "- tools: $(swift --version 2>&1 | head -1); $(curl-config --version 2>/dev/null || curl --version | head -1 | cut -d' ' -f1-2) with $(curl --version | head -1 | grep -o 'nghttp2/[0-9.]*') $(curl --version | head -1 | grep -o 'OpenSSL/[0-9.]*'); $(h2load --version | head -1); $(cc --version | head -1)"
  echo "- server: \`.build/release/pushlab serve --bench --apns-port 0 --port 0 --h2c-port 0\` (pushlab's HTTPServer, POST /bench → empty 200, SETTINGS_MAX_CONCURRENT_STREAMS 100), one process for the unpinned rows, a second one pinned to CPU 1 for the pinned rows"
  echo "- libcurl's redundant RST_STREAM after bodiless responses dropped by pushlab's client: $(grep -o 'redundant-reset-filter=[a-z]*' "$TMP/filter" 2>/dev/null | cut -d= -f2); \"C loop + filter\" links the same filter, \"as shipped\" runs libcurl unmodified"
  echo "- load: $N POSTs of $BODY bytes per measurement, $M in flight per connection, median of $RUNS runs (every run listed, rows interleaved run by run)"
  echo "- CPU µs/req: the client process's user + system time (/proc/self/stat, read by the client at its end, 10 ms ticks) ÷ requests, start-up included"
  echo
  echo "Commands (URLs as bound in this run):"
  echo
  echo '```'
  echo "cc -O2 -o $CBENCH benchmarks/c/curl_multi_bench.c -lcurl"
  echo "cc -O2 -rdynamic -I Sources/CPushLab/include -o $CBENCH_F benchmarks/c/curl_multi_bench.c Sources/CPushLab/curl_shim.c -lcurl -lnghttp2"
  echo "$CBENCH_F $TLS_URL $N $M h2 certs/ca.pem $BODY   # C libcurl loop (same for $CBENCH)"
  echo "$CLIENT --url $TLS_URL --mode http2 --executor loop --ca-file certs/ca.pem -n $N -m $M --body-bytes $BODY   # pushlab (--executor pool: callers on the global pool)"
  echo "$CLIENT --url $TLS_URL --mode http2 --executor loop --transport nghttp2 --ca-file certs/ca.pem -n $N -m $M --body-bytes $BODY   # pushlab NGHTTP2Client"
  echo "h2load -n $N -c 1 -m $M -d <$BODY-byte file> $TLS_URL   # protocol ceiling"
  echo "(h2c rows: the same with the h2c URL and mode h2c; several clients: --clients K; pinned rows: taskset -c 0 <client>, server started with taskset -c 1)"
  echo '```'
  echo
  echo "Ratios are pushlab ÷ the C loop + filter (the like-for-like peer) unless the row says otherwise; targets (issue 26): CPU ≤ 1.25, req/s ≥ 0.8."
  echo
  echo "| client | req/s (median) | runs | CPU µs/req (median) | runs | failed (all runs) | connections | req/s ratio | CPU ratio |"
  echo "| --- | ---: | --- | ---: | --- | ---: | ---: | ---: | ---: |"
  row "C libcurl multi loop, libcurl as shipped, TLS h2" cplain-tls ""
  row "C libcurl multi loop + RST filter, TLS h2" c-tls ""
  row "**pushlab HTTPClient, callers on its loop, TLS h2**" pushlab-tls c-tls
  row "pushlab HTTPClient, callers on the global pool, TLS h2" pool-tls c-tls
  row "**pushlab NGHTTP2Client (--transport nghttp2), callers on its loop, TLS h2**" ng-tls c-tls
  row "h2load, TLS h2" h2load-tls ""
  row "C libcurl multi loop, libcurl as shipped, h2c" cplain-h2c ""
  row "C libcurl multi loop + RST filter, h2c" c-h2c ""
  row "**pushlab HTTPClient, callers on its loop, h2c**" pushlab-h2c c-h2c
  row "pushlab HTTPClient, callers on the global pool, h2c" pool-h2c c-h2c
  row "**pushlab NGHTTP2Client (--transport nghttp2), callers on its loop, h2c**" ng-h2c c-h2c
  row "h2load, h2c" h2load-h2c ""
  row "pushlab, 2 clients (2 connections, 2 loop threads), TLS (ratios vs 1 client)" pushlab-tls-x2 pushlab-tls
  row "pushlab NGHTTP2Client, 2 clients (2 connections, 2 loop threads), TLS (ratios vs 1 client)" ng-tls-x2 ng-tls
  echo
  echo "## Client on CPU 0, server on CPU 1 (\`taskset\`)"
  echo
  echo "| client | req/s (median) | client CPU µs/req (median) | runs | server CPU µs/req (median) | runs | failed | client CPU ratio |"
  echo "| --- | ---: | ---: | --- | ---: | --- | ---: | ---: |"
  pinrow "C libcurl loop + RST filter, TLS h2" pin-c-tls ""
  pinrow "**pushlab, callers on its loop, TLS h2**" pin-pushlab-tls pin-c-tls
  pinrow "pushlab, callers on the global pool, TLS h2" pin-pool-tls pin-c-tls
  pinrow "**pushlab NGHTTP2Client, callers on its loop, TLS h2**" pin-ng-tls pin-c-tls
  pinrow "C libcurl loop + RST filter, h2c" pin-c-h2c ""
  pinrow "**pushlab, callers on its loop, h2c**" pin-pushlab-h2c pin-c-h2c
  pinrow "**pushlab NGHTTP2Client, callers on its loop, h2c**" pin-ng-h2c pin-c-h2c
  echo
  if [ "$PROFILE_OK" = yes ]; then
    echo "## Where the time goes ($PROFILE_N requests over TLS, \`perf record -F 1999\`, unpinned)"
    echo
    for name in c loop pool ng; do
      case $name in c) title="C libcurl loop";; loop) title="pushlab, callers on the loop";; pool) title="pushlab, callers on the global pool";; ng) title="pushlab NGHTTP2Client, callers on the loop";; esac
      echo "$title, by library:"
      echo; echo '```'; cat "$TMP/$name.dso"; echo '```'; echo
      echo "$title, hottest symbols:"
      echo; echo '```'; cat "$TMP/$name.sym"; echo '```'; echo
    done
  else
    echo "perf is not usable here (perf_event_paranoid); no profile."
  fi
  cat <<'PROSE'
## Reading it

- Both libcurl clients spend their time in the same places: the kernel (two `sendto` and about
  two `poll` per request in both, counted with `strace -c -f`), libcurl's per-transfer
  machinery (URL parsing, building the request as HTTP/1-style text and converting it to HTTP/2
  header fields, `curl_strnequal` header matching, `sscanf` of the status line, `malloc`/`free`
  for every transfer) and OpenSSL/nghttp2 framing. h2load, one nghttp2 session with no
  per-request state machine, is an order of magnitude cheaper on the same connection.
- "Callers on the global pool" is how every caller used the client before issue 26: each
  request crosses from a pool thread to the loop thread and each answer back, a futex wake-up
  about every second request (`strace -c -f`, 20,000 h2c requests: 9,291 futex calls; with the
  callers on the loop: 56) plus the Swift runtime's enqueue on the pool. With
  `HTTPClient.executor` the loop resumes its callers by appending to a list only it reads, runs
  them, and starts their next requests in the same turn; what remains above the C loop is the
  Swift side of each exchange (task switch, continuation, response value).
- The pinned rows show each process's own cost with no core shared between client and server;
  a client on a machine with spare cores is bound by its CPU per request, so 1e6 ÷ (client CPU
  µs/req) is the rate one loop can reach, and `--clients K` (K loops) scale from there.
- NGHTTP2Client drops libcurl's per-transfer machinery altogether: one nghttp2 session per
  connection, header fields handed to nghttp2 as they are, frames gathered into one buffer per
  loop turn and written with one `SSL_write`/`send`; what is left per request is the Swift
  exchange (task switch, continuation, response value), nghttp2's framing and the crypto.
- Failures: every row counts transport errors plus non-2xx answers over all runs.
PROSE
  echo
  echo "## Every run"
  echo
  raw_table
} >"$OUT"
echo "transport-client.sh: wrote $OUT"
