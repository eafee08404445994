#!/bin/bash
# block-destructive-commands.sh, as such hooks are written (seed 001: PreToolUse,
# "Block Destructive Commands"): read the event with cat, pull the command out with
# jq, test it against a list of destructive patterns with grep -E, print a deny.
# The patterns cover the same ground as the built-in pack's destructive rules
# (policies/destructive.toml). Used by bench/run.sh as the bash + jq baseline.

LOG_FILE="/tmp/block-destructive-commands.log"

# Read JSON from stdin
INPUT_JSON=$(cat)

# Parse with jq
TOOL_NAME=$(echo "$INPUT_JSON" | jq -r '.tool_name // empty')
COMMAND=$(echo "$INPUT_JSON" | jq -r '.tool_input.command // empty')

# Only Bash commands are checked
if [ "$TOOL_NAME" != "Bash" ] || [ -z "$COMMAND" ]; then
    exit 0
fi

# Dangerous patterns (extended regex)
DANGEROUS_PATTERNS=(
    # rm -r of the root, home, the project, a system folder or a wildcard
    'rm[[:space:]]+(-[a-zA-Z]*[rR][a-zA-Z]*[[:space:]]+|--recursive[[:space:]]+)+(-[a-zA-Z]+[[:space:]]+)*(/|/\*|~|~/|~/\*|\$HOME|\$\{HOME\}|\*|\.|\./|\.\.|\.\./)([[:space:]]|;|&|\||$)'
    'rm[[:space:]]+(-[a-zA-Z]*[rR][a-zA-Z]*[[:space:]]+|--recursive[[:space:]]+)+(-[a-zA-Z]+[[:space:]]+)*/(bin|boot|dev|etc|home|lib|lib32|lib64|opt|proc|root|run|sbin|srv|sys|usr|var)/?([[:space:]]|;|&|\||$)'
    # rm -r fed by xargs
    'xargs[[:space:]].*rm[[:space:]]+-[a-zA-Z]*[rR]'
    # find -delete over the root or home
    'find[[:space:]]+(/|~|\$HOME|\.)[[:space:]].*-delete'
    # force push to a protected branch
    'git[[:space:]]+push[[:space:]]+.*(-f|--force|--force-with-lease)([[:space:]]|$).*(main|master|trunk|develop|production|prod|release)'
    'git[[:space:]]+push[[:space:]]+.*\+(main|master|trunk|develop|production|prod|release)'
    'git[[:space:]]+push[[:space:]]+(-f|--force)[[:space:]]*$'
    # discarding uncommitted work
    'git[[:space:]]+reset[[:space:]]+.*--hard'
    'git[[:space:]]+clean[[:space:]]+-[a-zA-Z]*f[a-zA-Z]*d[a-zA-Z]*x'
    'git[[:space:]]+checkout[[:space:]]+(--[[:space:]]+)?\.([[:space:]]|$)'
    'git[[:space:]]+restore[[:space:]]+(\.|:/)([[:space:]]|$)'
    # disks and file systems
    'dd[[:space:]]+.*of=/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|loop|md|dm-|mapper/)'
    '(^|[;&|[:space:]])(mkfs(\.[a-z0-9]+)?|mke2fs|mkswap|wipefs|mkdosfs|mkntfs)[[:space:]]'
    'shred[[:space:]]+.*/dev/'
    # permissions
    'chmod[[:space:]]+(-[a-zA-Z]*R[a-zA-Z]*|--recursive)[[:space:]]+(0?777|a\+rwx|ugo\+rwx|a=rwx|o\+w|a\+w)'
    '(chmod|chown|chgrp)[[:space:]]+(-[a-zA-Z]+[[:space:]]+)*[^[:space:]]+[[:space:]]+/([[:space:]]|$)'
    # fork bomb
    ':\(\)[[:space:]]*\{[[:space:]]*:[[:space:]]*\|[[:space:]]*:[[:space:]]*&[[:space:]]*\}'
    # download piped into a shell
    '(curl|wget)[^|;&]*\|[[:space:]]*(sudo[[:space:]]+)?(ba|z|da|k|fi)?sh([[:space:]]|$)'
    '(ba|z|da|k)?sh[[:space:]]+(-c[[:space:]]+)?["'"'"']?(<\()?\$?\(?[[:space:]]*(curl|wget)'
)

log() {
    echo "[$(date '+%Y-%m-%d %H:%M:%S')] $1" >> "$LOG_FILE" 2>/dev/null
}

for pattern in "${DANGEROUS_PATTERNS[@]}"; do
    if echo "$COMMAND" | grep -qE "$pattern"; then
        log "BLOCKED: $COMMAND (pattern: $pattern)"
        REASON="Blocked: destructive command detected (pattern: $pattern). Delete or change specific files by name instead."
        jq -n --arg reason "$REASON" '{
          hookSpecificOutput: {
            hookEventName: "PreToolUse",
            permissionDecision: "deny",
            permissionDecisionReason: $reason
          }
        }'
        exit 0
    fi
done

exit 0
