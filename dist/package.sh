#!/bin/sh
# Package one built hookrules binary as a release archive, with its checksum.
#
#   dist/package.sh TARGET BINARY OUTDIR
#
# Writes OUTDIR/hookrules-TARGET.tar.gz (hookrules.exe in a .zip for Windows
# targets) holding the binary, README.md and the licences, and appends its
# SHA-256 to OUTDIR/SHA256SUMS ("<hash>  <file>", the format `sha256sum -c` reads).
# The release workflow and tests/process/install_script.rs both use this script.
set -eu
target=$1
binary=$2
out=$3
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
name="hookrules-$target"
mkdir "$stage/$name"
case "$target" in
  *windows*) cp "$binary" "$stage/$name/hookrules.exe" ;;
  *) cp "$binary" "$stage/$name/hookrules"; chmod 755 "$stage/$name/hookrules" ;;
esac
cp "$here/README.md" "$here/LICENSE-MIT" "$here/LICENSE-APACHE" "$stage/$name/"
case "$target" in
  *windows*)
    archive="$name.zip"
    (cd "$stage" && rm -f "$out/$archive" && zip -qr "$out/$archive" "$name") ;;
  *)
    archive="$name.tar.gz"
    (cd "$stage" && tar -czf "$out/$archive" "$name") ;;
esac
if command -v sha256sum >/dev/null 2>&1; then
  sum=$(sha256sum "$out/$archive" | cut -d' ' -f1)
else
  sum=$(shasum -a 256 "$out/$archive" | cut -d' ' -f1)
fi
# One line per archive: drop an older line for the same file first.
touch "$out/SHA256SUMS"
grep -v "  $archive\$" "$out/SHA256SUMS" > "$out/SHA256SUMS.tmp" || true
echo "$sum  $archive" >> "$out/SHA256SUMS.tmp"
mv "$out/SHA256SUMS.tmp" "$out/SHA256SUMS"
echo "$out/$archive"
