#!/usr/bin/env bash
# CI entry point for the end-to-end tests against the real Claude Code client.
#
#   tests/e2e/ci.sh PATH/TO/hookrules
#
# Builds nothing: $1 is the hookrules binary to test. Installs the pinned client
# (install_client.sh) into ${HOOKRULES_E2E_CACHE:-$HOME/.cache/hookrules-e2e}, then runs
# every scenario with that binary and the scenario's policies (run_e2e.py's default mode).
#
# Exit status: run_e2e.py's (0 all passed, 1 a failure, 2 setup error), or
#   0 with a loud "SKIPPED: ..." line and "0 passed, 0 failed, N skipped" when the client is
#     not cached and the npm registry cannot be reached (nothing was tested; say so),
#   1 when the client cannot be installed although the registry answers,
#   2 on a usage error (no binary, npm or python3 missing).
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${HOOKRULES_E2E_CACHE:-$HOME/.cache/hookrules-e2e}"
PING_TIMEOUT=20        # seconds to decide the registry is unreachable
INSTALL_TIMEOUT=300    # seconds for npm install (normally 5-10 s)
SUITE_TIMEOUT=180      # seconds for the whole suite (normally about 40 s)
SCENARIO_TIMEOUT=30    # seconds per scenario (normally under 5 s)

t_start=$(date +%s)
n_scenarios=$(find "$HERE/scenarios" -maxdepth 1 -name '*.json' | wc -l)

die() { echo "e2e ci: error: $*" >&2; exit "${2:-2}"; }

skip() {
  echo "============================================================"
  echo "SKIPPED: Claude Code end-to-end tests NOT RUN: $*"
  echo "============================================================"
  echo "0 passed, 0 failed, ${n_scenarios} skipped"
  exit 0
}

# registry_reachable: npm can talk to its configured registry within PING_TIMEOUT.
registry_reachable() {
  timeout "$PING_TIMEOUT" npm ping --fetch-retries=0 --fetch-timeout=$((PING_TIMEOUT * 1000 - 2000)) \
    >/dev/null 2>&1
}

HOOKRULES="${1:-}"
[ -n "$HOOKRULES" ] || die "usage: tests/e2e/ci.sh PATH/TO/hookrules (build it first)"
[ -f "$HOOKRULES" ] && [ -x "$HOOKRULES" ] || die "hookrules binary '$HOOKRULES' is not an executable file"
command -v python3 >/dev/null 2>&1 || die "python3 not found (the harness needs Python >= 3.8, stdlib only)"
echo "e2e ci: hookrules $("$HOOKRULES" --version 2>&1 | head -1) at $HOOKRULES; client cache $CACHE"

# 1. The pinned client. install_client.sh returns at once when the cache already holds it.
cached="$CACHE/node_modules/@anthropic-ai/claude-code/bin/claude.exe"
if [ ! -x "$cached" ]; then
  command -v npm >/dev/null 2>&1 || die "npm not found and no client cached at $cached"
  registry_reachable || skip "the npm registry ($(npm config get registry 2>/dev/null)) is unreachable" \
    "and no client is cached in $CACHE"
fi
install_log="$(mktemp)"
trap 'rm -f "$install_log"' EXIT
t0=$(date +%s)
if ! client="$(timeout "$INSTALL_TIMEOUT" bash "$HERE/install_client.sh" "$CACHE" 2>"$install_log" | tail -n 1)" \
   || [ -z "$client" ]; then
  cat "$install_log" >&2
  if command -v npm >/dev/null 2>&1 && ! registry_reachable; then
    skip "installing the client failed and the npm registry ($(npm config get registry 2>/dev/null)) is unreachable"
  fi
  die "could not install the pinned Claude Code client into $CACHE although the registry answers (see above)" 1
fi
echo "e2e ci: client $client (ready in $(( $(date +%s) - t0 ))s)"

# 2. The suite, with the real binary and each scenario's policies.
t0=$(date +%s)
timeout --kill-after=10 "$SUITE_TIMEOUT" python3 "$HERE/run_e2e.py" \
  --client "$client" --no-install --hookrules "$HOOKRULES" --timeout "$SCENARIO_TIMEOUT"
rc=$?
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
  echo "e2e ci: FAILED: the suite did not finish within ${SUITE_TIMEOUT}s" >&2
  rc=1
fi
echo "e2e ci: suite exit $rc in $(( $(date +%s) - t0 ))s; total $(( $(date +%s) - t_start ))s"
exit "$rc"
