#!/bin/sh
# Install hookrules from a release: picks the archive for this machine, checks
# its SHA-256 against the release's SHA256SUMS, and puts the binary on PATH.
# Needs only sh, uname, tar, and curl or wget (no Rust toolchain).
#
#   curl -fsSL RELEASE_URL/install.sh | sh
#   sh install.sh [--to DIR] [--from URL_OR_DIR] [--print-target]
#
# Environment: HOOKRULES_DOWNLOAD_URL (where the archives are: an http(s) or
# file URL, or a folder), HOOKRULES_INSTALL_DIR (default ~/.local/bin).
# Nothing is installed unless the checksum matches; an existing binary is only
# replaced by a rename once the new one has run.
set -eu

# Filled in by the release workflow with the release's download URL.
DEFAULT_URL="__HOOKRULES_RELEASE_URL__"

say() { printf 'hookrules install: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

url="${HOOKRULES_DOWNLOAD_URL:-$DEFAULT_URL}"
dir="${HOOKRULES_INSTALL_DIR:-${HOME:?HOME is not set}/.local/bin}"
print_target=0
while [ $# -gt 0 ]; do
  case "$1" in
    --to) dir=$2; shift 2 ;;
    --from) url=$2; shift 2 ;;
    --print-target) print_target=1; shift ;;
    -h|--help) sed -n '2,13p' "$0" 2>/dev/null || true; exit 0 ;;
    *) die "unknown argument: $1" ;;
  esac
done

# The archive for this machine. Linux gets the static musl build, which runs on
# any distribution; macOS its own; others are told to build from source.
target() {
  os=${HOOKRULES_UNAME_S:-$(uname -s)}
  arch=${HOOKRULES_UNAME_M:-$(uname -m)}
  case "$arch" in
    x86_64|amd64) arch=x86_64 ;;
    aarch64|arm64) arch=aarch64 ;;
    *) die "no prebuilt hookrules for CPU '$arch'; build it with: cargo install --locked --path ." ;;
  esac
  case "$os" in
    Linux) echo "$arch-unknown-linux-musl" ;;
    Darwin) echo "$arch-apple-darwin" ;;
    MINGW*|MSYS*|CYGWIN*|Windows_NT) die "on Windows, download hookrules-x86_64-pc-windows-msvc.zip from the release and check it against SHA256SUMS" ;;
    *) die "no prebuilt hookrules for '$os'; build it with: cargo install --locked --path ." ;;
  esac
}

t=$(target)
if [ "$print_target" = 1 ]; then echo "$t"; exit 0; fi
case "$url" in
  __HOOKRULES*) die "no download URL: set HOOKRULES_DOWNLOAD_URL or use --from (this copy of install.sh is not from a release)" ;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hookrules-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

fetch() { # fetch NAME DEST
  case "$url" in
    http://*|https://*)
      if command -v curl >/dev/null 2>&1; then
        curl -fsSL --retry 2 -o "$2" "$url/$1" || die "cannot download $url/$1"
      elif command -v wget >/dev/null 2>&1; then
        wget -q -O "$2" "$url/$1" || die "cannot download $url/$1"
      else
        die "neither curl nor wget is installed"
      fi ;;
    file://*) cp "${url#file://}/$1" "$2" 2>/dev/null || die "no $1 in ${url#file://}" ;;
    *) cp "$url/$1" "$2" 2>/dev/null || die "no $1 in $url" ;;
  esac
}

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then shasum -a 256 "$1" | cut -d' ' -f1
  elif command -v openssl >/dev/null 2>&1; then openssl dgst -sha256 "$1" | sed 's/.*= *//'
  else die "no sha256sum, shasum or openssl to check the download with"
  fi
}

archive="hookrules-$t.tar.gz"
say "downloading $archive from $url"
fetch SHA256SUMS "$tmp/SHA256SUMS"
fetch "$archive" "$tmp/$archive"
want=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1 }' "$tmp/SHA256SUMS")
[ -n "$want" ] || die "SHA256SUMS has no line for $archive"
got=$(sha256 "$tmp/$archive")
[ "$want" = "$got" ] || die "checksum mismatch for $archive (expected $want, got $got): not installed"
say "checksum ok ($got)"

tar -xzf "$tmp/$archive" -C "$tmp" || die "cannot unpack $archive"
bin="$tmp/hookrules-$t/hookrules"
[ -f "$bin" ] || die "$archive holds no hookrules binary"
chmod 755 "$bin"
version=$("$bin" --version 2>/dev/null) || die "the downloaded binary does not run on this machine"

mkdir -p "$dir" || die "cannot create $dir"
cp "$bin" "$dir/.hookrules.new.$$" || die "cannot write to $dir"
mv -f "$dir/.hookrules.new.$$" "$dir/hookrules" || die "cannot replace $dir/hookrules"
say "installed $version to $dir/hookrules"
case ":${PATH:-}:" in
  *":$dir:"*) ;;
  *) say "$dir is not on your PATH; add it, e.g.: export PATH=\"$dir:\$PATH\"" ;;
esac
say "next: run 'hookrules init' in your project (or 'hookrules init --host gemini' …), then 'hookrules doctor'"
