#!/usr/bin/env python3
"""Stand-in for `hookrules run`: prints fixed JSON per event, from a spec file.

    standin_hook.py SPEC.json

SPEC maps an event name to a rule or a list of rules; the first rule whose
"when" matches the stdin event is used; no matching rule means "print nothing,
exit 0" (no opinion).  A rule:

    {"when": {"stop_hook_active": false, "tool_input.command": "..."},  # optional, dotted paths
     "stdout": {...} | "text",   # printed as one JSON line (dict) or verbatim (str)
     "stderr": "text",           # optional
     "exit": 0,                  # optional, default 0
     "write_file": {"path": "/abs", "content": "..."},  # optional side effect
     "append_stdin_to": "/abs/file"}                   # optional: append the raw stdin
"""
import json
import sys


def get(d, dotted):
    for part in dotted.split("."):
        if not isinstance(d, dict) or part not in d:
            return None
        d = d[part]
    return d


def main():
    spec = json.load(open(sys.argv[1]))
    raw = sys.stdin.read()
    ev = json.loads(raw) if raw.strip() else {}
    rules = spec.get(ev.get("hook_event_name"), [])
    if isinstance(rules, dict):
        rules = [rules]
    for rule in rules:
        when = rule.get("when") or {}
        if all(get(ev, k) == v for k, v in when.items()):
            break
    else:
        return 0
    if "append_stdin_to" in rule:
        with open(rule["append_stdin_to"], "a") as f:
            f.write(raw.rstrip("\n") + "\n")
    if "write_file" in rule:
        with open(rule["write_file"]["path"], "w") as f:
            f.write(rule["write_file"].get("content", ""))
    out = rule.get("stdout")
    if isinstance(out, dict):
        sys.stdout.write(json.dumps(out) + "\n")
    elif isinstance(out, str):
        sys.stdout.write(out)
    if rule.get("stderr"):
        sys.stderr.write(rule["stderr"])
    return int(rule.get("exit", 0))


if __name__ == "__main__":
    sys.exit(main())
