#!/usr/bin/env bash
# Install the pinned Claude Code client for the e2e tests; idempotent.
#   tests/e2e/install_client.sh [CACHE_DIR]     (default: $HOME/.cache/hookrules-e2e)
# Prints the path of the native `claude` binary on the last line of stdout.
# Exit: 0 ok, 3 npm missing, 4 npm install failed (e.g. registry unreachable),
#       5 installed but the binary is missing or is not the pinned version.
set -euo pipefail
VERSION="2.1.330"
PKG="@anthropic-ai/claude-code"
DIR="${1:-${HOME}/.cache/hookrules-e2e}"
BIN="$DIR/node_modules/$PKG/bin/claude.exe"

version_ok() {  # $1 = candidate binary; runs --version in an empty, offline-ish env
  [ -x "$1" ] || return 1
  local h; h="$(mktemp -d)"
  local out
  out="$(env -i PATH="$PATH" HOME="$h" CLAUDE_CONFIG_DIR="$h/.claude" DISABLE_TELEMETRY=1 \
        DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
        timeout 60 "$1" --version 2>/dev/null || true)"
  rm -rf "$h"
  case "$out" in "$VERSION "*) return 0 ;; *) return 1 ;; esac
}

if version_ok "$BIN"; then echo "$BIN"; exit 0; fi

command -v npm >/dev/null 2>&1 || { echo "install_client.sh: npm not found" >&2; exit 3; }
mkdir -p "$DIR"
[ -f "$DIR/package.json" ] || echo '{"name":"hookrules-e2e-client","private":true}' >"$DIR/package.json"
# Pin exactly: a plain install has resolved to an older version (2.1.197) before.
if ! timeout 900 npm install --prefix "$DIR" --no-audit --no-fund --save-exact \
      --fetch-retries=1 "$PKG@$VERSION" >&2; then
  echo "install_client.sh: npm install $PKG@$VERSION failed (registry unreachable?)" >&2
  exit 4
fi
if version_ok "$BIN"; then echo "$BIN"; exit 0; fi
# bin/claude.exe is filled in by the package's postinstall; if install scripts did not
# run it may be a stub. The platform package ships the same binary: use that one.
for cand in "$DIR"/node_modules/@anthropic-ai/claude-code-*/claude; do
  if version_ok "$cand"; then echo "$cand"; exit 0; fi
done
echo "install_client.sh: no working $PKG $VERSION binary under $DIR" >&2
exit 5
