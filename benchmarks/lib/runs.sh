# Sourced by benchmark scripts: every run is recorded as a raw row, medians are computed here
# (never typed by hand), and the results file says when, on what machine and under what load
# it was measured. Usage:
#   source benchmarks/lib/runs.sh        # records the date and the load average at start
#   ROUND=1; record pushlab_rate 22250   # one raw row: round, name, value
#   median pushlab_rate                  # → the median of every recorded value of that name
#   ratio A B                            # → A / B with two decimals
#   machine_lines                        # markdown bullets: date, machine, load at start and end
#   raw_table                            # markdown table of every raw row, in the order run
# A run is judged by its load: words like "quiet" are only ever written next to the load
# average (machine_lines prints it; nothing here calls a machine quiet).
# Source it after the script's scratch directory ($WORK or $TMP) exists: the rows live there.
RUNS_FILE="${WORK:-${TMP:?source runs.sh after WORK or TMP is set}}/runs.tsv"
: >"$RUNS_FILE"
RUNS_STARTED=$(date -u +%Y-%m-%dT%H:%M:%SZ)
RUNS_LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
ROUND=${ROUND:-1}

# record NAME VALUE — one raw row for the current $ROUND.
record() { printf '%s\t%s\t%s\n' "$ROUND" "$1" "$2" >>"$RUNS_FILE"; }

# values NAME → every recorded value of NAME, one per line, in the order recorded.
values() { awk -F'\t' -v k="$1" '$2 == k { print $3 }' "$RUNS_FILE"; }

# median NAME → the median (mean of the middle two for an even count), as recorded precision allows.
median() {
  values "$1" | sort -g | awk '{ v[NR] = $1 } END {
    if (NR == 0) { print "n/a"; exit }
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    if (m == int(m)) { printf "%d\n", m; exit }
    t = sprintf("%.3f", m); sub(/0+$/, "", t); print t }'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0 || a == "n/a" || b == "n/a") print "n/a"; else printf "%.2f\n", a / b }'; }

machine_lines() {
  echo "- date: $RUNS_STARTED (finished $(date -u +%Y-%m-%dT%H:%M:%SZ))"
  echo "- machine: $(nproc) cores ($(uname -srm)), $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), $(awk '/MemTotal/ { printf "%.1f GiB", $2/1048576 }' /proc/meminfo) RAM"
  echo "- load average (1/5/15 min) at start: **$RUNS_LOAD_START**, at end: $(cut -d' ' -f1-3 /proc/loadavg) — on $(nproc) cores; numbers taken under load are lower than on an idle machine"
}

# raw_table — every row recorded, in the order run.
raw_table() {
  echo "| round | measurement | value |"
  echo "| ---: | --- | ---: |"
  awk -F'\t' '{ printf "| %s | %s | %s |\n", $1, $2, $3 }' "$RUNS_FILE"
}
