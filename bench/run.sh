#!/usr/bin/env bash
# The hookrules benchmark, in one command (from the repository root or anywhere):
#
#     bench/run.sh
#
# Installs what it needs (hyperfine, GNU time, jq; apt-get, only if missing), builds
# target/release/hookrules (what `cargo install` gives), the release build
# (dist/build.sh: musl, static, position-dependent, what the release archives
# ship; skipped if the musl target cannot be installed with rustup) and the floor
# binary (bench/floor), generates the inputs
# into bench/out/, times every case with hyperfine, measures peak RSS with
# /usr/bin/time, and prints one table (also written to bench/results.md).
#
# Every case is one process per event, as Claude Code runs a hook. hyperfine runs
# each command through `sh -c '... < input'` and subtracts the shell's own start-up.
# Figures are wall-clock on whatever else the machine is doing: read σ, and re-run
# before drawing conclusions from small differences.
#
# Environment knobs: RUNS_SCALE (multiply every run count, e.g. 0.2 for a quick
# look, 2 for a steadier one); ROUNDS (default 3); BENCH_GROUPS (the groups to time,
# default "A B C D E"; E compares the decision log on and off, and export with the
# collector down); BENCH_MUSL=0 skips building and timing the static release build; BENCH_GNU_STATIC=1
# also times a static glibc build (+crt-static) against a floor built the same way;
# CARGO_TARGET_DIR is honoured.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$ROOT/bench/out
SCALE=${RUNS_SCALE:-1}
START=$(date +%s)
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')

log() { printf '[bench %3ds] %s\n' "$(( $(date +%s) - START ))" "$*" >&2; }

# ---------------------------------------------------------------- tools
need=()
command -v hyperfine >/dev/null 2>&1 || need+=(hyperfine)
[ -x /usr/bin/time ] || need+=(time)
command -v jq >/dev/null 2>&1 || need+=(jq)
command -v python3 >/dev/null 2>&1 || need+=(python3)
if [ ${#need[@]} -gt 0 ]; then
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO=sudo
    log "installing ${need[*]} (apt-get)"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
command -v cargo >/dev/null 2>&1 || { echo "bench/run.sh: cargo is required (https://rustup.rs)" >&2; exit 1; }

# ---------------------------------------------------------------- build
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
log "building hookrules (release)"
cargo build --release --quiet --bin hookrules
HR=$TARGET/release/hookrules
log "building the floor (bench/floor)"
cargo build --release --quiet --manifest-path bench/floor/Cargo.toml --target-dir bench/floor/target
FLOOR=$ROOT/bench/floor/target/release/hookrules-bench-floor
[ -x "$HR" ] && [ -x "$FLOOR" ] || { echo "bench/run.sh: build output missing" >&2; exit 1; }
# The release build (dist/build.sh: musl, static, position-dependent), which the
# release archives ship; `cargo install` gives the glibc build above. Measured
# when the musl target is installed or can be (rustup).
MUSL=$(uname -m)-unknown-linux-musl
HRS=""
if [ "${BENCH_MUSL:-1}" != 0 ] && [ "$(uname -s)" = Linux ] && command -v rustup >/dev/null 2>&1; then
    if rustup target list --installed 2>/dev/null | grep -qx "$MUSL" || rustup target add "$MUSL" >/dev/null 2>&1; then
        log "building the release build ($MUSL, dist/build.sh)"
        if CARGO_TARGET_DIR=$TARGET dist/build.sh "$MUSL" --quiet --bin hookrules; then
            HRS=$TARGET/$MUSL/release/hookrules
        fi
    fi
fi
[ -n "$HRS" ] || log "the release build is not measured (BENCH_MUSL=0, or rustup target add $MUSL failed)"
# BENCH_GNU_STATIC=1: also a fully static glibc build (`-C target-feature=+crt-static`,
# position-dependent like the musl build; given with --target so build scripts and
# proc macros stay host code), and a floor built the same way, so its ratios are to a
# floor that is static too.
GNU=$(uname -m)-unknown-linux-gnu
HRG=""
FLOORG=""
if [ "${BENCH_GNU_STATIC:-0}" != 0 ]; then
    log "building the static glibc build ($GNU, +crt-static) and its floor"
    GNU_STATIC="-C target-feature=+crt-static -C relocation-model=static"
    RUSTFLAGS="${RUSTFLAGS:-} $GNU_STATIC" cargo build --release --quiet --target "$GNU" --bin hookrules
    RUSTFLAGS="${RUSTFLAGS:-} $GNU_STATIC" cargo build --release --quiet --target "$GNU" \
        --manifest-path bench/floor/Cargo.toml --target-dir bench/floor/target
    HRG=$TARGET/$GNU/release/hookrules
    FLOORG=$ROOT/bench/floor/target/$GNU/release/hookrules-bench-floor
fi

# ---------------------------------------------------------------- inputs
mkdir -p "$OUT"
rm -rf "$OUT/json" "$OUT/answers"
mkdir -p "$OUT/json" "$OUT/answers"
log "generating synthetic policies"
python3 bench/gen_policies.py --out "$OUT" 1000 10000 >&2
EV=$ROOT/bench/events
BIG=$OUT/PostToolUse-Bash-10MB.json
python3 - "$EV/PostToolUse-Bash.json" "$BIG" <<'EOF'
import json, sys
ev = json.load(open(sys.argv[1]))
size = 10 * 1024 * 1024
parts, n, i = [], 0, 0
while n < size:
    line = "[%08d] PASS src/module_%d/test_%d.ts (12 ms) ok: all assertions held\n" % (i, i % 97, i % 13)
    parts.append(line); n += len(line); i += 1
ev["tool_response"]["stdout"] = "".join(parts)[:size]
json.dump(ev, open(sys.argv[2], "w"))
EOF

# The decision log goes to a state folder of its own (group E compares it on/off);
# log-all is the built-in pack (loaded under any --policies) plus `[log] events = "all"`.
mkdir -p "$OUT/log-all"
printf '[policy]\nextends = ["builtin:destructive", "builtin:secrets", "builtin:system-paths"]\n\n[log]\nevents = "all"\n' > "$OUT/log-all/log.toml"

# An empty project and an empty user config folder, so no project, local or user
# policies are picked up (the built-in pack applies); no policy override.
PROJ=$(mktemp -d "${TMPDIR:-/tmp}/hookrules-bench-project.XXXXXX")
trap 'rm -rf "$PROJ"' EXIT
mkdir -p "$PROJ/xdg-config"
export CLAUDE_PROJECT_DIR=$PROJ XDG_CONFIG_HOME=$PROJ/xdg-config XDG_STATE_HOME=$PROJ/xdg-state
unset HOOKRULES_POLICIES HOOKRULES_NOW
# A project set up by `hookrules init`: its starter policy extends the built-in pack.
INIT=$PROJ/init-project
mkdir -p "$INIT"
(cd "$INIT" && CLAUDE_PROJECT_DIR=$INIT "$HR" init --client-version 2.1.0 >/dev/null)
# The compiled sets live in their own cache folder; files changed in the last two
# seconds are not cached (their time stamps cannot tell a second change), so wait.
export HOOKRULES_CACHE_DIR=$PROJ/cache
sleep 3

# Export with the collector down (group E): a port nothing listens on (refused at
# once), and a listener that never accepts (the request waits for its time limit).
DOWN_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
SILENT_PORT_FILE=$PROJ/silent-port
python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1024)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
time.sleep(3600)
' "$SILENT_PORT_FILE" &
SILENT_PID=$!
# A black-holed address: a listener whose accept queue (of one) is full, so the
# kernel drops every new SYN and a connection attempt waits for its time limit.
BLACKHOLE_PORT_FILE=$PROJ/blackhole-port
python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(0)
c = socket.create_connection(s.getsockname())
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
time.sleep(3600)
' "$BLACKHOLE_PORT_FILE" &
BLACKHOLE_PID=$!
# A collector that is up: answers 200 to every request (export-up-rm).
UP_PORT_FILE=$PROJ/up-port
python3 -c '
import sys, http.server
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200); self.send_header("Content-Length", "2"); self.end_headers(); self.wfile.write(b"{}")
    def log_message(self, *a): pass
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
open(sys.argv[1], "w").write(str(srv.server_address[1]))
srv.serve_forever()
' "$UP_PORT_FILE" &
UP_PID=$!
trap 'kill $SILENT_PID $BLACKHOLE_PID $UP_PID 2>/dev/null; rm -rf "$PROJ"' EXIT
while [ ! -s "$SILENT_PORT_FILE" ]; do sleep 0.1; done
SILENT_PORT=$(cat "$SILENT_PORT_FILE")
while [ ! -s "$BLACKHOLE_PORT_FILE" ] || [ ! -s "$UP_PORT_FILE" ]; do sleep 0.1; done
BLACKHOLE_PORT=$(cat "$BLACKHOLE_PORT_FILE")
UP_PORT=$(cat "$UP_PORT_FILE")

# ---------------------------------------------------------------- cases
# Cases: group | id | label | command | input. A group is one hyperfine invocation
# (one shell calibration, so the sub-millisecond cases share one offset); every
# group runs ROUNDS times, in turn, and the report pools the rounds, so a burst of
# load from elsewhere is spread over the cases instead of landing on one.
q() { printf '%q' "$1"; }
HOOK="bash $(q "$ROOT/bench/bash_jq_hook.sh")"
# The 1k/10k cases measure the rule count alone: --no-builtin leaves the built-in
# pack (loaded under any --policies) out, so they hold exactly 1,000 / 10,000 rules.
# The Claude Code plugin: its launcher (plugin/bin/hookrules-launch, run by sh on every
# event) picks the binary (HOOKRULES_BIN, as a user sets it) and checks its answer; the
# shape check below runs it once first, so the timed runs use its remembered path.
PLUGIN="HOOKRULES_BIN=$(q "$HR") CLAUDE_PLUGIN_ROOT=$(q "$ROOT/plugin") CLAUDE_PLUGIN_DATA=$(q "$PROJ/plugin-data") sh $(q "$ROOT/plugin/bin/hookrules-launch") run --via plugin"
P1K="--no-builtin --policies $(q "$OUT/policies-1k")"
P10K="--no-builtin --policies $(q "$OUT/policies-10k")"
CASES=(
"A|floor|floor: read stdin + serde_json::Value parse|$(q "$FLOOR")|$EV/PreToolUse-Bash.json"
"A|pre-bash|PreToolUse Bash, harmless (builtin pack)|$(q "$HR") run|$EV/PreToolUse-Bash.json"
"A|pre-bash-rm|PreToolUse Bash, rm -rf / (builtin pack)|$(q "$HR") run|$EV/PreToolUse-Bash-rm-rf-root.json"
"A|pre-read|PreToolUse Read .env (builtin pack)|$(q "$HR") run|$EV/PreToolUse-Read.json"
"A|pre-write|PreToolUse Write (builtin pack)|$(q "$HR") run|$EV/PreToolUse-Write.json"
"A|post-bash|PostToolUse Bash (builtin pack)|$(q "$HR") run|$EV/PostToolUse-Bash.json"
"A|subagent-stop|SubagentStop (builtin pack)|$(q "$HR") run|$EV/SubagentStop.json"
"A|session-start|SessionStart startup (builtin pack)|$(q "$HR") run|$EV/SessionStart-startup.json"
"A|init-bash|init project: PreToolUse Bash|CLAUDE_PROJECT_DIR=$(q "$INIT") $(q "$HR") run|$EV/PreToolUse-Bash.json"
"A|init-read|init project: PreToolUse Read|CLAUDE_PROJECT_DIR=$(q "$INIT") $(q "$HR") run|$EV/PreToolUse-Read.json"
"A|init-stop|init project: Stop|CLAUDE_PROJECT_DIR=$(q "$INIT") $(q "$HR") run|$EV/Stop.json"
"A|stop|Stop (builtin pack)|$(q "$HR") run|$EV/Stop.json"
"A|plugin-pre-bash|plugin launcher: PreToolUse Bash, harmless (builtin pack)|$PLUGIN|$EV/PreToolUse-Bash.json"
"A|plugin-pre-bash-rm|plugin launcher: PreToolUse Bash, rm -rf / (builtin pack)|$PLUGIN|$EV/PreToolUse-Bash-rm-rf-root.json"
"B|1k-bash|1k rules: PreToolUse Bash|$(q "$HR") run $P1K|$EV/PreToolUse-Bash.json"
"B|1k-stop|1k rules: Stop|$(q "$HR") run $P1K|$EV/Stop.json"
"C|10k-bash|10k rules: PreToolUse Bash|$(q "$HR") run $P10K|$EV/PreToolUse-Bash.json"
"C|10k-stop|10k rules: Stop|$(q "$HR") run $P10K|$EV/Stop.json"
"B|floor-10mb|floor: 10 MB PostToolUse Bash event|$(q "$FLOOR")|$BIG"
"B|post-10mb|PostToolUse Bash, 10 MB stdout (builtin pack)|$(q "$HR") run|$BIG"
"E|floor-e|floor: read stdin + serde_json::Value parse (group E's own)|$(q "$FLOOR")|$EV/PreToolUse-Bash.json"
"E|log-off-rm|decision log off (HOOKRULES_LOG=off): PreToolUse Bash, rm -rf /|HOOKRULES_LOG=off $(q "$HR") run|$EV/PreToolUse-Bash-rm-rf-root.json"
"E|log-on-rm|decision log on (default): PreToolUse Bash, rm -rf /|$(q "$HR") run|$EV/PreToolUse-Bash-rm-rf-root.json"
"E|log-off-bash|decision log off (HOOKRULES_LOG=off): PreToolUse Bash, harmless|HOOKRULES_LOG=off $(q "$HR") run|$EV/PreToolUse-Bash.json"
"E|log-all-bash|decision log of every event (events = all): PreToolUse Bash, harmless|$(q "$HR") run -p $(q "$OUT/log-all")|$EV/PreToolUse-Bash.json"
"E|export-refused-rm|export on, collector down (connection refused): PreToolUse Bash, rm -rf /|XDG_STATE_HOME=$(q "$PROJ/state-refused") HOOKRULES_CACHE_DIR=$(q "$PROJ/cache-refused") HOOKRULES_EXPORT=otlp OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$DOWN_PORT $(q "$HR") run|$EV/PreToolUse-Bash-rm-rf-root.json"
"E|export-silent-rm|export on, collector never answers (accepts nothing): PreToolUse Bash, rm -rf /|XDG_STATE_HOME=$(q "$PROJ/state-silent") HOOKRULES_CACHE_DIR=$(q "$PROJ/cache-silent") HOOKRULES_EXPORT=otlp OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$SILENT_PORT $(q "$HR") run|$EV/PreToolUse-Bash-rm-rf-root.json"
"E|export-blackhole-rm|export on, collector black-holed (SYNs dropped): PreToolUse Bash, rm -rf /|XDG_STATE_HOME=$(q "$PROJ/state-blackhole") HOOKRULES_CACHE_DIR=$(q "$PROJ/cache-blackhole") HOOKRULES_EXPORT=otlp OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$BLACKHOLE_PORT $(q "$HR") run|$EV/PreToolUse-Bash-rm-rf-root.json"
"E|export-up-rm|export on, collector up (answers 200): PreToolUse Bash, rm -rf /|XDG_STATE_HOME=$(q "$PROJ/state-up") HOOKRULES_CACHE_DIR=$(q "$PROJ/cache-up") HOOKRULES_EXPORT=otlp OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$UP_PORT $(q "$HR") run|$EV/PreToolUse-Bash-rm-rf-root.json"
"D|bashjq|bash + jq hook: PreToolUse Bash, harmless|$HOOK|$EV/PreToolUse-Bash.json"
"D|bashjq-rm|bash + jq hook: PreToolUse Bash, rm -rf /|$HOOK|$EV/PreToolUse-Bash-rm-rf-root.json"
)
if [ -n "$HRS" ]; then
    R="release build"
    CASES+=(
"A|rel-pre-bash|$R: PreToolUse Bash, harmless (builtin pack)|$(q "$HRS") run|$EV/PreToolUse-Bash.json"
"A|rel-pre-bash-rm|$R: PreToolUse Bash, rm -rf / (builtin pack)|$(q "$HRS") run|$EV/PreToolUse-Bash-rm-rf-root.json"
"A|rel-pre-read|$R: PreToolUse Read .env (builtin pack)|$(q "$HRS") run|$EV/PreToolUse-Read.json"
"A|rel-post-bash|$R: PostToolUse Bash (builtin pack)|$(q "$HRS") run|$EV/PostToolUse-Bash.json"
"A|rel-session-start|$R: SessionStart startup (builtin pack)|$(q "$HRS") run|$EV/SessionStart-startup.json"
"A|rel-stop|$R: Stop (builtin pack)|$(q "$HRS") run|$EV/Stop.json"
"A|rel-init-bash|$R: init project: PreToolUse Bash|CLAUDE_PROJECT_DIR=$(q "$INIT") $(q "$HRS") run|$EV/PreToolUse-Bash.json"
"A|rel-init-read|$R: init project: PreToolUse Read|CLAUDE_PROJECT_DIR=$(q "$INIT") $(q "$HRS") run|$EV/PreToolUse-Read.json"
"A|rel-init-stop|$R: init project: Stop|CLAUDE_PROJECT_DIR=$(q "$INIT") $(q "$HRS") run|$EV/Stop.json"
"B|rel-1k-bash|$R: 1k rules: PreToolUse Bash|$(q "$HRS") run $P1K|$EV/PreToolUse-Bash.json"
"B|rel-1k-stop|$R: 1k rules: Stop|$(q "$HRS") run $P1K|$EV/Stop.json"
"C|rel-10k-bash|$R: 10k rules: PreToolUse Bash|$(q "$HRS") run $P10K|$EV/PreToolUse-Bash.json"
"C|rel-10k-stop|$R: 10k rules: Stop|$(q "$HRS") run $P10K|$EV/Stop.json"
"B|rel-post-10mb|$R: PostToolUse Bash, 10 MB stdout (builtin pack)|$(q "$HRS") run|$BIG"
    )
fi
if [ -n "$HRG" ]; then
    G="static glibc"
    CASES+=(
"A|floor-static|$G: floor: read stdin + serde_json::Value parse|$(q "$FLOORG")|$EV/PreToolUse-Bash.json"
"A|gs-pre-bash|$G: PreToolUse Bash, harmless (builtin pack)|$(q "$HRG") run|$EV/PreToolUse-Bash.json"
"A|gs-pre-bash-rm|$G: PreToolUse Bash, rm -rf / (builtin pack)|$(q "$HRG") run|$EV/PreToolUse-Bash-rm-rf-root.json"
"A|gs-pre-read|$G: PreToolUse Read .env (builtin pack)|$(q "$HRG") run|$EV/PreToolUse-Read.json"
"A|gs-stop|$G: Stop (builtin pack)|$(q "$HRG") run|$EV/Stop.json"
"A|gs-init-bash|$G: init project: PreToolUse Bash|CLAUDE_PROJECT_DIR=$(q "$INIT") $(q "$HRG") run|$EV/PreToolUse-Bash.json"
    )
fi
# group: total runs (over all rounds), warm-up per round. The 10k group gets fewer
# runs (about 0.5 s each): its p99 is then the slowest run.
declare -A RUNS=([A]=600 [B]=120 [C]=45 [D]=180 [E]=600)
declare -A WARM=([A]=10 [B]=3 [C]=1 [D]=3 [E]=10)
ROUNDS=${ROUNDS:-3}

# Shape check of every case (answer, stderr, exit status) and peak RSS.
TSV=$OUT/cases.tsv
: > "$TSV"
log "checking answers and peak RSS"
for c in "${CASES[@]}"; do
    IFS='|' read -r group id label cmd input <<<"$c"
    full="$cmd < $(q "$input")"
    set +e
    sh -c "$full" >"$OUT/answers/$id.stdout" 2>"$OUT/answers/$id.stderr"
    rc=$?
    set -e
    # Peak RSS: the largest of 5 runs (GNU time reports the biggest single process).
    rss=0
    for _ in 1 2 3 4 5; do
        eval "/usr/bin/time -f %M -o \"\$OUT/answers/\$id.rss\" env $full" >/dev/null 2>&1 || true
        r=$(tail -n1 "$OUT/answers/$id.rss")
        [ "$r" -gt "$rss" ] && rss=$r
    done
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$label" "$rc" "$rss" "$(stat -c %s "$input")" "$full" >> "$TSV"
done

# Timings.
for round in $(seq 1 "$ROUNDS"); do
    for group in ${BENCH_GROUPS:-A B C D E}; do
        args=()
        for c in "${CASES[@]}"; do
            IFS='|' read -r g id label cmd input <<<"$c"
            [ "$g" = "$group" ] || continue
            args+=(--command-name "$id" "$cmd < $(q "$input")")
        done
        runs=$(python3 -c "print(max(2, round(${RUNS[$group]} * $SCALE / $ROUNDS)))")
        log "round $round/$ROUNDS, group $group ($(( ${#args[@]} / 3 )) cases): $runs runs each"
        hyperfine --style none --warmup "${WARM[$group]}" --runs "$runs" \
            --export-json "$OUT/json/$group.$round.json" "${args[@]}" >/dev/null 2>"$OUT/json/$group.$round.log"
    done
done

# ---------------------------------------------------------------- report
COMMIT=$(git -C "$ROOT" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
python3 bench/report.py --tsv "$TSV" --json-dir "$OUT/json" --answers "$OUT/answers" \
    --commit "$COMMIT" --hookrules "$HR" --seconds "$(( $(date +%s) - START ))" --rounds "$ROUNDS" --load-start "$LOAD0" \
    --results bench/results.md
