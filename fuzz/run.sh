#!/usr/bin/env bash
# Run every fuzz target, one after the other, for SECONDS each (default 120):
#
#   fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]
#
# Targets: policy_loader, evaluator, shell_parser. Seeds come from the project's
# fixtures (fuzz/seed.sh); corpora grow in fuzz/corpus/<target>/, crashes land in
# fuzz/artifacts/<target>/, libFuzzer's output in fuzz/logs/<target>.log.
# Exit status: 0 when no target crashed, 1 otherwise.
#
# Toolchain: cargo-fuzz needs nightly flags (-Z...). With a nightly toolchain
# installed (`rustup toolchain list`), it is used with AddressSanitizer. Without
# one (this machine cannot download toolchains), the stable toolchain is told to
# accept nightly flags with RUSTC_BOOTSTRAP=1, and the targets are built without
# a sanitizer (`--sanitizer none`; safe Rust does not need one to find panics,
# overflows and hangs). FUZZ_SANITIZER=none|address overrides the choice.
set -uo pipefail
cd "$(dirname "$0")"
secs="${1:-120}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(policy_loader evaluator shell_parser)

if ! command -v cargo-fuzz >/dev/null; then
  cargo install cargo-fuzz --locked || exit 1
fi
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  tc=(+nightly)
  sanitizer="${FUZZ_SANITIZER:-address}"
else
  export RUSTC_BOOTSTRAP=1
  tc=()
  sanitizer="${FUZZ_SANITIZER:-none}"
fi
echo "fuzz: toolchain ${tc[*]:-stable+RUSTC_BOOTSTRAP=1}, sanitizer $sanitizer, ${secs}s per target"

./seed.sh || exit 1
mkdir -p logs
status=0
for t in "${targets[@]}"; do
  if ! cargo "${tc[@]}" fuzz build --sanitizer "$sanitizer" "$t"; then
    echo "fuzz: $t: build failed"
    status=1
    continue
  fi
  mkdir -p "artifacts/$t"
  cargo "${tc[@]}" fuzz run --sanitizer "$sanitizer" "$t" "corpus/$t" -- \
    -max_total_time="$secs" -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 \
    </dev/null >"logs/$t.log" 2>&1
  rc=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "logs/$t.log" | grep -o '[0-9]*$' | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "logs/$t.log" | tail -1)
  if [ "$rc" -eq 0 ]; then
    echo "fuzz: $t: ok, ${runs:-?} executions in ${secs}s, ${cov:-cov: ?}, corpus $(ls "corpus/$t" | wc -l) files"
  else
    status=1
    echo "fuzz: $t: FAILED (exit $rc) after ${runs:-?} executions; see fuzz/logs/$t.log"
    grep -E 'panicked at|ERROR: libFuzzer|SUMMARY|Test unit written to' "logs/$t.log" | head -8
    echo "  minimise: cargo ${tc[*]} fuzz tmin --sanitizer $sanitizer $t <artifact>"
  fi
done
exit $status
