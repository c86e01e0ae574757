# Sourced by benchmark scripts: find the TCP port a process listens on (servers started on
# port 0, e.g. nghttpd, which prints nothing useful), and read a process's CPU time.

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

# cpu_ticks PID → user + system time of PID so far, in clock ticks (TICK_US µs each).
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
TICK_US=$(( 1000000 / $(getconf CLK_TCK) ))
