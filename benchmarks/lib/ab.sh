# Sourced by the A/B scripts (gateway-ab.sh, relay-ab.sh) from the repository root: builds the
# new release binary unless SKIP_BUILD, and sets OLD_BIN — given, or BASE's release binary built
# in a detached worktree. Exits 0 with a note when neither OLD_BIN nor BASE is set.
[ -n "${SKIP_BUILD:-}" ] || swift build -c release --product pushlab >/dev/null
if [ -z "${OLD_BIN:-}" ]; then
  if [ -z "${BASE:-}" ]; then echo "$(basename "$0"): nothing to compare with; set BASE=<commit> or OLD_BIN=<binary>"; exit 0; fi
  BASE_WORKTREE=$(mktemp -d)/base
  git worktree add -q --detach "$BASE_WORKTREE" "$BASE"
  (cd "$BASE_WORKTREE" && swift build -c release --product pushlab >/dev/null)
  OLD_BIN=$BASE_WORKTREE/.build/release/pushlab
fi
