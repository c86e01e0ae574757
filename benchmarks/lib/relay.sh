# Sourced by benchmarks/relay.sh and benchmarks/relay-soak.sh (after $PUSHLAB, $WORK and the
# PIDS array exist): start_relay CONFIG DATA starts `pushlab relay` on a free port and sets
# RELAY_PID and RELAY_URL (the cleartext URL it prints); its output goes to $WORK/relay.log.
start_relay() {
  # Emptied here, before the fork: the child's own `>` may come after the first grep below,
  # which would then read the previous relay's line (a restart that "did not start").
  : >"$WORK/relay.log"
  "$PUSHLAB" relay --config "$1" --data "$2" --quiet >"$WORK/relay.log" 2>&1 &
  RELAY_PID=$!
  PIDS+=("$RELAY_PID")
  for _ in $(seq 1200); do grep -q '^relay: listening on ' "$WORK/relay.log" && break; sleep 0.05; done
  RELAY_URL=$(sed -n 's|^relay: listening on \([^ ]*\) .*|\1|p' "$WORK/relay.log")
  [ -n "$RELAY_URL" ] || {
    cat "$WORK/relay.log"
    # Still running: where it waits (gdb, if installed); gone: how it ended.
    if kill -0 "$RELAY_PID" 2>/dev/null; then
      ps -o pid,stat,wchan:32,etime,rss -p "$RELAY_PID" >&2
      command -v gdb >/dev/null && gdb -p "$RELAY_PID" -batch -ex 'thread apply all bt 12' 2>/dev/null | grep -E '^(Thread|#)' | head -80 >&2
    else
      wait "$RELAY_PID" && echo "the relay exited with status 0" >&2 || echo "the relay exited with status $?" >&2
    fi
    echo "$(basename "$0"): the relay did not start within 60 s" >&2; exit 1; }
}

# start_emulator [ARGS…] starts `pushlab serve` on free ports (quick start) and sets
# SERVE_PID and APNS_URL; its output goes to $WORK/serve.log.
start_emulator() {
  : >"$WORK/serve.log"  # as in start_relay
  "$PUSHLAB" serve --apns-port 0 --port 0 --h2c-port 0 --quiet "$@" >"$WORK/serve.log" 2>&1 &
  SERVE_PID=$!
  PIDS+=("$SERVE_PID")
  for _ in $(seq 200); do grep -q '^APNs: https://' "$WORK/serve.log" && break; sleep 0.05; done
  APNS_URL=$(sed -n 's|^APNs: \(https://[^ ]*\) .*|\1|p' "$WORK/serve.log")
  [ -n "$APNS_URL" ] || { cat "$WORK/serve.log"; echo "$(basename "$0"): the emulator did not start" >&2; exit 1; }
}

# fresh_emulator [ARGS…] stops the emulator start_emulator started last (if any) and starts a new
# one: an end-to-end measurement then meets an emulator in the same state whichever side ran
# before it (no connections, records or allocator state left by the previous run).
fresh_emulator() {
  if [ -n "${SERVE_PID:-}" ]; then kill "$SERVE_PID" 2>/dev/null || true; wait "$SERVE_PID" 2>/dev/null || true; fi
  start_emulator "$@"
}

# emulator_ticks → the emulator's CPU ticks (user + system) so far, from /proc/SERVE_PID/stat.
emulator_ticks() { awk '{ print $14 + $15 }' "/proc/$SERVE_PID/stat"; }

# relay_config FILE RATE_PER_MINUTE WORKERS [TRANSPORT] writes a relay.json with one app, bench, whose
# APNs host is the emulator at $APNS_URL (the dev .p8 key under $REPO/certs); TRANSPORT (nghttp2 or
# curl) becomes workers.transport, left out otherwise (builds before it reject the field).
relay_config() {
  cat >"$1" <<EOF
{"listen": {"port": 0}, "queue": {"capacity": 1000000000}, "workers": {"concurrency": $3${4:+, \"transport\": \"$4\"}},
 "apps": {"bench": {"rate_per_minute": $2,
   "apns": {"key": "$REPO/certs/AuthKey_PLDEVKEY01.p8", "key_id": "PLDEVKEY01", "team_id": "PLDEVTEAM1",
            "bundle_id": "io.pushlab.demo", "url": "$APNS_URL", "ca_file": "$REPO/certs/ca.pem"}}}}
EOF
}

# send_direct [PREFIX…] sends $WORK/tokens.txt with the payload the relay's end to end posts
# (benchmarks/lib/relay-e2e.py; written to $WORK/payload.json) straight to the emulator at
# $APNS_URL, the way relay ÷ direct measures it: `pushlab send apns --tokens` with $CONCURRENCY in
# flight on one connection (and ${DIRECT_TRANSPORT[@]} when set). PREFIX runs it under another
# command (`perf stat … --`). Its JSON goes to $WORK/direct.json, its errors to $WORK/direct.err.
send_direct() {
  printf '%s' '{"aps":{"alert":{"title":"bench","body":"relay end to end"}}}' >"$WORK/payload.json"
  "$@" "$PUSHLAB" send apns --url "$APNS_URL" --ca-file certs/ca.pem --key certs/AuthKey_PLDEVKEY01.p8 --team-id PLDEVTEAM1 \
    --topic io.pushlab.demo --tokens "$WORK/tokens.txt" --concurrency "$CONCURRENCY" --connections 1 ${DIRECT_TRANSPORT[@]+"${DIRECT_TRANSPORT[@]}"} \
    --no-history --json "$WORK/payload.json" >"$WORK/direct.json" 2>"$WORK/direct.err"
}
