#!/usr/bin/env bash
# CI entry point for the end-to-end tests against the real Codex CLI.
#
#   tests/e2e/codex/ci.sh PATH/TO/hookrules
#
# Installs the pinned @openai/codex (with its native binary for this platform, an
# optional dependency of the package) into ${HOOKRULES_E2E_CODEX_CACHE:-$HOME/.cache/hookrules-e2e-codex}
# (idempotent), then runs run_codex.py with that binary. Exit: run_codex.py's status; 0 with a
# loud "SKIPPED" banner and "0 passed, 0 failed, 5 skipped" only when the client is not cached and
# the npm registry cannot be reached; 1 when the install fails although the registry answers.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VERSION="0.169.0"
PKG="@openai/codex"
CACHE="${HOOKRULES_E2E_CODEX_CACHE:-$HOME/.cache/hookrules-e2e-codex}"
CLIENT="$CACHE/node_modules/$PKG/bin/codex.js"
HOOKRULES="${1:-}"
[ -x "$HOOKRULES" ] || { echo "usage: tests/e2e/codex/ci.sh PATH/TO/hookrules" >&2; exit 2; }
command -v node >/dev/null 2>&1 || { echo "e2e codex: node not found" >&2; exit 2; }
command -v git >/dev/null 2>&1 || { echo "e2e codex: git not found" >&2; exit 2; }

skip() {
  echo "============================================================"
  echo "SKIPPED: Codex CLI end-to-end tests NOT RUN: $*"
  echo "============================================================"
  echo "0 passed, 0 failed, 5 skipped"
  exit 0
}

client_version() {
  # The launcher runs the platform's native binary: this fails when that optional package is missing.
  node "$CLIENT" --version 2>/dev/null
}

if [ "$(client_version)" != "codex-cli $VERSION" ]; then
  command -v npm >/dev/null 2>&1 || skip "npm not found and no client cached in $CACHE"
  if ! timeout 20 npm ping --fetch-retries=0 >/dev/null 2>&1; then
    skip "the npm registry is unreachable and no client is cached in $CACHE"
  fi
  mkdir -p "$CACHE"
  [ -f "$CACHE/package.json" ] || echo '{"name":"hookrules-e2e-codex","private":true}' > "$CACHE/package.json"
  if ! timeout 600 npm install --prefix "$CACHE" --no-audit --no-fund --include=optional --save-exact "$PKG@$VERSION" >&2; then
    echo "e2e codex: FAILED: npm install $PKG@$VERSION failed although the registry answers" >&2
    exit 1
  fi
  if [ "$(client_version)" != "codex-cli $VERSION" ]; then
    echo "e2e codex: FAILED: $CLIENT --version does not say codex-cli $VERSION after install: $(node "$CLIENT" --version 2>&1 | tail -3)" >&2
    exit 1
  fi
fi
echo "e2e codex: client $PKG $VERSION ($CLIENT)"
timeout --kill-after=10 240 python3 "$HERE/run_codex.py" --codex "$CLIENT" --hookrules "$HOOKRULES"
