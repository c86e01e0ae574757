# Sourced (from the repository root) by benchmarks/apns-send.sh and benchmarks/fcm-send.sh:
# release builds of pushlab ($PUSHLAB) and pushlab-bench-push-server, the server started on a
# free port ($URL, $SERVER_PID), a scratch directory ($WORK) removed on exit, and stop_server.
# $PY is the venv's Python. The server's counts end up in $WORK/server.err once it stopped.
source benchmarks/lib/scratch.sh WORK
# SIGTERM, then up to 10 s for the server to print its counts and exit.
stop_server() {
  kill "$SERVER_PID" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=
}

swift build -c release --product pushlab >/dev/null
swift build -c release --product pushlab-bench-push-server >/dev/null
PUSHLAB=.build/release/pushlab
PY=.venv/bin/python

.build/release/pushlab-bench-push-server --max-streams 500 >"$WORK/url" 2>"$WORK/server.err" &
SERVER_PID=$!; PIDS+=($!)
for _ in $(seq 50); do [ -s "$WORK/url" ] && break; sleep 0.1; done
URL=$(head -1 "$WORK/url")
