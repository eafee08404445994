#!/usr/bin/env python3
"""Print the README's fault table from the timings `tests/reliability.rs` wrote.

    HOOKRULES_FAULT_TABLE=/tmp/faults cargo test --release --test reliability
    python3 tests/reliability/fault_table.py /tmp/faults

One row per case with a `fault`; the time is the longest time to an answer (stdout
closed) and to exit over every run of that case (`each` values included), and over
the cases that share its name prefix up to `[`.
"""
import pathlib
import sys

rows = {}
order = []
for tsv in sorted(pathlib.Path(sys.argv[1]).glob("*.tsv")):
    for line in tsv.read_text().splitlines():
        name, fault, sees, issue, answered, exited = line.split("\t")
        base = name.split("[")[0]
        if base not in rows:
            rows[base] = {"fault": fault, "sees": sees, "issue": issue, "file": tsv.stem,
                          "answered": 0, "exited": 0}
            order.append(base)
        r = rows[base]
        r["answered"] = max(r["answered"], int(answered))
        r["exited"] = max(r["exited"], int(exited))

print("| fault or hostile input | what a user sees | case (`tests/reliability/`) | answer | exit |")
print("|---|---|---|--:|--:|")
for base in order:
    r = rows[base]
    if not r["fault"]:
        continue
    issue = f" (#{r['issue']})" if r["issue"] else ""
    print(f"| {r['fault']}{issue} | {r['sees']} | `{r['file']}.toml`: `{base}` "
          f"| {r['answered']} ms | {r['exited']} ms |")
