# Sourced by benchmark scripts: find the TCP port a process listens on (servers started on
# port 0, e.g. nghttpd, which prints nothing useful), pick a free port, wait for a log line,
# and read a process's CPU time.

# port_of PID → the port PID listens on (waits up to 5 s; exits the script if none).
port_of() {
  local pid=$1 p
  for _ in $(seq 100); do
    p=$(ss -ltnpH 2>/dev/null | awk -v pid="pid=$pid," '$0 ~ pid { n = split($4, a, ":"); print a[n]; exit }')
    [ -n "$p" ] && { echo "$p"; return; }
    sleep 0.05
  done
  echo "$(basename "$0"): process $pid is not listening" >&2; exit 1
}

# free_port → a TCP port free on loopback now (for servers that cannot be started on port 0).
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# wait_for FILE PATTERN → waits up to 30 s for PATTERN in FILE; else prints the file and exits.
wait_for() {
  for _ in $(seq 600); do grep -q "$2" "$1" 2>/dev/null && return; sleep 0.05; done
  echo "$(basename "$0"): no '$2' in $1:" >&2; cat "$1" >&2; exit 1
}

# cpu_ticks PID → user + system time of PID so far, in clock ticks (TICK_US µs each).
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
TICK_US=$(( 1000000 / $(getconf CLK_TCK) ))
