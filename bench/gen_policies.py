#!/usr/bin/env python3
"""Generate synthetic hookrules policies for the benchmark (deterministic, seeded).

    bench/gen_policies.py [--out bench/out] [--seed 1] [--per-file 50] 1000 10000

writes bench/out/policies-1k/NNN-*.toml and bench/out/policies-10k/NNN-*.toml.

The rules are shaped like the built-in pack and the example policies: most are on
PreToolUse/PostToolUse for Bash/Read/Write/Edit, some on Stop, SubagentStop,
SessionStart and UserPromptSubmit. Conditions use the kinds real rules use:
`commands` with `command = { program = [...], ... }`, regex `matches` on fields,
`paths` with `glob` (and `from_command`), `equals`/`one_of`, named `[lists]`
referenced by several rules, named `[conditions]`, `unless`, and templated
reasons/contexts. Every regex carries a per-rule token, so rules are distinct
(no two rules compile to the same pattern), as in a real set of policies.

Against the sample events (bench/events/PreToolUse-Bash.json: `npm test --
--watch=false`; Stop.json) every rule that reaches the event is evaluated and
almost none fires (a few advisory `context` rules on `npm`), as in real use.
`hookrules check bench/out/policies-1k` reports no errors and no warnings.
"""

import argparse
import os
import random
import shutil

# Where real rules sit (weights). Each entry: (event, matcher or None, kind).
SHAPES = [
    ("PreToolUse", "Bash", "bash_cmd", 22),
    ("PreToolUse", "Bash", "bash_regex", 8),
    ("PreToolUse", "Bash", "bash_paths", 5),
    ("PreToolUse", "Read", "file_glob", 7),
    ("PreToolUse", "Read|Grep", "file_glob", 3),
    ("PreToolUse", "Write|Edit|MultiEdit", "file_glob", 8),
    ("PreToolUse", "Edit", "file_regex", 4),
    ("PreToolUse", "Write", "content_regex", 3),
    ("PreToolUse", None, "subagent_tool", 2),
    ("PostToolUse", "Bash", "post_bash", 9),
    ("PostToolUse", "Write|Edit", "post_file", 7),
    ("PostToolUse", "Read", "post_file", 2),
    ("Stop", None, "stop", 5),
    ("SubagentStop", None, "subagent_stop", 5),
    ("SessionStart", "startup|resume", "session", 4),
    ("UserPromptSubmit", None, "prompt", 6),
]

PROGRAMS = [
    "rm", "git", "npm", "yarn", "pnpm", "pip", "pip3", "cargo", "docker", "kubectl",
    "terraform", "curl", "wget", "ssh", "scp", "rsync", "chmod", "chown", "dd", "mkfs",
    "psql", "mysql", "redis-cli", "aws", "gcloud", "az", "helm", "make", "python", "node",
    "sed", "awk", "find", "xargs", "tar", "zip", "unzip", "kill", "pkill", "systemctl",
    "brew", "apt-get", "dnf", "go", "mvn", "gradle", "composer", "drush", "php", "ruby",
]
SUBCOMMANDS = {
    "git": ["push", "reset", "clean", "checkout", "rebase", "commit", "branch", "tag", "stash"],
    "npm": ["publish", "install", "uninstall", "run", "exec", "audit"],
    "docker": ["rm", "rmi", "system", "volume", "run", "push"],
    "kubectl": ["delete", "apply", "exec", "drain", "scale"],
    "terraform": ["destroy", "apply", "import", "state"],
    "cargo": ["publish", "install", "yank"],
    "aws": ["s3", "iam", "ec2", "rds"],
    "helm": ["uninstall", "install", "upgrade", "rollback"],
}
FLAGS = ["-f", "--force", "-r", "-R", "--recursive", "-y", "--yes", "--hard", "-9",
         "--no-verify", "--all", "-a", "--purge", "--prune", "-d", "-x", "--delete"]
ARGS = ["/", "~", "*", ".", "..", "$HOME", "prod", "production", "main", "master",
        "--all-namespaces", "-A", "origin", "default", "kube-system", "/var/lib"]
WORDS = ["secret", "token", "password", "deploy", "release", "prod", "staging", "backup",
         "migration", "schema", "drop", "truncate", "delete", "wipe", "purge", "force",
         "admin", "root", "sudo", "cluster", "bucket", "database", "vault", "ledger",
         "invoice", "payment", "customer", "session", "cookie", "cache", "queue", "cron"]
EXTS = ["pem", "key", "p12", "sqlite", "db", "env", "lock", "tfstate", "kubeconfig",
        "log", "bak", "dump", "sql", "crt", "jks", "der", "ovpn", "gpg", "asc", "kdbx"]
DIRS = ["/etc", "/usr", "/var", "/opt", "/srv", "~/.ssh", "~/.aws", "~/.kube",
        "~/.config", "$PROJECT_DIR/vendor", "$PROJECT_DIR/node_modules",
        "$PROJECT_DIR/.git", "$PROJECT_DIR/dist", "$PROJECT_DIR/migrations",
        "$PROJECT_DIR/infra", "$PROJECT_DIR/secrets", "$PROJECT_DIR/.github"]
AGENTS = ["Explore", "Plan", "general-purpose", "code-reviewer", "test-runner",
          "routing-agent", "research-agent", "security-agent", "docs-agent", "qa-agent"]


def q(s):
    """A TOML literal string (no escapes: regexes stay as written)."""
    assert "'" not in s and "\n" not in s, s
    return "'" + s + "'"


def qs(xs):
    return "[" + ", ".join(q(x) for x in xs) + "]"


class FileGen:
    def __init__(self, rng, fidx):
        self.rng = rng
        self.fidx = fidx
        self.tag = "f%03d" % fidx
        r = rng
        # Lists each referenced by several rules of this file.
        self.lists = {
            "risky_programs": r.sample(PROGRAMS, 6),
            "protected_paths": ["%s/**" % d for d in r.sample(DIRS, 5)]
            + ["*.%s" % e for e in r.sample(EXTS, 4)] + ["!*.example"],
            "sensitive_words": ["\\b%s_%s\\b" % (w, self.tag) for w in r.sample(WORDS, 5)],
            "known_agents": r.sample(AGENTS, 4),
            "generated_files": ["*.min.js", "*.lock", "dist/**", "build/**", "*.%s" % r.choice(EXTS)],
        }
        self.used_lists = set()
        self.used_conditions = False
        self.rules = []

    def lst(self, name):
        self.used_lists.add(name)
        return '{ list = "%s" }' % name

    def rule(self, n, event, matcher, kind):
        r = self.rng
        rid = "%s-%s-%04d" % (self.tag, kind.replace("_", "-"), n)
        tok = "%s_%d" % (self.tag, n)  # makes every regex distinct
        lines = ["[[rule]]", 'id = "%s"' % rid,
                 'description = "Synthetic %s rule %d."' % (kind, n),
                 "priority = %d" % r.choice([10, 20, 20, 50, 90, 100, 100]),
                 'tags = ["%s", "synthetic"]' % kind.split("_")[0],
                 'events = ["%s"]' % event]
        if matcher:
            lines.append('matcher = "%s"' % matcher)
        decision, reason, context, unless = None, None, None, None
        if kind == "bash_cmd" and r.random() < 0.1:
            # an advisory rule: context only, no decision
            prog = r.choice(PROGRAMS)
            when = '{ commands = "tool_input.command", command = { program = [%s] } }' % q(prog)
            context = "Note for {{ event.tool_input.command | truncate_chars(40) }}: see docs/%s-%s.md." % (prog, tok)
        elif kind == "bash_cmd":
            prog = r.choice(PROGRAMS)
            parts = ["program = [%s]" % q(prog) if r.random() < 0.7 else "program = [%s]" % self.lst("risky_programs")]
            if prog in SUBCOMMANDS and r.random() < 0.7:
                parts.append("subcommand = [%s]" % q(r.choice(SUBCOMMANDS[prog])))
            x = r.random()
            if x < 0.35:
                parts.append("flags_any = %s" % qs(r.sample(FLAGS, 2)))
            elif x < 0.55:
                parts.append("flags_all = [%s, %s]" % (qs(r.sample(FLAGS, 2)), qs(r.sample(FLAGS, 1))))
            elif x < 0.75:
                parts.append("arg_in = %s" % qs(r.sample(ARGS, 3)))
            elif x < 0.9:
                parts.append("arg_matches = [%s]" % q("^%s-%s" % (r.choice(WORDS), tok)))
            else:
                parts.append("target_glob = [%s]" % self.lst("protected_paths"))
            when = '{ commands = "tool_input.command", command = { %s } }' % ", ".join(parts)
            if r.random() < 0.25:
                when = '{ any = [\n  %s,\n  { commands = "tool_input.command", command = { program = [%s], arg_matches = [%s] } },\n] }' % (
                    when, q(r.choice(PROGRAMS)), q("--%s-%s" % (r.choice(WORDS), tok)))
            decision = r.choice(["deny", "deny", "ask"])
        elif kind == "bash_regex":
            if r.random() < 0.3:
                when = '{ field = "tool_input.command", matches = [%s] }' % self.lst("sensitive_words")
            else:
                w1, w2 = r.sample(WORDS, 2)
                when = '{ field = "tool_input.command", normalize = ["whitespace"], matches = [%s, %s] }' % (
                    q("\\b%s\\s+--?%s\\b" % (w1, tok)), q("(?i)%s[=:](?P<value>\\S+)_%s" % (w2, tok)))
            if r.random() < 0.3:
                unless = '{ commands = "tool_input.command", quantifier = "all", command = { program = ["echo", "printf"] } }'
            decision = r.choice(["deny", "ask"])
        elif kind == "bash_paths":
            if r.random() < 0.5:
                when = '{ paths = "tool_input.command", from_command = true, glob = [%s] }' % self.lst("protected_paths")
            else:
                when = '{ paths = "tool_input.command", from_command = true, written_by = [%s], glob = %s }' % (
                    self.lst("risky_programs"), qs(["%s/**" % d for d in r.sample(DIRS, 2)]))
            decision = "deny"
        elif kind == "file_glob":
            x = r.random()
            if x < 0.5:
                when = '{ paths = "tool_input.file_path", glob = [%s] }' % self.lst("protected_paths")
            elif x < 0.8:
                when = '{ paths = "tool_input.file_path", glob = %s, case_insensitive = true }' % qs(
                    ["**/%s_%s.%s" % (r.choice(WORDS), tok, r.choice(EXTS)), "%s/%s_%s/**" % (r.choice(DIRS), r.choice(WORDS), tok)])
            else:
                when = '{ any = [\n  { paths = "tool_input.file_path", glob = [%s] },\n  { field = "tool_input.file_path", matches = [%s] },\n] }' % (
                    self.lst("generated_files"), q("/%s_%s/" % (r.choice(WORDS), tok)))
            decision = r.choice(["deny", "deny", "ask"])
        elif kind == "file_regex":
            when = '{ all = [\n  { field = "tool_input.file_path", matches = [%s] },\n  { field = "tool_input.new_string", matches = [%s] },\n] }' % (
                q("\\.(%s)$" % "|".join(r.sample(EXTS, 3))), q("(?i)\\b%s\\b.*%s" % (r.choice(WORDS), tok)))
            decision = "ask"
        elif kind == "content_regex":
            when = '{ field = "tool_input.content", matches = [%s, %s] }' % (
                q("(?i)%s\\s*[:=]\\s*\\S{16,}_%s" % (r.choice(WORDS), tok)),
                q("BEGIN %s PRIVATE KEY %s" % (r.choice(["RSA", "EC", "OPENSSH"]), tok)))
            decision = "deny"
        elif kind == "subagent_tool":
            self.used_conditions = True
            when = '{ all = [{ ref = "in_subagent" }, { field = "tool_name", one_of = %s }] }' % qs(
                r.sample(["Bash", "Write", "Edit", "WebFetch", "NotebookEdit"], 2))
            unless = '{ field = "agent_type", one_of = [%s] }' % self.lst("known_agents")
            decision = "ask"
        elif kind == "post_bash":
            x = r.random()
            if x < 0.5:
                when = '{ field = "tool_response.stdout", matches = [%s] }' % q(
                    "(?i)(%s|%s) (failed|error)[^\\n]*%s" % (r.choice(WORDS), r.choice(WORDS), tok))
                decision = "block"
                reason = "{{ rule.id }}: the command `{{ event.tool_input.command | truncate_chars(60) }}` reported a failure. Fix it before going on."
            elif x < 0.8:
                when = '{ commands = "tool_input.command", command = { program = [%s], subcommand = [%s] } }' % (
                    q("git"), q(r.choice(SUBCOMMANDS["git"])))
                context = "After `{{ event.tool_input.command | truncate_chars(80) }}`: check the {{ rule.tags | join(', ') }} notes (%s)." % tok
            else:
                when = '{ field = "tool_response.stderr", matches = [%s] }' % self.lst("sensitive_words")
                decision = "block"
        elif kind == "post_file":
            if r.random() < 0.6:
                when = '{ paths = "tool_input.file_path", glob = [%s] }' % self.lst("generated_files")
                context = "{{ event.tool_input.file_path | basename }} is generated; regenerate it instead of editing it (%s)." % tok
            else:
                when = '{ field = "tool_input.file_path", matches = [%s] }' % q("\\.(%s)$" % "|".join(r.sample(EXTS, 2)))
                unless = '{ paths = "tool_input.file_path", glob = [%s] }' % q("$PROJECT_DIR/%s_%s/**" % (r.choice(WORDS), tok))
                decision = "block"
        elif kind == "stop":
            w = r.choice(WORDS)
            when = '{ field = "last_assistant_message", normalize = ["dashes"], matches = [%s, %s] }' % (
                q("(?i)\\b(TODO|FIXME)\\b[^\\n]{0,40}%s" % tok), q("(?i)\\b%s\\b.*not (yet )?(done|finished)_%s" % (w, tok)))
            unless = '{ field = "stop_hook_active", equals = true }'
            decision = "block"
        elif kind == "subagent_stop":
            if r.random() < 0.5:
                when = '{ all = [\n  { field = "agent_type", one_of = [%s] },\n  { field = "last_assistant_message", matches = [%s] },\n] }' % (
                    self.lst("known_agents"), q("(?i)\\bhandoff\\b.*\\b%s\\b" % tok))
            else:
                when = '{ field = "last_assistant_message", matches_none = [%s] }' % q("(?i)(done|complete|found|%s)" % tok)
            unless = '{ field = "stop_hook_active", equals = true }'
            decision = "block"
        elif kind == "session":
            when = '{ field = "source", one_of = ["startup", "resume"] }' if r.random() < 0.5 else None
            context = "Project rules (%s): read docs/%s.md before changing {{ project_dir | basename }}. Today is {{ today }}." % (tok, r.choice(WORDS))
        elif kind == "prompt":
            if r.random() < 0.6:
                when = '{ field = "prompt", normalize = ["casefold"], matches = [%s] }' % q(
                    "\\b(?P<topic>%s|%s)\\b.*%s" % (r.choice(WORDS), r.choice(WORDS), tok))
                context = "The prompt mentions {{ captures.topic or 'a sensitive topic' }}: follow the runbook (%s)." % tok
            else:
                when = '{ field = "prompt", matches = [%s] }' % self.lst("sensitive_words")
                decision = "block"
        else:
            raise ValueError(kind)

        if when:
            lines.append("when = %s" % when)
        if unless:
            lines.append("unless = %s" % unless)
        if decision:
            lines.append('decision = "%s"' % decision)
            if reason is None:
                if r.random() < 0.5:
                    reason = "Blocked by {{ rule.policy }} ({{ rule.id }}): %s rule %s. Ask the user first." % (kind, tok)
                else:
                    reason = "Synthetic %s rule %s matched." % (kind, tok)
            lines.append('reason = "%s"' % reason)
        if context:
            lines.append('context = "%s"' % context)
        return "\n".join(lines)

    def render(self, n_rules, shapes):
        r = self.rng
        total = sum(s[3] for s in shapes)
        body = []
        for n in range(n_rules):
            x = r.uniform(0, total)
            for event, matcher, kind, w in shapes:
                x -= w
                if x <= 0:
                    break
            body.append(self.rule(n, event, matcher, kind))
        head = ["# Generated by bench/gen_policies.py: synthetic rules for the benchmark.",
                "[policy]", 'name = "synthetic-%s"' % self.tag,
                'failure = "%s"' % ("fail-closed" if self.fidx % 3 else "fail-open"),
                "", "[lists]"]
        for name, items in self.lists.items():
            if name in self.used_lists:
                head.append("%s = %s" % (name, qs(items)))
        if self.used_conditions:
            head += ["", "[conditions]", 'in_subagent = { field = "agent_id", exists = true }']
        head.append("")
        return "\n".join(head) + "\n" + "\n\n".join(body) + "\n"


def generate(out_dir, n_rules, per_file, seed):
    rng = random.Random("%d-%d" % (seed, n_rules))
    if os.path.isdir(out_dir):
        shutil.rmtree(out_dir)
    os.makedirs(out_dir)
    n_files = (n_rules + per_file - 1) // per_file
    written = 0
    for f in range(n_files):
        k = min(per_file, n_rules - written)
        # Real policy files are themed: each file leans on a few shapes.
        weights = [(e, m, kd, w * rng.choice([0.2, 1, 1, 3])) for e, m, kd, w in SHAPES]
        g = FileGen(rng, f)
        text = g.render(k, weights)
        with open(os.path.join(out_dir, "%03d-synthetic.toml" % f), "w") as fh:
            fh.write(text)
        written += k
    return n_files


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "out"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--per-file", type=int, default=50)
    ap.add_argument("sizes", nargs="*", type=int, default=[1000, 10000])
    a = ap.parse_args()
    for n in a.sizes:
        label = "%dk" % (n // 1000) if n % 1000 == 0 else str(n)
        d = os.path.join(a.out, "policies-%s" % label)
        files = generate(d, n, a.per_file, a.seed)
        print("%s: %d rules in %d files" % (d, n, files))


if __name__ == "__main__":
    main()
