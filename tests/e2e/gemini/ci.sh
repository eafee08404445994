#!/usr/bin/env bash
# CI entry point for the end-to-end tests against the real Gemini CLI.
#
#   tests/e2e/gemini/ci.sh PATH/TO/hookrules
#
# Installs the pinned @google/gemini-cli into ${HOOKRULES_E2E_GEMINI_CACHE:-$HOME/.cache/hookrules-e2e-gemini}
# (idempotent), then runs run_gemini.py with that binary. Exit: run_gemini.py's status; 0 with a
# loud "SKIPPED" banner and "0 passed, 0 failed, 2 skipped" only when the client is not cached and
# the npm registry cannot be reached; 1 when the install fails although the registry answers.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VERSION="0.61.0"
PKG="@google/gemini-cli"
CACHE="${HOOKRULES_E2E_GEMINI_CACHE:-$HOME/.cache/hookrules-e2e-gemini}"
CLIENT="$CACHE/node_modules/$PKG/bundle/gemini.js"
HOOKRULES="${1:-}"
[ -x "$HOOKRULES" ] || { echo "usage: tests/e2e/gemini/ci.sh PATH/TO/hookrules" >&2; exit 2; }
command -v node >/dev/null 2>&1 || { echo "e2e gemini: node not found" >&2; exit 2; }

skip() {
  echo "============================================================"
  echo "SKIPPED: Gemini CLI end-to-end tests NOT RUN: $*"
  echo "============================================================"
  echo "0 passed, 0 failed, 2 skipped"
  exit 0
}

installed_version() {
  node -e "console.log(require('$CACHE/node_modules/$PKG/package.json').version)" 2>/dev/null
}

if [ "$(installed_version)" != "$VERSION" ]; then
  command -v npm >/dev/null 2>&1 || skip "npm not found and no client cached in $CACHE"
  if ! timeout 20 npm ping --fetch-retries=0 >/dev/null 2>&1; then
    skip "the npm registry is unreachable and no client is cached in $CACHE"
  fi
  mkdir -p "$CACHE"
  [ -f "$CACHE/package.json" ] || echo '{"name":"hookrules-e2e-gemini","private":true}' > "$CACHE/package.json"
  if ! timeout 600 npm install --prefix "$CACHE" --no-audit --no-fund --save-exact "$PKG@$VERSION" >&2; then
    echo "e2e gemini: FAILED: npm install $PKG@$VERSION failed although the registry answers" >&2
    exit 1
  fi
fi
[ -f "$CLIENT" ] || { echo "e2e gemini: FAILED: $CLIENT missing after install" >&2; exit 1; }
echo "e2e gemini: client $PKG $VERSION ($CLIENT)"
timeout --kill-after=10 240 python3 "$HERE/run_gemini.py" --client "$CLIENT" --hookrules "$HOOKRULES"
