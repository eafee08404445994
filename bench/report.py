#!/usr/bin/env python3
"""The table of bench/run.sh: median, p99, σ (from hyperfine's --export-json
`times`, shell start-up already subtracted by hyperfine), peak RSS (GNU time), and
each as a ratio to the floor. Prints it and writes bench/results.md."""

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess


# Where bench/results.md's callgrind section starts (kept by a new report).
CALLGRIND_HEADING = "## Instructions per process (callgrind)"

def pct(sorted_xs, p):
    """Nearest-rank percentile (with n < 100, p99 is the maximum)."""
    k = max(1, -(-len(sorted_xs) * p // 100))
    return sorted_xs[int(k) - 1]


def answer_of(stdout, stderr, rc):
    s = stdout.strip()
    if rc != 0:
        return "exit %d" % rc
    if not s:
        a = "none"
    else:
        try:
            o = json.loads(s)
        except ValueError:
            return "not JSON"
        h = o.get("hookSpecificOutput") or {}
        a = (h.get("permissionDecision") or o.get("decision")
             or ("context" if h.get("additionalContext") else None) or "output")
    if stderr.strip():
        a += " +stderr"
    return a


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def version(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True).stdout.strip().splitlines()[0]
    except Exception:
        return "unknown"


def ratio(x, floor):
    """x as a multiple of the floor; "-" when the floor rounds to 0 (hyperfine
    subtracts the shell's start-up, which on a loaded machine can exceed the
    floor's own time)."""
    return "%.1f" % (x / floor) if floor > 0 else "-"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tsv", required=True)
    ap.add_argument("--json-dir", required=True)
    ap.add_argument("--answers", required=True)
    ap.add_argument("--commit", default="unknown")
    ap.add_argument("--hookrules", default="")
    ap.add_argument("--seconds", default="?")
    ap.add_argument("--rounds", default="?")
    ap.add_argument("--load-start", default="?")
    ap.add_argument("--results", required=True)
    a = ap.parse_args()

    # Pool every round's times (and mean CPU, weighted by runs) per case.
    times, cpu = {}, {}
    for f in sorted(os.listdir(a.json_dir)):
        if not f.endswith(".json"):
            continue
        for d in json.load(open(os.path.join(a.json_dir, f)))["results"]:
            times.setdefault(d["command"], []).extend(d["times"])
            cpu.setdefault(d["command"], []).append(((d["user"] + d["system"]), len(d["times"])))
    rows = []
    for line in open(a.tsv):
        cid, label, rc, rss_kb, in_bytes, cmd = line.rstrip("\n").split("\t")
        if cid not in times:
            continue  # its group was not timed (BENCH_GROUPS)
        ts = sorted(times[cid])
        cpu_ms = sum(c * n for c, n in cpu[cid]) / sum(n for _, n in cpu[cid]) * 1e3
        out = open(os.path.join(a.answers, cid + ".stdout"), errors="replace").read()
        err = open(os.path.join(a.answers, cid + ".stderr"), errors="replace").read()
        rows.append(dict(id=cid, label=label, n=len(ts), med=statistics.median(ts) * 1e3,
                         p99=pct(ts, 99) * 1e3,
                         sd=(statistics.stdev(ts) * 1e3 if len(ts) > 1 else 0.0), cpu=cpu_ms,
                         rss=int(rss_kb) / 1024, in_mb=int(in_bytes) / 1e6,
                         answer=answer_of(out, err, int(rc)), stderr=err.strip(), cmd=cmd))
    # Group A's floor; group E has its own, for a run of that group alone.
    floor = next((r for r in rows if r["id"] == "floor"), None) or next(
        r for r in rows if r["id"] == "floor-e")

    head = ("| case | n | median ms | ×floor | p99 ms | ×floor | σ ms | CPU ms | ×floor | peak RSS MB | ×floor | answer |\n"
            "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|")
    lines = [head]
    for r in rows:
        lines.append("| %s | %d | %.2f | %s | %.2f | %s | %.2f | %.2f | %s | %.1f | %s | %s |" % (
            r["label"], r["n"], r["med"], ratio(r["med"], floor["med"]), r["p99"],
            ratio(r["p99"], floor["p99"]), r["sd"], r["cpu"], ratio(r["cpu"], floor["cpu"]),
            r["rss"], ratio(r["rss"], floor["rss"]), r["answer"]))
    table = "\n".join(lines)

    notes = []
    big = next((r for r in rows if r["id"] == "post-10mb"), None)
    if big:
        limit = 3 * big["in_mb"] * 1e6 / 1024 / 1024 + 20
        notes.append("10 MB event: input %.1f MiB, peak RSS %.1f MiB, target < 3x input + 20 MiB = %.1f MiB: %s." % (
            big["in_mb"] * 1e6 / 1024 / 1024, big["rss"], limit, "met" if big["rss"] < limit else "NOT met"))
    for r in rows:
        if r["stderr"]:
            first = r["stderr"].splitlines()
            notes.append("`%s` wrote to stderr (%d lines), first: `%s`" % (r["id"], len(first), first[0][:300]))
        if r["answer"].startswith(("exit", "not JSON")):
            notes.append("`%s` answered %s" % (r["id"], r["answer"]))

    try:
        load = open("/proc/loadavg").read().split()[:3]
    except OSError:
        load = ["?"]
    meta = [
        "- date: %s" % datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "- hookrules commit: %s" % a.commit,
        "- machine: %s, nproc %d; load average (1/5/15 min) at the start %s, at the end %s" % (
            cpu_model(), os.cpu_count() or 0, a.load_start, " ".join(load)),
        "- tools: %s; %s; %s" % (version(["hyperfine", "--version"]), version(["rustc", "--version"]),
                                  version(["jq", "--version"])),
        "- bench/run.sh took %s s" % a.seconds,
    ]
    method = [
        "One process per event, stdin redirected from a file, `CLAUDE_PROJECT_DIR` an empty temp dir.",
        "Times: hyperfine (`sh -c 'cmd < file'`, shell start-up subtracted), %s rounds pooled; median and" % a.rounds,
        "p99 (nearest rank; with n < 100, p99 is the slowest run) and σ from `--export-json` times; CPU:",
        "hyperfine's mean user + system time (less sensitive to other load than wall-clock). Peak RSS: the largest",
        "`/usr/bin/time -f %M` of 5 runs (for the bash + jq hook: its biggest single process, not the sum).",
        "Ratios are to the floor row (the small event). `answer`: what the case printed (decision,",
        "`context`, `none` = empty output; `+stderr` = it also wrote to stderr, see notes).",
        "Wall-clock on a shared 2-core machine: σ shows the noise; compare medians.",
    ]
    md = ["# hookrules benchmark results", "", "Produced by `bench/run.sh`.", ""] + meta + ["", table, ""] \
        + method + ([""] + ["Notes:", ""] + ["- " + n for n in notes] if notes else []) + [""]
    # The instruction counts (`bench/callgrind.sh`, measured by hand) are kept
    # as they were: everything from their heading on.
    kept = ""
    try:
        before = open(a.results).read()
        at = before.find(CALLGRIND_HEADING)
        if at >= 0:
            kept = "\n" + before[at:]
    except OSError:
        pass
    with open(a.results, "w") as fh:
        fh.write("\n".join(md) + kept)

    print()
    print(table)
    print()
    for m in meta:
        print(m)
    for n in notes:
        print("- " + n)
    print("(written to %s)" % a.results)


if __name__ == "__main__":
    main()
