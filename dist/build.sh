#!/bin/sh
# Build hookrules for TARGET the way a release is built (the release workflow and
# bench/run.sh both call this, so what is measured is what is shipped):
#
#   dist/build.sh TARGET [--zig] [more cargo options]
#
# --zig links with cargo-zigbuild (zig as the cross linker). The binary lands in
# target/TARGET/release/ (or under CARGO_TARGET_DIR).
#
# Linux musl targets are linked static (musl's default) and position-dependent
# (`-C relocation-model=static`): no dynamic loader and no self-relocation at
# start-up. hookrules starts once per hook event, so that start-up is a large part
# of its cost: bench/callgrind.sh at 7d4e3fd counts 1.74M instructions for a
# harmless PreToolUse Bash with glibc (dynamic) and 1.37M with this build, and
# 547k and 171k for a Stop (a static-pie musl build of 558c12b: 1.65M and 424k).
# The README's Performance section has the wall clock. The flag is given only with --target, so build scripts and proc macros
# (host code) are not affected. The cost: the executable's own image is not
# address-randomised (stack, heap and mappings still are).
set -eu
target=$1
shift
build="cargo build"
if [ "${1:-}" = "--zig" ]; then
  build="cargo zigbuild"
  shift
fi
case "$target" in
  *-linux-musl*) RUSTFLAGS="${RUSTFLAGS:-} -C relocation-model=static"; export RUSTFLAGS ;;
esac
exec $build --release --locked --target "$target" "$@"
