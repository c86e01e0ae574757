# Sourced by a benchmark script before anything else it starts: a scratch directory, and the
# processes to stop whenever the script exits (done, failed or interrupted).
#   source benchmarks/lib/scratch.sh WORK        # $WORK is a new temporary directory
#   source benchmarks/lib/scratch.sh TMP KILL    # $TMP; stop with SIGKILL (no drain to wait for)
#   some-server & PIDS+=($!)                     # signalled (SIGTERM unless KILL) and waited for
#   scratch_extra_cleanup() { …; }               # optional: runs after the processes, before rm
# The directory is removed last, once every process that wrote into it has exited.
[ $# -ge 1 ] || { echo "scratch.sh: name the directory's variable (WORK or TMP)" >&2; exit 2; }
SCRATCH_VAR=$1
SCRATCH_SIGNAL=${2:-TERM}
printf -v "$SCRATCH_VAR" '%s' "$(mktemp -d)"
PIDS=()
scratch_cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill -s "$SCRATCH_SIGNAL" "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if declare -F scratch_extra_cleanup >/dev/null; then scratch_extra_cleanup; fi
  rm -rf "${!SCRATCH_VAR}"
}
trap scratch_cleanup EXIT
