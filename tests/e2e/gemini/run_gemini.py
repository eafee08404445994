#!/usr/bin/env python3
"""End to end in the real Gemini CLI: hookrules installed with `init --host gemini --user`
into a scratch HOME, the CLI in `-p` mode with tools auto-approved (`--yolo`), the
model a scripted fake of the Gemini API on 127.0.0.1 (GOOGLE_GEMINI_BASE_URL).

    run_gemini.py --client PATH/bundle/gemini.js --hookrules PATH/hookrules [--keep]

Two scenarios, each with the built-in pack: `rm -rf /` is denied with hookrules'
own reason (the model reads it in the tool's response) and nothing runs; a
harmless command runs. Prints one PASS/FAIL line each, then `N passed, N failed`.
Exit 0 all passed, 1 a failure, 2 a setup error.
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
from fake_gemini import FakeGemini  # noqa: E402

REASON = "Blocked by hookrules (delete-root-or-system)"


def scenarios(project):
    return [
        {
            "name": "gemini_rm_rf_root_denied",
            "script": [
                {"call": {"name": "run_shell_command", "args": {
                    "command": f"touch {project}/GEMINI_DENY_RAN; test -e {project}/NEVER && rm -rf /",
                    "description": "wipe"}}},
                {"text": "The hook refused."},
            ],
            "check": lambda fake, project: deny_checks(fake, project),
        },
        {
            "name": "gemini_harmless_runs",
            "script": [
                {"call": {"name": "run_shell_command", "args": {
                    "command": f"echo gemini-ok > {project}/harmless.txt", "description": "marker"}}},
                {"text": "Done."},
            ],
            "check": lambda fake, project: harmless_checks(fake, project),
        },
    ]


def function_responses(fake):
    """The functionResponse parts the CLI sent back to the model, as text."""
    out = []
    for r in fake.main_requests():
        for c in (r["body"] or {}).get("contents", []):
            for p in c.get("parts", []):
                if "functionResponse" in p:
                    out.append(json.dumps(p["functionResponse"]))
    return out


def deny_checks(fake, project):
    fails = []
    resp = function_responses(fake)
    if not any(REASON in t for t in resp):
        fails.append(f"no tool response carries hookrules' reason; got {resp[:2]}")
    if os.path.exists(os.path.join(project, "GEMINI_DENY_RAN")):
        fails.append("the denied command ran")
    if len(fake.main_requests()) < 2:
        fails.append("the model was not called again after the tool call")
    return fails


def harmless_checks(fake, project):
    fails = []
    p = os.path.join(project, "harmless.txt")
    if not os.path.exists(p) or "gemini-ok" not in open(p).read():
        fails.append("the harmless command did not run")
    if any(REASON in t or "hookrules" in t.lower() and "blocked" in t.lower() for t in function_responses(fake)):
        fails.append("hookrules blocked a harmless command")
    return fails


def run(scn, args):
    root = tempfile.mkdtemp(prefix=f"hookrules-e2e-{scn['name']}-")
    home = os.path.join(root, "home")
    project = os.path.join(root, "project")
    os.makedirs(home)
    os.makedirs(project)
    scn = {**scn, "script": json.loads(json.dumps(scn["script"]).replace("{project}", project))}
    scn_list = scenarios(project)
    scn = next(s for s in scn_list if s["name"] == scn["name"])
    env = {"HOME": home, "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TMPDIR": home,
           "GEMINI_API_KEY": "test-key", "GEMINI_CLI_NO_RELAUNCH": "true", "NO_COLOR": "1",
           "TERM": "dumb", "GEMINI_CLI_TRUST_WORKSPACE": "true"}
    # Install the hooks the way a user would, into the user settings of the scratch HOME.
    init = subprocess.run([args.hookrules, "init", "--host", "gemini", "--user"], env=env,
                          cwd=project, capture_output=True, text=True)
    if init.returncode != 0:
        return [f"setup: init --host gemini failed: {init.stderr}"], root
    settings_path = os.path.join(home, ".gemini", "settings.json")
    settings = json.load(open(settings_path))
    settings.setdefault("security", {}).setdefault("auth", {})["selectedType"] = "gemini-api-key"
    settings["privacy"] = {"usageStatisticsEnabled": False}
    settings["telemetry"] = {"enabled": False}
    json.dump(settings, open(settings_path, "w"), indent=1)

    fake = FakeGemini(scn["script"])
    fake.start()
    env["GOOGLE_GEMINI_BASE_URL"] = fake.base_url
    try:
        p = subprocess.run(["node", args.client, "-p", "do the task", "--yolo", "-m", "gemini-2.5-pro"],
                           env=env, cwd=project, capture_output=True, text=True, timeout=args.timeout,
                           stdin=subprocess.DEVNULL)
        out = {"rc": p.returncode, "stdout": p.stdout, "stderr": p.stderr}
    except subprocess.TimeoutExpired as e:
        out = {"rc": None, "stdout": str(e.stdout), "stderr": str(e.stderr), "timeout": True}
    finally:
        fake.stop()
    json.dump({"client": out, "requests": fake.requests}, open(os.path.join(root, "run.json"), "w"),
              indent=1, default=str)
    fails = []
    if out.get("timeout"):
        fails.append(f"client timed out after {args.timeout}s")
    fails += scn["check"](fake, project)
    return fails, root


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--client", required=True)
    ap.add_argument("--hookrules", required=True)
    ap.add_argument("--timeout", type=int, default=90)
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    args.client = os.path.abspath(args.client)
    args.hookrules = os.path.abspath(args.hookrules)
    for p in (args.client, args.hookrules):
        if not os.path.exists(p):
            print(f"e2e gemini: {p} does not exist", file=sys.stderr)
            return 2
    passed = failed = 0
    for scn in scenarios("{project}"):
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
