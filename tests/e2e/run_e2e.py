#!/usr/bin/env python3
"""End-to-end tests: the real Claude Code CLI + a scripted fake Messages API + our hook.

    python3 tests/e2e/run_e2e.py [--client PATH] [--hookrules PATH | --standin | --hook-cmd "CMD ARGS..."]
                                 [-k NAME] [-v]

By default every hook call runs the real binary (`--hookrules`, default
target/release/hookrules under the repo root) as `hookrules run --policies P ...`, with
the scenario's policies: its "policies" list if it has one (e.g. "builtin:destructive"),
else tests/e2e/policies/<scenario>/.  `--standin` uses standin_hook.py and the scenario's
"standin" spec instead (to check the harness itself).

Each scenario (tests/e2e/scenarios/*.json) gets a fresh temp HOME, CLAUDE_CONFIG_DIR
and project dir with .claude/settings.json registering the hook command for the
events the scenario names.  The client runs in `-p` mode against fake_api.FakeAPI on
127.0.0.1; afterwards the assertions look at (a) what the fake received, (b) files
on disk, (c) what the hook got on stdin (every hook call goes through hook_tap.py,
which logs stdin/stdout/rc and passes everything through unchanged).

Exit codes: 0 all passed, 1 some failed, 2 usage/setup error, 77 skipped
(client not installed and not installable).  Standard library only.
"""
from __future__ import annotations

import argparse
import fnmatch
import glob
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))  # the repository root
DEFAULT_HOOKRULES = os.path.join(ROOT, "target", "release", "hookrules")
sys.path.insert(0, HERE)
from fake_api import FakeAPI, text_of  # noqa: E402

PINNED_VERSION = "2.1.330"
EXIT_SKIP = 77
DEFAULT_CACHE = os.path.join(os.path.expanduser("~"), ".cache", "hookrules-e2e")
BIN_REL = "node_modules/@anthropic-ai/claude-code/bin/claude.exe"

# Environment passed to the client: a whitelist of the parent's variables plus ours.
# Nothing named CLAUDE*/ANTHROPIC* is inherited.
ENV_KEEP = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "USER", "LOGNAME", "SHELL", "TERM")
ENV_FIXED = {
    "ANTHROPIC_API_KEY": "test-key",
}
# Switched off with --bare-env (to exercise the fake against the client's side traffic;
# combine with --netns so nothing can leave the machine).
ENV_QUIET = {
    "DISABLE_TELEMETRY": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "DISABLE_BUG_COMMAND": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY": "1",
    "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL": "1",
    "CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1",
    "NO_COLOR": "1",
}


class Skip(Exception):
    pass


# ---------------------------------------------------------------------------
# client discovery / install
# ---------------------------------------------------------------------------

def client_version(path):
    with tempfile.TemporaryDirectory(prefix="hookrules-e2e-v-") as home:
        try:
            p = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60,
                               stdin=subprocess.DEVNULL, env=base_env(home))
        except (OSError, subprocess.TimeoutExpired) as e:
            return None, str(e)
    m = re.search(r"(\d+\.\d+\.\d+)", p.stdout)
    return (m.group(1) if m else None), (p.stdout + p.stderr).strip()


def find_client(args):
    if args.client:
        path = os.path.abspath(args.client)
        if not os.access(path, os.X_OK):
            # an explicit path that is wrong is a configuration error, not a skip
            raise SystemExit(f"e2e: error: --client {path} is not an executable file")
        return path
    env_path = os.environ.get("HOOKRULES_E2E_CLIENT")
    if env_path and os.access(env_path, os.X_OK):
        return env_path
    cached = os.path.join(args.cache_dir, BIN_REL)
    if os.access(cached, os.X_OK):
        return cached
    if args.no_install:
        raise Skip(f"Claude Code client not found at {cached} and --no-install given")
    print(f"e2e: installing @anthropic-ai/claude-code@{PINNED_VERSION} into {args.cache_dir} ...",
          flush=True)
    try:
        p = subprocess.run(["bash", os.path.join(HERE, "install_client.sh"), args.cache_dir],
                           capture_output=True, text=True, timeout=900)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise Skip(f"client install failed: {e}")
    if p.returncode != 0:
        tail = (p.stderr or p.stdout).strip().splitlines()[-5:]
        raise Skip("client install failed (registry unreachable?): " + " | ".join(tail))
    path = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else cached
    if not os.access(path, os.X_OK):
        raise Skip(f"install_client.sh printed {path!r}, which is not executable")
    return path


# ---------------------------------------------------------------------------
# environment / settings
# ---------------------------------------------------------------------------

def base_env(home, base_url=None, quiet=True):
    env = {k: os.environ[k] for k in ENV_KEEP if k in os.environ}
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env.update(ENV_FIXED)
    if quiet:
        env.update(ENV_QUIET)
    env["HOME"] = home
    env["CLAUDE_CONFIG_DIR"] = os.path.join(home, ".claude")
    env["TMPDIR"] = os.path.join(home, "tmp")
    os.makedirs(env["TMPDIR"], exist_ok=True)
    if base_url:
        env["ANTHROPIC_BASE_URL"] = base_url
    return env


def subst(obj, mapping):
    """Replace {key} placeholders in every string of a JSON-like object."""
    if isinstance(obj, str):
        for k, v in mapping.items():
            obj = obj.replace("{" + k + "}", v)
        return obj
    if isinstance(obj, list):
        return [subst(x, mapping) for x in obj]
    if isinstance(obj, dict):
        return {k: subst(v, mapping) for k, v in obj.items()}
    return obj


def resolve_exe(word):
    if os.sep in word:
        return os.path.abspath(word)
    found = shutil.which(word)
    return found or word


def build_hook_handler(hook_cmd, tap_log, shell_form, timeout):
    """One handler dict for settings.json; exec form ("args") unless shell_form."""
    argv = [resolve_exe(hook_cmd[0])] + hook_cmd[1:]
    if tap_log:
        argv = [sys.executable, os.path.join(HERE, "hook_tap.py"), tap_log, "--"] + argv
    h = {"type": "command", "timeout": timeout}
    if shell_form:
        h["command"] = shlex.join(argv)
    else:
        h["command"] = argv[0]
        h["args"] = argv[1:]
    return h


def scenario_policies(scn):
    """The --policies arguments of a scenario: its "policies" list (placeholders already
    substituted; relative paths are relative to the repo root; "builtin:NAME" as is), else
    tests/e2e/policies/<name>/.  Returns (list, error)."""
    items = scn.get("policies")
    if items is None:
        items = [os.path.join(HERE, "policies", scn["name"])]
    out = []
    for item in items:
        if item.startswith("builtin:"):
            out.append(item)
            continue
        path = item if os.path.isabs(item) else os.path.join(ROOT, item)
        if not os.path.exists(path):
            return None, f"policy path {path} does not exist"
        if os.path.isdir(path) and not glob.glob(os.path.join(path, "*.toml")):
            return None, f"policy folder {path} holds no *.toml"
        out.append(path)
    return out, None


def hookrules_argv(hookrules, policies):
    # A scenario's policies are all it runs under: --no-builtin, since the
    # built-in pack is otherwise loaded under any --policies (it names
    # builtin:NAME where it wants part of the pack).
    argv = [hookrules, "run", "--no-builtin"]
    for p in policies:
        argv += ["--policies", p]
    return argv


def build_settings(scn, handler):
    hooks = {}
    for event, matcher in scn.get("hooks", {}).items():
        group = {"hooks": [handler]}
        if matcher not in (None, ""):
            group["matcher"] = matcher
        hooks[event] = [group]
    settings = {"hooks": hooks}
    settings.update(scn.get("settings", {}))
    return settings


# ---------------------------------------------------------------------------
# assertions
# ---------------------------------------------------------------------------

def dotted(d, path):
    for part in path.split("."):
        if isinstance(d, list):
            try:
                d = d[int(part)]
            except (ValueError, IndexError):
                return None
        elif isinstance(d, dict) and part in d:
            d = d[part]
        else:
            return None
    return d


def message_texts(req, role=None, only_new=False, since=0):
    """Texts of the messages of a recorded request, optionally by role / from index."""
    out = []
    for m in req.messages[since:]:
        if role and m.get("role") != role:
            continue
        out.append(text_of(m.get("content")))
    return out


class Ctx:
    def __init__(self, fake, project, hook_log, proc, result_json):
        self.fake = fake
        self.project = project
        self.hook_calls = []
        if os.path.exists(hook_log):
            with open(hook_log) as f:
                for line in f:
                    rec = json.loads(line)
                    try:
                        rec["input"] = json.loads(rec["stdin"])
                    except Exception:
                        rec["input"] = {}
                    self.hook_calls.append(rec)
        self.proc = proc
        self.result = result_json

    def main(self):
        return self.fake.main_requests()

    def calls(self, event, where=None):
        out = [c for c in self.hook_calls if c["event"] == event]
        for k, v in (where or {}).items():
            out = [c for c in out if dotted(c["input"], k) == v]
        return out


def _count_ok(n, a):
    if "count" in a and n != a["count"]:
        return f"count {n} != {a['count']}"
    if "min" in a and n < a["min"]:
        return f"count {n} < min {a['min']}"
    if "max" in a and n > a["max"]:
        return f"count {n} > max {a['max']}"
    return None


def _pick_request(ctx, a):
    reqs = ctx.main()
    if "agent" in a:  # "main" or "sub": main thread or subagent requests only
        reqs = [r for r in reqs if r.is_subagent == (a["agent"] == "sub")]
    i = a.get("request", -1)
    try:
        return reqs[i], None
    except IndexError:
        return None, f"no main request #{i} (got {len(reqs)})"


def check(ctx, a):
    """Return None if assertion `a` holds, else a message."""
    kind = a["check"]
    if kind == "exit_code":
        rc = ctx.proc.returncode
        return None if rc == a["equals"] else f"client exit code {rc} != {a['equals']}"
    if kind == "result":
        if ctx.result is None:
            return "no JSON result from the client"
        v = dotted(ctx.result, a["field"])
        if "equals" in a and v != a["equals"]:
            return f"result.{a['field']} = {v!r} != {a['equals']!r}"
        if "contains" in a and a["contains"] not in str(v):
            return f"result.{a['field']} = {v!r} does not contain {a['contains']!r}"
        return None
    if kind == "main_requests":
        reqs = ctx.main()
        if "agent" in a:
            reqs = [r for r in reqs if r.is_subagent == (a["agent"] == "sub")]
        return _count_ok(len(reqs), a)
    if kind == "compact_requests":
        return _count_ok(len([r for r in ctx.fake.requests if r.kind == "compact"]), a)
    if kind == "script_consumed":
        n, total = ctx.fake.next_turn, len(ctx.fake.script)
        return None if n == total else f"only {n}/{total} scripted turns were requested"
    if kind == "tool_result":
        req, err = _pick_request(ctx, a)
        if err:
            return err
        trs = req.tool_results()
        if not trs:
            return "request has no tool_result"
        tr = trs[-1]
        content = text_of(tr.get("content"))
        if "is_error" in a and bool(tr.get("is_error")) != a["is_error"]:
            return f"tool_result is_error={tr.get('is_error')!r}, want {a['is_error']!r}: {content[:300]!r}"
        if "contains" in a and a["contains"] not in content:
            return f"tool_result does not contain {a['contains']!r}: {content[:300]!r}"
        if "not_contains" in a and a["not_contains"] in content:
            return f"tool_result contains {a['not_contains']!r}: {content[:300]!r}"
        return None
    if kind == "request_text":
        req, err = _pick_request(ctx, a)
        if err:
            return err
        role = a.get("role")
        texts = message_texts(req, role=role)
        if a.get("include_system_prompt"):
            texts.append(req.system_text)
        blob = "\n".join(texts)
        if "contains" in a and a["contains"] not in blob:
            return f"request (role={role}) does not contain {a['contains']!r}"
        if "not_contains" in a and a["not_contains"] in blob:
            return f"request (role={role}) contains {a['not_contains']!r}"
        return None
    if kind == "no_request_contains":
        for r in ctx.fake.requests:
            if r.body and a["text"] in json.dumps(r.body):
                return f"a {r.kind} request contains {a['text']!r}"
        return None
    if kind == "transcript":
        # The session transcript(s) the client wrote under the scratch HOME: what the
        # user was shown (systemMessage notes) lands there too.
        home = os.path.join(os.path.dirname(ctx.project), "home")
        files = glob.glob(os.path.join(home, ".claude", "projects", "*", "*.jsonl"))
        text = "".join(open(f, errors="replace").read() for f in files)
        if not files:
            return "no transcript was written"
        return None if a["contains"] in text else f"no transcript contains {a['contains']!r}"
    if kind == "file":
        p = os.path.join(ctx.project, a["path"])
        ex = os.path.exists(p)
        if "exists" in a and ex != a["exists"]:
            return f"file {a['path']} exists={ex}, want {a['exists']}"
        if "contains" in a:
            if not ex:
                return f"file {a['path']} missing"
            body = open(p, errors="replace").read()
            if a["contains"] not in body:
                return f"file {a['path']} does not contain {a['contains']!r}: {body[:200]!r}"
        return None
    if kind == "hook_calls":
        msg = _count_ok(len(ctx.calls(a["event"], a.get("where"))), a)
        return msg and f"hook {a['event']} where {a.get('where')}: {msg}"
    if kind == "hook_stdin":
        calls = ctx.calls(a["event"], a.get("where"))
        i = a.get("index", 0)
        if len(calls) <= i and i >= 0:
            return f"hook {a['event']} called {len(calls)} times, no call #{i}"
        inp = calls[i]["input"]
        for k, v in a.get("has", {}).items():
            got = dotted(inp, k)
            if got != v:
                return f"hook {a['event']}#{i} stdin {k} = {got!r}, want {v!r}"
        for k in a.get("has_keys", []):
            if dotted(inp, k) is None:
                return f"hook {a['event']}#{i} stdin lacks {k}"
        return None
    return f"unknown check {kind!r}"


# ---------------------------------------------------------------------------
# running one scenario
# ---------------------------------------------------------------------------

def load_scenarios(pattern):
    out = []
    for path in sorted(glob.glob(os.path.join(HERE, "scenarios", "*.json"))):
        with open(path) as f:
            scn = json.load(f)
        scn.setdefault("name", os.path.splitext(os.path.basename(path))[0])
        if pattern and not any(fnmatch.fnmatch(scn["name"], p) or p in scn["name"]
                               for p in pattern):
            continue
        out.append(scn)
    return out


LOOPBACK_RE = re.compile(r'inet_addr\("127\.|inet_pton\(AF_INET6, "::1"')


def outside_connects(root):
    """connect() calls to AF_INET/AF_INET6 addresses other than loopback, from strace logs."""
    bad = []
    for path in glob.glob(os.path.join(root, "strace.*.txt")):
        with open(path, errors="replace") as f:
            for line in f:
                if "connect(" in line and ("AF_INET" in line) and not LOOPBACK_RE.search(line):
                    bad.append(line.strip()[:160])
    return bad


def run_client(cmd, cwd, env, timeout):
    """Run the client in its own process group; on timeout kill the whole group."""
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = p.communicate(timeout=30)
    return subprocess.CompletedProcess(cmd, p.returncode, out or "", err or ""), timed_out


def plugin_version():
    with open(os.path.join(ROOT, "plugin", ".claude-plugin", "plugin.json")) as f:
        return json.load(f)["version"]


def write_plugin_binary(root, args, spec_path, hook_log):
    """A `hookrules` for the plugin's launcher: answers --version itself (the stand-in)
    or through the binary under test, and runs every hook call through hook_tap.py.
    None when the scenario wants no binary at all (see "plugin": {"binary": false})."""
    path = os.path.join(root, "hookrules-under-test")
    tap = [sys.executable, os.path.join(HERE, "hook_tap.py"), hook_log, "--"]
    if args.standin:
        version = f'echo "hookrules {plugin_version()} (e2e stand-in)"'
        run = shlex.join(tap + [sys.executable, os.path.join(HERE, "standin_hook.py"), spec_path])
    else:
        real = os.path.abspath(args.hookrules)
        version = f"exec {shlex.quote(real)} --version"
        run = shlex.join(tap + [real]) + ' "$@"'
    with open(path, "w") as f:
        f.write(f'#!/bin/sh\nif [ "${{1:-}}" = --version ]; then {version}; exit 0; fi\nexec {run}\n')
    os.chmod(path, 0o755)
    return path


def install_plugin(client, project, env, root):
    """`claude plugin marketplace add <this checkout>` and `claude plugin install
    hookrules@hookrules` in the scenario's scratch HOME; an error text or None."""
    log = []
    for argv in (["plugin", "marketplace", "add", ROOT], ["plugin", "install", "hookrules@hookrules"]):
        p, timed_out = run_client([client] + argv, project, env, 60)
        log.append({"argv": argv, "rc": p.returncode, "stdout": p.stdout, "stderr": p.stderr})
        if timed_out or p.returncode != 0:
            with open(os.path.join(root, "plugin_setup.json"), "w") as f:
                json.dump(log, f, indent=1)
            return f"`claude {' '.join(argv)}` failed (rc {p.returncode}): {(p.stdout + p.stderr).strip()[-300:]}"
    with open(os.path.join(root, "plugin_setup.json"), "w") as f:
        json.dump(log, f, indent=1)
    return None


def run_scenario(scn, args, client):
    name = scn["name"]
    root = tempfile.mkdtemp(prefix=f"hookrules-e2e-{name}-")
    home = os.path.join(root, "home")
    project = os.path.join(root, "project")
    os.makedirs(os.path.join(project, ".claude"))
    os.makedirs(home)
    mapping = {"project": project, "scenario": name, "e2e_dir": HERE, "cwd": os.getcwd(),
               "root": root}
    scn = subst(scn, mapping)

    # stand-in spec is always written; it is only used by the default hook command
    spec_path = os.path.join(root, "standin.json")
    with open(spec_path, "w") as f:
        json.dump(scn.get("standin", {}), f, indent=1)
    if args.hook_cmd:
        hook_cmd = [subst(w, mapping) for w in shlex.split(args.hook_cmd)]
    elif args.standin:
        hook_cmd = [sys.executable, os.path.join(HERE, "standin_hook.py"), spec_path]
    else:
        policies, err = scenario_policies(scn)
        if err:
            return {"name": name, "ok": False, "failures": [f"setup: {err}"], "secs": 0.0,
                    "dir": root, "requests": {}, "hook_calls": 0}
        hook_cmd = hookrules_argv(args.hookrules, policies)
    hook_log = os.path.join(root, "hooks.jsonl")
    handler = build_hook_handler(hook_cmd, None if args.no_tap else hook_log,
                                 args.shell_form, scn.get("hook_timeout", 30))
    settings = build_settings(scn, handler)
    plugin_bin = None
    if scn.get("plugin"):
        # The hooks come from the plugin, installed from this checkout's marketplace;
        # its launcher finds the binary through HOOKRULES_BIN: a tap around the
        # hookrules under test (run with the launcher's own arguments and the
        # default policy search: the built-in pack), or around the stand-in.
        settings = dict(scn.get("settings", {}))
        wants_binary = not (isinstance(scn["plugin"], dict) and scn["plugin"].get("binary") is False)
        plugin_bin = write_plugin_binary(root, args, spec_path, hook_log) if wants_binary else None
    with open(os.path.join(project, ".claude", "settings.json"), "w") as f:
        json.dump(settings, f, indent=1)
    for rel, content in scn.get("files", {}).items():
        p = os.path.join(project, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(content)

    fake = FakeAPI(scn.get("script", []), max_requests=scn.get("max_requests", 60))
    fake.start()
    env = base_env(home, fake.base_url, quiet=not args.bare_env)
    if scn.get("plugin"):
        if plugin_bin:
            env["HOOKRULES_BIN"] = plugin_bin
        err = install_plugin(client, project, env, root)
        if err:
            fake.stop()
            return {"name": name, "ok": False, "failures": [f"setup: {err}"], "secs": 0.0,
                    "dir": root, "requests": {}, "hook_calls": 0}
    # A scenario is one client run ("prompt") or several ("steps") sharing the fake,
    # HOME and project; {session_id} in client_args names one session across steps.
    session_id = str(uuid.uuid4())
    steps = scn.get("steps") or [{"prompt": scn["prompt"], "client_args": scn.get("client_args", [])}]
    t0 = time.time()
    timed_out = False
    proc = None
    transcript = []  # (cmd, stdout, stderr, rc) of every step, for the artifacts
    try:
        for step in steps:
            step_args = [a.replace("{session_id}", session_id) for a in step.get("client_args", [])]
            cmd = [client, "-p", step["prompt"], "--output-format", "json"] + step_args
            if args.strace:
                cmd = ["strace", "-f", "-qq", "-e", "trace=connect", "-o",
                       os.path.join(root, f"strace.{len(transcript)}.txt")] + cmd
            proc, timed_out = run_client(cmd, project, env, scn.get("timeout", args.timeout))
            transcript.append({"cmd": cmd, "rc": proc.returncode, "stdout": proc.stdout,
                               "stderr": proc.stderr, "timed_out": timed_out})
            if timed_out:
                break
            if proc.returncode != 0 and step is not steps[-1]:
                break
    finally:
        fake.stop()
    dt = time.time() - t0

    result_json = None
    for line in reversed(proc.stdout.strip().splitlines()):
        try:
            result_json = json.loads(line)
            break
        except ValueError:
            continue

    # artifacts for post-mortem
    fake.dump(os.path.join(root, "requests.json"))
    with open(os.path.join(root, "client_runs.json"), "w") as f:
        json.dump(transcript, f, indent=1)

    ctx = Ctx(fake, project, hook_log, proc, result_json)
    failures = []
    if timed_out:
        failures.append(f"client timed out after {scn.get('timeout', args.timeout)}s")
    refused = [r for r in fake.requests if r.kind == "refused"]
    if refused:
        failures.append(f"{len(refused)} requests over the fake's budget (loop?)")
    if not args.no_tap and (scn.get("hooks") or scn.get("plugin")) and not ctx.hook_calls \
            and not scn.get("expect_no_hook_calls"):
        failures.append("the hook was never called (settings not loaded?)")
    if args.strace:
        bad = outside_connects(root)
        if bad:
            failures.append(f"client connected outside loopback: {bad[:3]}")
    for a in scn.get("expect", []):
        try:
            msg = check(ctx, a)
        except Exception as e:  # a broken assertion is a failure, never a pass
            msg = f"assertion error {type(e).__name__}: {e}"
        if msg:
            failures.append(f"{a.get('check')}: {msg}")
    if args.no_tap:
        failures = [f for f in failures if not f.startswith("hook_")]
    kinds = {}
    for r in fake.requests:
        kinds[r.kind] = kinds.get(r.kind, 0) + 1
    summary = {"name": name, "ok": not failures, "failures": failures, "secs": dt,
               "dir": root, "requests": kinds, "hook_calls": len(ctx.hook_calls)}
    if not failures and not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    return summary


def loopback_up():
    """Bring `lo` up in a fresh network namespace (ip(8) if present, else an ioctl)."""
    if shutil.which("ip") and subprocess.run(["ip", "link", "set", "lo", "up"]).returncode == 0:
        return
    import fcntl
    import socket
    import struct
    sk = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    ifr = struct.pack("16sh", b"lo", 0)
    flags = struct.unpack("16sh", fcntl.ioctl(sk, 0x8913, ifr))[1]  # SIOCGIFFLAGS
    fcntl.ioctl(sk, 0x8914, struct.pack("16sh", b"lo", flags | 1))  # SIOCSIFFLAGS, IFF_UP


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--client", help="path to the claude binary (default: cache dir, installing if needed)")
    ap.add_argument("--hookrules", default=os.environ.get("HOOKRULES_E2E_BIN", DEFAULT_HOOKRULES),
                    help="the hookrules binary run as the hook, with each scenario's policies "
                         "(default: $HOOKRULES_E2E_BIN, else target/release/hookrules under the repo root)")
    ap.add_argument("--standin", action="store_true",
                    help="use the stand-in hooks (standin_hook.py + each scenario's \"standin\" spec) "
                         "instead of hookrules: checks the harness itself")
    ap.add_argument("--hook-cmd", help="any other hook command + args (shell words); placeholders {scenario}, "
                                       "{project}, {e2e_dir}, {cwd} (where you ran this), {root} "
                                       "(the scenario temp dir; the stand-in spec is {root}/standin.json)")
    ap.add_argument("--cache-dir", default=os.environ.get("HOOKRULES_E2E_CACHE", DEFAULT_CACHE))
    ap.add_argument("--no-install", action="store_true", help="never install the client; skip instead")
    ap.add_argument("--any-version", action="store_true",
                    help=f"run even if the client is not {PINNED_VERSION}")
    ap.add_argument("--shell-form", action="store_true", help="register the hook in shell form, not exec form (args)")
    ap.add_argument("--no-tap", action="store_true",
                    help="register the hook command directly (hook stdin assertions are then skipped)")
    ap.add_argument("-k", "--only", action="append", help="run scenarios whose name matches (glob/substring)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep temp dirs of passing scenarios too")
    ap.add_argument("--timeout", type=float, default=90, help="per-scenario client timeout, seconds")
    ap.add_argument("--strace", action="store_true",
                    help="run the client under strace and fail on any non-loopback connect()")
    ap.add_argument("--netns", action="store_true",
                    help="re-run inside a new network namespace with only loopback (needs unshare -n)")
    ap.add_argument("--bare-env", action="store_true",
                    help="do not set the DISABLE_* / nonessential-traffic variables (use with --netns)")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)

    scenarios = load_scenarios(args.only)
    if args.list:
        for s in scenarios:
            print(f"{s['name']}: {s.get('description', '')}")
        return 0
    if not scenarios:
        print("e2e: no scenario selected", file=sys.stderr)
        return 2

    if args.standin and args.hook_cmd:
        print("e2e: error: --standin and --hook-cmd exclude each other", file=sys.stderr)
        return 2
    hook_desc = "stand-ins" if args.standin else args.hook_cmd
    if not args.standin and not args.hook_cmd:
        args.hookrules = os.path.abspath(args.hookrules)
        if not (os.path.isfile(args.hookrules) and os.access(args.hookrules, os.X_OK)):
            print(f"e2e: error: hookrules binary {args.hookrules} is not an executable file "
                  f"(build it with `cargo build --release`, or pass --hookrules PATH; "
                  f"--standin checks the harness alone)", file=sys.stderr)
            return 2
        try:
            v = subprocess.run([args.hookrules, "--version"], capture_output=True, text=True,
                               timeout=30, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as e:
            print(f"e2e: error: {args.hookrules} --version failed: {e}", file=sys.stderr)
            return 2
        if v.returncode != 0:
            print(f"e2e: error: {args.hookrules} --version exited {v.returncode}: "
                  f"{(v.stderr or v.stdout).strip()[:200]}", file=sys.stderr)
            return 2
        hook_desc = f"{args.hookrules} ({v.stdout.strip()}) run --policies <scenario policies>"
    try:
        client = find_client(args)
        version, raw = client_version(client)
        if version is None:
            raise Skip(f"{client} --version failed: {raw[:200]}")
    except Skip as e:
        print(f"SKIPPED: Claude Code e2e tests not run: {e}", flush=True)
        print(f"0 passed, 0 failed, {len(scenarios)} skipped")
        return EXIT_SKIP
    if version != PINNED_VERSION and not args.any_version:
        print(f"e2e: client {client} is {version}, expected {PINNED_VERSION} (use --any-version)",
              file=sys.stderr)
        return 2
    if args.hook_cmd:
        words = shlex.split(args.hook_cmd)
        exe = resolve_exe(words[0]) if words else ""
        if not (exe and os.path.isfile(exe) and os.access(exe, os.X_OK)):
            print(f"e2e: error: hook command {words[:1]} is not an executable file "
                  f"(resolved to {exe!r})", file=sys.stderr)
            return 2
    if args.netns and os.environ.get("HOOKRULES_E2E_IN_NETNS") != "1":
        # client already found/installed outside; re-exec inside an isolated netns
        argv2 = [a for a in (argv if argv is not None else sys.argv[1:])]
        argv2 += ["--client", client, "--no-install"]
        env = dict(os.environ, HOOKRULES_E2E_IN_NETNS="1")
        try:
            return subprocess.run(["unshare", "-n", sys.executable, os.path.abspath(__file__)] + argv2,
                                  env=env).returncode
        except OSError as e:
            print(f"e2e: --netns needs unshare: {e}", file=sys.stderr)
            return 2
    if os.environ.get("HOOKRULES_E2E_IN_NETNS") == "1":
        loopback_up()
    print(f"e2e: client {client} ({version}); hook: {hook_desc}; "
          f"{'shell' if args.shell_form else 'exec'} form", flush=True)

    passed = failed = 0
    t0 = time.time()
    for scn in scenarios:
        r = run_scenario(scn, args, client)
        reqs = " ".join(f"{k}={v}" for k, v in sorted(r["requests"].items()))
        if r["ok"]:
            passed += 1
            print(f"PASS {r['name']} ({r['secs']:.1f}s; {reqs}; hooks={r['hook_calls']})", flush=True)
        else:
            failed += 1
            print(f"FAIL {r['name']} ({r['secs']:.1f}s; {reqs}; hooks={r['hook_calls']}; artifacts {r['dir']})",
                  flush=True)
            for f in r["failures"]:
                print(f"     - {f}", flush=True)
        if args.verbose and r["ok"] and args.keep:
            print(f"     artifacts {r['dir']}")
    print(f"e2e: total {time.time() - t0:.1f}s", flush=True)
    if args.no_tap:
        print("e2e: --no-tap: hook_calls/hook_stdin assertions were not checked", flush=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
