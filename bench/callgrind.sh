#!/usr/bin/env bash
# Instructions per process (callgrind's Ir; deterministic, unlike wall-clock on a
# shared machine) for the cases of bench/run.sh, artifact warm:
#
#     bench/callgrind.sh [BINARY]        # default target/release/hookrules
#
# Needs valgrind. Each case runs twice first (the first run writes the compiled
# set to the cache), then once under callgrind; the profiles stay in
# bench/out/callgrind/ for `callgrind_annotate --inclusive=yes FILE`.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
HR=$(realpath "${1:-target/release/hookrules}")
EV=$ROOT/bench/events
OUT=$ROOT/bench/out
CG=$OUT/callgrind
mkdir -p "$CG"
[ -d "$OUT/policies-10k" ] || python3 bench/gen_policies.py --out "$OUT" 1000 10000 >/dev/null
PROJ=$(mktemp -d "${TMPDIR:-/tmp}/hookrules-callgrind.XXXXXX")
trap 'rm -rf "$PROJ"' EXIT
mkdir -p "$PROJ/xdg-config" "$PROJ/init-project"
export CLAUDE_PROJECT_DIR=$PROJ XDG_CONFIG_HOME=$PROJ/xdg-config XDG_STATE_HOME=$PROJ/xdg-state
export HOOKRULES_CACHE_DIR=$PROJ/cache
unset HOOKRULES_POLICIES HOOKRULES_NOW
INIT=$PROJ/init-project
(cd "$INIT" && CLAUDE_PROJECT_DIR=$INIT "$HR" init --client-version 2.1.0 >/dev/null)
sleep 3 # files changed in the last two seconds are not cached
P1K="--no-builtin --policies $OUT/policies-1k"
P10K="--no-builtin --policies $OUT/policies-10k"
# id | project | arguments | event
cases=(
"pre-bash|$PROJ|run|PreToolUse-Bash"
"pre-bash-rm|$PROJ|run|PreToolUse-Bash-rm-rf-root"
"pre-pwsh|$PROJ|run|PreToolUse-PowerShell"
"pre-pwsh-rm|$PROJ|run|PreToolUse-PowerShell-rm-home"
"pre-read|$PROJ|run|PreToolUse-Read"
"pre-write|$PROJ|run|PreToolUse-Write"
"post-bash|$PROJ|run|PostToolUse-Bash"
"session-start|$PROJ|run|SessionStart-startup"
"stop|$PROJ|run|Stop"
"init-bash|$INIT|run|PreToolUse-Bash"
"init-read|$INIT|run|PreToolUse-Read"
"init-stop|$INIT|run|Stop"
"1k-bash|$PROJ|run $P1K|PreToolUse-Bash"
"1k-stop|$PROJ|run $P1K|Stop"
"10k-bash|$PROJ|run $P10K|PreToolUse-Bash"
"10k-stop|$PROJ|run $P10K|Stop"
)
ir() { grep -o 'Collected : [0-9]*' "$1" | awk '{print $3}'; }
FLOOR=$ROOT/bench/floor/target/release/hookrules-bench-floor
if [ -x "$FLOOR" ]; then
    valgrind --tool=callgrind --callgrind-out-file="$CG/floor.out" "$FLOOR" < "$EV/PreToolUse-Bash.json" >/dev/null 2>"$CG/floor.log"
    printf '%-14s %12s\n' floor "$(ir "$CG/floor.log")"
fi
for c in "${cases[@]}"; do
    IFS='|' read -r id dir args ev <<<"$c"
    for _ in 1 2; do CLAUDE_PROJECT_DIR=$dir $HR $args < "$EV/$ev.json" >/dev/null 2>&1 || true; done
    CLAUDE_PROJECT_DIR=$dir valgrind --tool=callgrind --callgrind-out-file="$CG/$id.out" \
        $HR $args < "$EV/$ev.json" >/dev/null 2>"$CG/$id.log" || true
    printf '%-14s %12s\n' "$id" "$(ir "$CG/$id.log")"
done
