#!/usr/bin/env python3
"""End to end in the real Codex CLI: hookrules installed with `init --host codex`
(user scope: $CODEX_HOME/hooks.json; project scope: <project>/.codex/hooks.json)
into a scratch HOME and CODEX_HOME, `codex exec` with approvals off, the model a
scripted fake of the OpenAI Responses API on 127.0.0.1 (a custom model_provider
in the scratch config.toml: base_url, wire_api = "responses", env_key).

    run_codex.py --codex PATH/bin/codex --hookrules PATH/hookrules [--keep] [-k NAME]

Codex runs a hook from hooks.json only once its hash is recorded as trusted in
the user's config.toml (`[hooks.state."<file>:<event>:<group>:<handler>"]
trusted_hash`), and reads a project's `.codex/` only when the project is trusted
(`[projects."<dir>"] trust_level = "trusted"`). A user does this in the TUI
(`/hooks`, the trust prompt); here the same two requests the TUI sends go to
the client's own app server (`codex app-server`: `hooks/list` for each hook's
key and current hash, `config/batchWrite` to record them), so the client
computes and writes its trust itself and nothing is bypassed.

Scenarios, each with the built-in pack:
  codex_rm_rf_root_denied        `rm -rf /` through exec_command: blocked, the model
                                 reads hookrules' reason in the function_call_output,
                                 nothing ran;
  codex_harmless_runs            `echo` through exec_command runs, nothing blocked;
  codex_apply_patch_env_denied   apply_patch changing the project's `.env` is blocked
                                 with hookrules' reason (the patch is seen as the file
                                 it edits; creating a `.env` is allowed, reading or
                                 changing one is not); a patch adding `notes.txt`
                                 applies;
  codex_project_scope_denied     `init --host codex` without --user, in a trusted
                                 project: `rm -rf /` blocked with hookrules' reason;
  codex_untrusted_hooks_skipped  the control: the same hooks not trusted, Codex runs
                                 none of them (the .env change applies); what the
                                 trust step above is for, and why `init` says so.
In every scenario `hookrules doctor` must say what the client's `hooks/list` says
about trust, hook by hook (its hash is computed as the client computes it).
Prints one PASS/FAIL line each, then `N passed, N failed`. Exit 0 all passed,
1 a failure, 2 a setup error.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from fake_responses import FakeResponses  # noqa: E402

# A model the pinned client knows (its bundled catalogue), so it offers its own
# tools: exec_command (unified exec) and the freeform apply_patch.
MODEL = "gpt-5.5"
RM_REASON = "Blocked by hookrules (delete-root-or-system)"
ENV_REASON = "Blocked by hookrules (secret-file-tool)"
ENV_BEFORE = "API_KEY=old\n"


def deny_script(project):
    # The guard `test -e NEVER &&` keeps this harmless should anything let it through.
    return [
        {"call": {"name": "exec_command", "arguments": {
            "cmd": f"touch {project}/CODEX_DENY_RAN; test -e {project}/NEVER && rm -rf /"}}},
        {"text": "The hook refused."},
    ]


def patch_script():
    return [
        {"custom": {"name": "apply_patch",
                    "input": "*** Begin Patch\n*** Update File: .env\n@@\n-API_KEY=old\n+API_KEY=sk-live-123\n*** End Patch\n"}},
        {"custom": {"name": "apply_patch",
                    "input": "*** Begin Patch\n*** Add File: notes.txt\n+hello\n*** End Patch\n"}},
        {"text": "Done."},
    ]


def scenarios():
    return [
        {"name": "codex_rm_rf_root_denied", "scope": "user", "script": deny_script,
         "check": lambda fake, project: deny_checks(fake, project)},
        {"name": "codex_harmless_runs", "scope": "user",
         "script": lambda project: [
             {"call": {"name": "exec_command", "arguments": {
                 "cmd": f"echo codex-ok > {project}/harmless.txt"}}},
             {"text": "Done."}],
         "check": lambda fake, project: harmless_checks(fake, project)},
        {"name": "codex_apply_patch_env_denied", "scope": "user", "script": lambda project: patch_script(),
         "check": lambda fake, project: patch_checks(fake, project)},
        {"name": "codex_project_scope_denied", "scope": "project", "script": deny_script,
         "check": lambda fake, project: deny_checks(fake, project)},
        {"name": "codex_untrusted_hooks_skipped", "scope": "user", "trust": False,
         "script": lambda project: patch_script(),
         "check": lambda fake, project: untrusted_checks(fake, project)},
    ]


def tool_outputs(fake):
    """Every tool result the client sent back to the model (function and custom tools), as text."""
    seen, out = set(), []
    for r in fake.model_requests():
        for item in (r["body"] or {}).get("input", []):
            if item.get("type") in ("function_call_output", "custom_tool_call_output"):
                key = (item.get("call_id"), json.dumps(item.get("output")))
                if key not in seen:
                    seen.add(key)
                    out.append(json.dumps(item.get("output")))
    return out


def blocked_by_hookrules(texts):
    return [t for t in texts if "Blocked by hookrules" in t]


def deny_checks(fake, project):
    fails = []
    outs = tool_outputs(fake)
    if not any(RM_REASON in t for t in outs):
        fails.append(f"no tool output carries hookrules' reason; got {outs[:2]}")
    if os.path.exists(os.path.join(project, "CODEX_DENY_RAN")):
        fails.append("the denied command ran")
    if len(fake.model_requests()) < 2:
        fails.append("the model was not called again after the tool call")
    return fails


def harmless_checks(fake, project):
    fails = []
    p = os.path.join(project, "harmless.txt")
    if not os.path.exists(p) or "codex-ok" not in open(p).read():
        fails.append("the harmless command did not run")
    if blocked_by_hookrules(tool_outputs(fake)):
        fails.append(f"hookrules blocked a harmless command: {blocked_by_hookrules(tool_outputs(fake))}")
    return fails


def patch_checks(fake, project):
    fails = []
    outs = tool_outputs(fake)
    if not any(ENV_REASON in t for t in outs):
        fails.append(f"no tool output carries hookrules' reason for the .env patch; got {outs[:2]}")
    if open(os.path.join(project, ".env")).read() != ENV_BEFORE:
        fails.append("the .env patch was applied")
    if not os.path.exists(os.path.join(project, "notes.txt")):
        fails.append("the harmless patch (notes.txt) was not applied")
    if len(blocked_by_hookrules(outs)) != 1:
        fails.append(f"expected exactly one hookrules block, got {blocked_by_hookrules(outs)}")
    return fails


def untrusted_checks(fake, project):
    fails = []
    if blocked_by_hookrules(tool_outputs(fake)):
        fails.append("an untrusted hook ran: Codex's trust rule changed (update init's note and this test)")
    if "sk-live-123" not in open(os.path.join(project, ".env")).read():
        fails.append("the .env patch did not apply although no hook was trusted")
    return fails


class AppServer:
    """The client's own app server over stdio (JSON-RPC, one message per line)."""

    def __init__(self, codex, env, cwd):
        self.p = subprocess.Popen([codex, "app-server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, env=env, cwd=cwd)
        self.next_id = 0
        self.call("initialize", {"clientInfo": {"name": "hookrules-e2e", "version": "0"}})
        self.send({"jsonrpc": "2.0", "method": "initialized"})

    def send(self, msg):
        self.p.stdin.write(json.dumps(msg) + "\n")
        self.p.stdin.flush()

    def call(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError(f"app-server closed during {method}: {self.p.stderr.read()[-2000:]}")
            msg = json.loads(line)
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg["result"]

    def close(self):
        self.p.stdin.close()
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


def hooks_of(server, project):
    data = server.call("hooks/list", {"cwds": [project]})["data"]
    entry = next((d for d in data if d["cwd"] == project), data[0] if data else {})
    return entry.get("hooks", []), entry.get("warnings", []) + entry.get("errors", [])


def trust_hooks(codex, env, project, hookrules, trust):
    """hookrules' hooks as the client lists them, after recording them as trusted the way
    the TUI's /hooks does (when `trust`); returns (hooks, problems)."""
    server = AppServer(codex, env, project)
    try:
        hooks, problems = hooks_of(server, project)
        ours = [h for h in hooks if hookrules in (h.get("command") or "")]
        if not ours:
            return ours, problems + ["the client lists no hookrules hook (did it reject the file?)"]
        if trust:
            state = {h["key"]: {"trusted_hash": h["currentHash"]} for h in ours}
            server.call("config/batchWrite",
                        {"edits": [{"keyPath": "hooks.state", "mergeStrategy": "upsert", "value": state}]})
            hooks, problems = hooks_of(server, project)
        return [h for h in hooks if hookrules in (h.get("command") or "")], problems
    finally:
        server.close()


def doctor_agrees(args, env, project, hooks):
    """`hookrules doctor` must say what the client says about trust, hook by hook."""
    d = subprocess.run([args.hookrules, "doctor"], env=env, cwd=project, capture_output=True, text=True)
    lines = [l for l in d.stdout.splitlines() if "Codex CLI" in l]
    status = {h["eventName"][0].upper() + h["eventName"][1:]: h["trustStatus"] for h in hooks}
    untrusted = sorted(e for e, t in status.items() if t == "untrusted")
    if all(t == "trusted" for t in status.values()):
        want = f"Codex trusts all {len(status)} of hookrules' hooks"
        if not any(want in l for l in lines):
            return [f"doctor does not say `{want}`: {lines}"]
        return []
    said = next((l.split("not trusted: ", 1)[1].split(")")[0].split(";")[0] for l in lines
                 if "not trusted: " in l), "")
    fails = []
    if sorted(said.split(", ")) != untrusted:
        fails.append(f"doctor's untrusted hooks {said!r} are not the client's {untrusted}: {lines}")
    if "PreToolUse" in untrusted and d.returncode != 1:
        fails.append(f"doctor exits {d.returncode} although Codex skips the PreToolUse hook")
    return fails


def run(scn, args):
    root = tempfile.mkdtemp(prefix=f"hookrules-e2e-{scn['name']}-")
    home = os.path.join(root, "home")
    codex_home = os.path.join(home, ".codex")
    project = os.path.join(root, "project")
    os.makedirs(codex_home)
    os.makedirs(project)
    # A repository, as a user's project is (Codex finds the project root by `.git`).
    subprocess.run(["git", "init", "-q", project], check=True)
    with open(os.path.join(project, ".env"), "w") as f:
        f.write(ENV_BEFORE)
    env = {"HOME": home, "CODEX_HOME": codex_home, "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "TMPDIR": home, "TERM": "dumb", "NO_COLOR": "1", "FAKE_OPENAI_KEY": "test-key",
           "RUST_LOG": "warn",
           # Anything but the fake on 127.0.0.1 goes to a closed port and fails fast.
           "HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9",
           "ALL_PROXY": "http://127.0.0.1:9", "NO_PROXY": "127.0.0.1,localhost"}
    env.update({k.lower(): v for k, v in env.items() if k.endswith("_PROXY")})
    init_args = [args.hookrules, "init", "--host", "codex"] + (["--user"] if scn["scope"] == "user" else [])
    init = subprocess.run(init_args, env=env, cwd=project, capture_output=True, text=True)
    if init.returncode != 0:
        return [f"setup: {' '.join(init_args[1:])} failed: {init.stderr}"], root

    fake = FakeResponses(scn["script"](project))
    config = "\n".join([
        f'model = "{MODEL}"',
        'model_provider = "hookrules-fake"',
        'approval_policy = "never"',
        # No sandbox: the machine may lack bubblewrap, and the hooks are what is tested.
        'sandbox_mode = "danger-full-access"',
        # Nothing leaves 127.0.0.1: no update check, analytics, plugin or app sync.
        "check_for_update_on_startup = false",
        "",
        "[analytics]",
        "enabled = false",
        "",
        "[features]",
        "plugins = false",
        "remote_plugin = false",
        "apps = false",
        "",
        "[model_providers.hookrules-fake]",
        'name = "hookrules e2e fake"',
        f'base_url = "{fake.base_url}"',
        'wire_api = "responses"',
        'env_key = "FAKE_OPENAI_KEY"',
        "",
    ])
    if scn["scope"] == "project":
        config += f'\n[projects."{project}"]\ntrust_level = "trusted"\n'
    with open(os.path.join(codex_home, "config.toml"), "w") as f:
        f.write(config)

    fails = []
    trust = scn.get("trust", True)
    try:
        hooks, problems = trust_hooks(args.codex, env, project, args.hookrules, trust)
    except (RuntimeError, OSError, ValueError) as e:
        return [f"setup: listing/trusting the hooks through codex app-server failed: {e}"], root
    if problems:
        fails.append(f"the client reports problems with the hook files: {problems}")
    events = {h["eventName"] for h in hooks if h.get("trustStatus") == "trusted"}
    if trust and "preToolUse" not in events:
        fails.append(f"hookrules' PreToolUse hook is not trusted after the trust step: {hooks}")
    fails += doctor_agrees(args, env, project, hooks)

    fake.start()
    try:
        p = subprocess.run([args.codex, "exec", "--json", "-C", project, "do the task"],
                           env=env, cwd=project, capture_output=True, text=True,
                           timeout=args.timeout, stdin=subprocess.DEVNULL)
        out = {"rc": p.returncode, "stdout": p.stdout, "stderr": p.stderr}
    except subprocess.TimeoutExpired as e:
        out = {"rc": None, "stdout": str(e.stdout), "stderr": str(e.stderr), "timeout": True}
    finally:
        fake.stop()
    with open(os.path.join(root, "run.json"), "w") as f:
        json.dump({"client": out, "requests": fake.requests}, f, indent=1, default=str)
    if out.get("timeout"):
        fails.append(f"client timed out after {args.timeout}s")
    elif out["rc"] != 0:
        fails.append(f"codex exec exited {out['rc']}: {out['stderr'][-800:]}")
    if not fake.model_requests():
        fails.append("the client never called the fake model")
    fails += scn["check"](fake, project)
    return fails, root


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--codex", required=True, help="the codex executable (the npm package's bin/codex.js or its native binary)")
    ap.add_argument("--hookrules", required=True)
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("-k", dest="only", help="run the scenarios whose name contains this")
    args = ap.parse_args()
    args.codex = os.path.abspath(args.codex)
    args.hookrules = os.path.abspath(args.hookrules)
    for p in (args.codex, args.hookrules):
        if not os.path.exists(p):
            print(f"e2e codex: {p} does not exist", file=sys.stderr)
            return 2
    passed = failed = 0
    for scn in scenarios():
        if args.only and args.only not in scn["name"]:
            continue
        fails, root = run(scn, args)
        if fails:
            failed += 1
            print(f"FAIL {scn['name']} (artifacts {root})")
            for f in fails:
                print(f"     - {f}")
        else:
            passed += 1
            print(f"PASS {scn['name']}")
            if not args.keep:
                shutil.rmtree(root, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
