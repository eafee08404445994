#!/usr/bin/env python3
"""Transparent logging shim around a hook command.

    hook_tap.py LOGFILE -- CMD [ARGS...]

Reads the event JSON from stdin, runs CMD with exactly that stdin, passes its
stdout, stderr and exit code through unchanged, and appends one JSON line to
LOGFILE: {"event", "stdin" (raw text), "stdout", "stderr", "rc", "t0", "t1",
"argv", "env" (CLAUDE_* vars)}.  Standard library only.  If CMD cannot be
started the tap reports it on stderr and exits 1 (a non-blocking hook error),
so a broken hook command shows up in the log instead of passing silently.
"""
import fcntl
import json
import os
import subprocess
import sys
import time


def main():
    argv = sys.argv[1:]
    if len(argv) < 3 or argv[1] != "--":
        print("usage: hook_tap.py LOGFILE -- CMD [ARGS...]", file=sys.stderr)
        return 1
    log, cmd = argv[0], argv[2:]
    raw = sys.stdin.buffer.read()
    t0 = time.time()
    try:
        p = subprocess.run(cmd, input=raw, capture_output=True)
        out, err, rc = p.stdout, p.stderr, p.returncode
    except OSError as e:
        out, err, rc = b"", f"hook_tap: cannot run {cmd!r}: {e}\n".encode(), 1
    t1 = time.time()
    try:
        event = json.loads(raw).get("hook_event_name")
    except Exception:
        event = None
    rec = {
        "event": event,
        "stdin": raw.decode("utf-8", "replace"),
        "stdout": out.decode("utf-8", "replace"),
        "stderr": err.decode("utf-8", "replace"),
        "rc": rc,
        "t0": t0,
        "t1": t1,
        "argv": cmd,
        "env": {k: v for k, v in os.environ.items() if k.startswith("CLAUDE")},
    }
    with open(log, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        f.write(json.dumps(rec) + "\n")
        fcntl.flock(f, fcntl.LOCK_UN)
    sys.stdout.buffer.write(out)
    sys.stdout.flush()
    sys.stderr.buffer.write(err)
    sys.stderr.flush()
    return rc


if __name__ == "__main__":
    sys.exit(main())
