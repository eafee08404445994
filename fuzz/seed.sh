#!/usr/bin/env bash
# Seed corpora from the project's own fixtures, into fuzz/corpus/<target>/
# (gitignored). Idempotent: files are named by content hash.
#
#   policy_loader  policies/*.toml, examples/*/policies/*.toml, tests/policies/*.toml
#   evaluator      examples/*/fixtures/*.json (the `event` of a wrapped fixture),
#                  examples/events/*.json, ../shared/reference/samples/*.json
#   shell_parser   every `command`, `file_path`, `path` and `pattern` of
#                  tests/corpus/*.toml and tests/corpus/packs/*.toml
#
# Needs python3 (3.11+, for tomllib); without it, whole files are copied.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
samples="${HOOKRULES_SAMPLES:-$root/../shared/reference/samples}"
[ -d "$samples" ] || samples="/work/shared/reference/samples"
corpus="$here/corpus"
mkdir -p "$corpus/policy_loader" "$corpus/evaluator" "$corpus/shell_parser"

put() { # put TARGET FILE: copy under its content hash
  local h
  h=$(sha1sum "$2" | cut -c1-16)
  cp "$2" "$corpus/$1/$h"
}

shopt -s nullglob
for f in "$root"/policies/*.toml "$root"/examples/*/policies/*.toml "$root"/tests/policies/*.toml; do
  put policy_loader "$f"
done

if command -v python3 >/dev/null && python3 -c 'import tomllib' 2>/dev/null; then
  python3 - "$root" "$samples" "$corpus" <<'PY'
import hashlib, json, pathlib, sys, tomllib
root, samples, corpus = (pathlib.Path(p) for p in sys.argv[1:4])
def put(target, data: bytes):
    (corpus / target / hashlib.sha1(data).hexdigest()[:16]).write_bytes(data)
events = sorted(root.glob("examples/*/fixtures/*.json")) + sorted(root.glob("examples/events/*.json")) + sorted(samples.glob("*.json"))
for f in events:
    raw = f.read_bytes()
    try:
        v = json.loads(raw)
    except ValueError:
        put("evaluator", raw)
        continue
    if isinstance(v, dict) and isinstance(v.get("event"), dict):
        v = v["event"]
    put("evaluator", json.dumps(v, indent=1).encode())
n = 0
for file in sorted((root / "tests/corpus").glob("**/*.toml")):
    doc = tomllib.loads(file.read_text())
    for case in doc.get("case", []):
        for k in ["command", "file_path", "path", "pattern"]:
            if isinstance(case.get(k), str):
                put("shell_parser", case[k].encode())
                n += 1
print(f"seed: {len(events)} events, {n} commands/paths")
PY
else
  for f in "$root"/examples/*/fixtures/*.json "$root"/examples/events/*.json "$samples"/*.json; do
    put evaluator "$f"
  done
  for f in "$root"/tests/corpus/*.toml; do put shell_parser "$f"; done
fi
for t in policy_loader evaluator shell_parser; do
  echo "seed: corpus/$t: $(ls "$corpus/$t" | wc -l) files"
done
