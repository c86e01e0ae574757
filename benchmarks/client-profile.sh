#!/usr/bin/env bash
# benchmarks/client-profile.sh → benchmarks/results/client-profile.md — where the sending CPU of
# pushlab's libcurl client goes (issue 26), and how it compares with C programs driving libcurl
# the same way. Against one `pushlab-bench-push-server` (APNs-shaped answers):
#   - the C APNs loop (benchmarks/c/curl_apns_bench.c: libcurl's multi interface sending exactly
#     the request `pushlab send apns` sends; linked, like pushlab, with the RST_STREAM filter of
#     Sources/CPushLab/curl_shim.c), the old build's and this build's
#     `pushlab send apns --tokens` (one connection, --concurrency 200, --no-history);
# and against one `pushlab serve --bench` (POST /bench → empty 200) over TLS:
#   - the C loop of benchmarks/c/curl_multi_bench.c (+ the RST_STREAM filter), the old and the
#     new `pushlab-bench-client` (callers on the client's loop, 100 in flight).
# For each client:
#   1. calls per request, counted with uprobes (`perf probe`, needs root) on libcurl's
#      curl_strnequal (its case-insensitive compare: header lookups), libc's malloc and Swift's
#      swift_retain / swift_release / swift_allocObject, and the system calls per request
#      (tracepoints): counts, not times, so the machine's load does not move them;
#   2. CPU per request of the client and of the server (user + system ticks of each process
#      over the run ÷ requests), ROUNDS interleaved runs, medians;
#   3. a `perf record -e cpu-clock --call-graph dwarf` profile of old and new `send apns`: the
#      share of samples inside curl_multi_perform, in the tasks the client's loop runs
#      (PushSend's per-push work) and elsewhere, and the top symbols.
#
#   OLD_DIR=dir/with/old/binaries OLD_NOTE="release build of <commit>" ROUNDS=5 N=20000 benchmarks/client-profile.sh
# OLD_DIR holds the old build's pushlab and pushlab-bench-client (without it only this build
# is measured). Results never name OLD_DIR (a path outside the repository): OLD_NOTE says what it is.
set -euo pipefail
export PUSHLAB_BENCH=1  # the pushlab-bench-* drivers exist only then (Package.swift)
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
N=${N:-20000}                 # requests or pushes per CPU run
COUNT_N=${COUNT_N:-5000}      # per counting run (uprobes slow the client down a lot)
PROFILE_N=${PROFILE_N:-20000}
CONCURRENCY=${CONCURRENCY:-200}
M=${M:-100}
OUT=${OUT:-benchmarks/results/client-profile.md}
command -v perf >/dev/null || { echo "client-profile.sh: perf is not installed (apt-get install linux-perf)" >&2; exit 1; }
[ -n "${SKIP_BUILD:-}" ] || for p in pushlab pushlab-bench-client pushlab-bench-push-server; do swift build -c release --product "$p" >/dev/null; done
NEW_DIR=.build/release
BUILDS=(new)
[ -z "${OLD_DIR:-}" ] || BUILDS=(old new)
dir_of() { if [ "$1" = old ]; then echo "$OLD_DIR"; else echo "$NEW_DIR"; fi; }

source benchmarks/lib/scratch.sh WORK
PROBES=()
scratch_extra_cleanup() { for e in "${PROBES[@]}"; do perf probe -q -d "$e" 2>/dev/null || true; done; }
source benchmarks/lib/runs.sh
source benchmarks/lib/listening.sh   # cpu_ticks PID, TICK_US

CAPNS=$WORK/curl_apns_bench
CBENCH=$WORK/curl_multi_bench_filtered
cc -O2 -rdynamic -I Sources/CPushLab/include -o "$CAPNS" benchmarks/c/curl_apns_bench.c Sources/CPushLab/curl_shim.c -lcurl -lnghttp2
cc -O2 -rdynamic -I Sources/CPushLab/include -o "$CBENCH" benchmarks/c/curl_multi_bench.c Sources/CPushLab/curl_shim.c -lcurl -lnghttp2

# Servers: this build's, the same for every client.
"$NEW_DIR/pushlab-bench-push-server" --max-streams 500 >"$WORK/push.url" 2>"$WORK/push.err" &
PUSH_PID=$!
PIDS+=("$PUSH_PID")
"$NEW_DIR/pushlab" serve --bench --apns-port 0 --port 0 --h2c-port 0 >"$WORK/serve.out" 2>"$WORK/serve.err" &
SERVE_PID=$!
PIDS+=("$SERVE_PID")
for _ in $(seq 100); do [ -s "$WORK/push.url" ] && grep -q "(h2c, " "$WORK/serve.out" && break; sleep 0.1; done
PUSH_URL=$(head -1 "$WORK/push.url")
TLS_URL="$(awk '/\(h2, / { print $1 }' "$WORK/serve.out")/bench"
TLS_URL=${TLS_URL/127.0.0.1/localhost}   # the certificate names localhost
[ -n "$PUSH_URL" ] && [ "$TLS_URL" != "/bench" ] || { echo "client-profile.sh: servers did not start" >&2; cat "$WORK"/*.err >&2; exit 1; }

for n in "$N" "$COUNT_N" "$PROFILE_N"; do
  python3 -c "
with open('$WORK/tokens-$n.txt', 'w') as f:
    for i in range($n): f.write('%064x\n' % i)"
done
printf '%s' '{"aps":{"alert":{"title":"Benchmark","body":"Hello from the benchmark"}}}' >"$WORK/payload.json"
# The C loop's authorization: a provider JWT from the same key, minted once (never printed).
JWT=$(.venv/bin/python -c "
import jwt, time
print(jwt.encode({'iss':'PLDEVTEAM1','iat':int(time.time())}, open('certs/AuthKey_PLDEVKEY01.p8').read(), algorithm='ES256', headers={'kid':'PLDEVKEY01'}))")

# A build whose `send apns` can choose its transport (--transport) is told to use libcurl's
# client: the one this profile is about.
curl_transport_flag() { if "$1/pushlab" send apns --help 2>&1 | grep -q -- '--transport'; then echo "--transport curl"; fi; }
# set_cmd KIND BUILD N → CMD, the command line of one run (KIND: capns, send, cbench, bench).
set_cmd() {
  local dir
  dir=$(dir_of "$2")
  case $1 in
    capns) CMD=("$CAPNS" "$PUSH_URL" "$3" "$CONCURRENCY" certs/ca.pem "bearer $JWT") ;;
    send) CMD=("$dir/pushlab" send apns $(curl_transport_flag "$dir") --url "$PUSH_URL" --ca-file certs/ca.pem --key certs/AuthKey_PLDEVKEY01.p8
                --team-id PLDEVTEAM1 --topic io.pushlab.demo --tokens "$WORK/tokens-$3.txt" --concurrency "$CONCURRENCY"
                --connections 1 --no-history --json "$WORK/payload.json") ;;
    cbench) CMD=("$CBENCH" "$TLS_URL" "$3" "$M" h2 certs/ca.pem 200) ;;
    bench) CMD=("$dir/pushlab-bench-client" --url "$TLS_URL" --mode http2 --ca-file certs/ca.pem -n "$3" -m "$M" --body-bytes 200) ;;
  esac
}
label() {
  case $1 in
    capns) echo "C APNs loop + RST filter (libcurl)" ;;
    send) echo "$2 pushlab send apns --tokens" ;;
    cbench) echo "C loop + RST filter (libcurl), TLS" ;;
    bench) echo "$2 pushlab-bench-client, TLS" ;;
  esac
}
CLIENTS=("capns -")
for b in "${BUILDS[@]}"; do CLIENTS+=("send $b"); done
CLIENTS+=("cbench -")
for b in "${BUILDS[@]}"; do CLIENTS+=("bench $b"); done
server_of() { case $1 in capns|send) echo "$PUSH_PID" ;; *) echo "$SERVE_PID" ;; esac; }

# 1. Call counts (one run of COUNT_N requests per client).
echo "client-profile.sh: counting calls" >&2
add_probe() {  # add_probe LIB SYMBOL NAME — a uprobe at SYMBOL's address, as event NAME
  local lib=$1 sym=$2 name=$3 addr group
  addr=$(nm -D --defined-only "$lib" | awk -v s="$sym" '!found && ($3 == s || $3 ~ "^"s"@@") { print $1; found = 1 }')
  [ -n "$addr" ] || { echo "client-profile.sh: $sym not found in $lib" >&2; exit 1; }
  perf probe -q -d "probe_*:$name" 2>/dev/null || true
  perf probe -q -x "$lib" -a "$name=0x$addr"
  group=$(perf probe -l 2>/dev/null | awk -v n=":$name " '!found && index($0 " ", n) { print $1; found = 1 }')
  PROBES+=("$group")
  EVENTS+=("$group")
}
EVENTS=()
lib_of() { ldd "$NEW_DIR/pushlab" | awk -v l="$1" '!found && index($1, l) == 1 { print $3; found = 1 }'; }
add_probe "$(readlink -f "$(lib_of libcurl.so)")" curl_strnequal plp_strnequal
add_probe "$(readlink -f "$(lib_of libc.so)")" malloc plp_malloc
add_probe "$(lib_of libswiftCore.so)" swift_retain plp_swift_retain
add_probe "$(lib_of libswiftCore.so)" swift_release plp_swift_release
add_probe "$(lib_of libswiftCore.so)" swift_allocObject plp_swift_allocObject
SYSCALLS=(sendto recvfrom setsockopt poll epoll_wait futex)
for s in "${SYSCALLS[@]}"; do EVENTS+=("syscalls:sys_enter_$s"); done
COUNT_NAMES=(curl_strnequal malloc swift_retain swift_release swift_allocObject "${SYSCALLS[@]}")
IFS=,; EVENT_LIST="${EVENTS[*]}"; unset IFS
ROUND=1
for c in "${CLIENTS[@]}"; do
  read -r kind build <<<"$c"
  set_cmd "$kind" "$build" "$COUNT_N"
  perf stat -x, -e "$EVENT_LIST" -o "$WORK/stat.txt" -- "${CMD[@]}" >/dev/null 2>&1 || true
  i=0
  while IFS=, read -r value _ event _; do
    [ -n "$event" ] || continue
    record "$(label "$kind" "$build") ${COUNT_NAMES[$i]} per request" "$(awk -v v="$value" -v n="$COUNT_N" 'BEGIN { printf "%.1f", v / n }')"
    i=$((i + 1))
  done < <(grep -v '^#' "$WORK/stat.txt" | grep ',')
done

# 2. CPU per request, client and server, ROUNDS interleaved runs of N.
for ROUND in $(seq "$ROUNDS"); do
  echo "client-profile.sh: CPU round $ROUND/$ROUNDS" >&2
  for c in "${CLIENTS[@]}"; do
    read -r kind build <<<"$c"
    server=$(server_of "$kind")
    before=$(cpu_ticks "$server")
    set_cmd "$kind" "$build" "$N"
    /usr/bin/time -f "%U %S" -o "$WORK/time.txt" "${CMD[@]}" >"$WORK/out.txt" 2>/dev/null || true
    after=$(cpu_ticks "$server")
    name=$(label "$kind" "$build")
    record "$name client CPU µs/req" "$(awk -v n="$N" '{ printf "%.1f", ($1 + $2) * 1e6 / n }' "$WORK/time.txt")"
    record "$name server CPU µs/req" "$(awk -v a="$before" -v b="$after" -v t="$TICK_US" -v n="$N" 'BEGIN { printf "%.1f", (b - a) * t / n }')"
    if [ "$kind" = send ]; then
      record "$name req/s" "$(python3 -c "import json; d = json.load(open('$WORK/out.txt')); print(d['perSecond'] if d['accepted'] == $N else 'failed')")"
    else
      record "$name req/s" "$(tr ' ' '\n' <"$WORK/out.txt" | awk -F= -v n="$N" '$1 == "ok" && $2 != n { bad = 1 } $1 == "rps" { r = $2 } END { print bad ? "failed" : r }')"
    fi
  done
done

# 3. Profiles of send apns.
ROUND=1
# Reads `perf script -F ip,sym,dso` (call stacks, leaf first) and prints where the samples were.
cat >"$WORK/where.py" <<'PYEOF'
import re, sys, collections
stacks, cur = [], []
for line in sys.stdin:
    line = line.rstrip()
    if not line:
        if cur: stacks.append(cur); cur = []
        continue
    m = re.match(r"\s*[0-9a-f]+\s+(.*?)\s+\((.*)\)$", line)
    if m: cur.append((re.sub(r"\+0x[0-9a-f]+$", "", m.group(1)), m.group(2).split("/")[-1]))
if cur: stacks.append(cur)
total = len(stacks) or 1
where = collections.Counter(); leaf = collections.Counter()
for st in stacks:
    syms = [s for s, _ in st]
    if any(s == "curl_multi_perform" for s in syms): w = "inside curl_multi_perform (libcurl, nghttp2, OpenSSL, kernel)"
    elif any("CurlLoopExecutor" in s and "runJobs" in s for s in syms): w = "tasks run on the client loop (PushSend per push, HTTPClient.send)"
    elif any("CurlMultiLoop" in s for s in syms): w = "the loop itself (starting, finishing, handing back transfers)"
    else: w = "elsewhere (other threads: start-up, reading tokens, output)"
    where[w] += 1
    leaf[st[0][1] + "  " + st[0][0][:110]] += 1
pushes = int(sys.argv[1])
print(f"samples: {total} at 999 Hz, {total / 999 * 1e6 / pushes:.1f} µs of CPU per push (with perf attached: more than without)")
print()
print("| where | share of samples | µs per push |")
print("| --- | ---: | ---: |")
for w, c in where.most_common(): print(f"| {w} | {100 * c / total:.1f}% | {c / 999 * 1e6 / pushes:.1f} |")
print()
print("Top leaf symbols (library, symbol):")
print()
print("```")
for s, c in leaf.most_common(20): print(f"{100 * c / total:6.2f}%  {s}")
print("```")
PYEOF
profile_lines() {  # profile_lines BUILD → markdown lines
  local build=$1 data=$WORK/perf-$1.data
  set_cmd send "$build" "$PROFILE_N"
  perf record -q -e cpu-clock -F 999 --call-graph dwarf,32768 -o "$data" -- "${CMD[@]}" >/dev/null 2>&1 || true
  perf script -i "$data" -F ip,sym,dso 2>/dev/null | python3 "$WORK/where.py" "$PROFILE_N" | swift demangle --simplified
}

{
  echo "# Where pushlab's sending CPU goes (issue 26): call counts, CPU per request, profiles"
  echo
  machine_lines
  if [ -n "${OLD_DIR:-}" ]; then old_text="${OLD_NOTE:-another build}"; else old_text="not measured (no OLD_DIR)"; fi
  echo "- new: the release build of $(git rev-parse --short HEAD) (this tree); old: $old_text"
  echo "- every pushlab row runs libcurl's client (HTTPClient): builds whose \`send apns\` has \`--transport\` are given \`--transport curl\`"
  echo "- servers (this build's, shared by every client): \`pushlab-bench-push-server --max-streams 500\` (APNs-shaped: 200 and the apns-id echoed) and \`pushlab serve --bench\` (POST /bench → empty 200, TLS, 100 streams)"
  echo "- $(curl --version | head -1 | cut -d' ' -f1-5); Swift $(swift --version 2>&1 | sed -n 's/.*Swift version \([0-9.]*\).*/\1/p' | head -1)"
  echo
  echo "## Calls per request (one run of $COUNT_N each; uprobes and syscall tracepoints, \`perf stat\`)"
  echo
  printf '| client |'; for n in "${COUNT_NAMES[@]}"; do printf ' %s |' "$n"; done; echo
  printf '| --- |'; for _ in "${COUNT_NAMES[@]}"; do printf ' ---: |'; done; echo
  for c in "${CLIENTS[@]}"; do
    read -r kind build <<<"$c"
    name=$(label "$kind" "$build")
    printf '| %s |' "$name"; for n in "${COUNT_NAMES[@]}"; do printf ' %s |' "$(median "$name $n per request")"; done; echo
  done
  echo
  echo 'curl_strnequal is libcurl'"'"'s case-insensitive compare: libcurl runs it over every custom header line for each header name it looks up while building a request, and over every response header line, so its count follows the request'"'"'s shape (the C APNs loop sends the same six lines as `send apns`). The swift_* columns are 0 for the C programs (they do not load Swift).'
  echo
  echo "## CPU per request ($ROUNDS interleaved rounds of $N; medians)"
  echo
  echo "| client | client CPU µs/req | server CPU µs/req | req/s | client ÷ C loop | client new ÷ old | server new ÷ old |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
  for c in "${CLIENTS[@]}"; do
    read -r kind build <<<"$c"
    name=$(label "$kind" "$build")
    cl=$(median "$name client CPU µs/req"); sv=$(median "$name server CPU µs/req")
    case $kind in send|capns) peer="$(label capns -)" ;; *) peer="$(label cbench -)" ;; esac
    vs_c=""; [ "$kind" = send ] || [ "$kind" = bench ] && vs_c=$(ratio "$cl" "$(median "$peer client CPU µs/req")")
    vs_old=""; vs_old_s=""
    if [ "$build" = new ] && [ ${#BUILDS[@]} -eq 2 ]; then
      old=$(label "$kind" old)
      vs_old=$(ratio "$cl" "$(median "$old client CPU µs/req")"); vs_old_s=$(ratio "$sv" "$(median "$old server CPU µs/req")")
    fi
    echo "| $name | $cl | $sv | $(median "$name req/s") | $vs_c | $vs_old | $vs_old_s |"
  done
  echo
  echo "Client CPU: user + system time of the client process (/usr/bin/time, 10 ms ticks, start-up included) ÷ requests. Server CPU: the server process's ticks over the run ÷ requests."
  for b in "${BUILDS[@]}"; do
    echo
    echo "## Profile: $b \`pushlab send apns --tokens\` ($PROFILE_N pushes, \`perf record -e cpu-clock -F 999 --call-graph dwarf\`)"
    echo
    profile_lines "$b"
  done
  echo
  echo "## Every run"
  echo
  raw_table
  echo
  echo "## Commands"
  echo
  echo '```'
  echo "OLD_DIR=<old build> OLD_NOTE=\"${OLD_NOTE:-…}\" ROUNDS=$ROUNDS N=$N COUNT_N=$COUNT_N PROFILE_N=$PROFILE_N benchmarks/client-profile.sh"
  echo "cc -O2 -rdynamic -I Sources/CPushLab/include -o curl_apns_bench benchmarks/c/curl_apns_bench.c Sources/CPushLab/curl_shim.c -lcurl -lnghttp2"
  echo "curl_apns_bench PUSH_URL N $CONCURRENCY certs/ca.pem 'bearer <JWT>'"
  echo "pushlab send apns --url PUSH_URL --ca-file certs/ca.pem --key certs/AuthKey_PLDEVKEY01.p8 --team-id PLDEVTEAM1 --topic io.pushlab.demo --tokens tokens.txt --concurrency $CONCURRENCY --connections 1 --no-history --json payload.json"
  echo "curl_multi_bench_filtered TLS_URL N $M h2 certs/ca.pem 200"
  echo "pushlab-bench-client --url TLS_URL --mode http2 --ca-file certs/ca.pem -n N -m $M --body-bytes 200"
  echo "perf stat -x, -e <uprobes on curl_strnequal, malloc, swift_retain, swift_release, swift_allocObject>,syscalls:sys_enter_<…> -- <client>"
  echo '```'
} >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "client-profile.sh: wrote $OUT" >&2
