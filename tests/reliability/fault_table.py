#!/usr/bin/env python3
"""Print (or write into README.md) the README's fault table from the timings
`tests/process/reliability.rs` wrote.

    cargo build --release
    HOOKRULES_BIN=$PWD/target/release/hookrules HOOKRULES_FAULT_TABLE=/tmp/ft cargo test --test process reliability::
    python3 tests/reliability/fault_table.py /tmp/ft [--write README.md]

One row per case with a `fault`, data files in name order, cases in file order;
the times are the longest time to an answer (stdout closed) and to exit over
every run of that case (`each` values included). With --write, the table
replaces what lies between the README's fault-table markers;
`readme_fault_table_is_the_cases` in tests/process/reliability.rs fails when the table
and the cases differ.
"""
import pathlib
import sys

rows = {}
order = []
for tsv in sorted(pathlib.Path(sys.argv[1]).glob("*.tsv")):
    for line in tsv.read_text().splitlines():
        name, fault, sees, issue, answered, exited = line.split("\t")
        base = name.split("[")[0]
        key = (tsv.stem, base)
        if key not in rows:
            rows[key] = {"fault": fault, "sees": sees, "issue": issue, "file": tsv.stem,
                         "answered": 0, "exited": 0}
            order.append(key)
        r = rows[key]
        r["answered"] = max(r["answered"], int(answered))
        r["exited"] = max(r["exited"], int(exited))

out = ["| fault or hostile input | what a user sees | case (`tests/reliability/`) | answer | exit |",
       "|---|---|---|--:|--:|"]
for key in order:
    r = rows[key]
    if not r["fault"]:
        continue
    issue = f" (#{r['issue']})" if r["issue"] else ""
    out.append(f"| {r['fault']}{issue} | {r['sees']} | `{r['file']}.toml`: `{key[1]}` "
               f"| {r['answered']} ms | {r['exited']} ms |")
table = "\n".join(out)

if len(sys.argv) > 3 and sys.argv[2] == "--write":
    readme = pathlib.Path(sys.argv[3])
    text = readme.read_text()
    start, end = "<!-- fault-table:start -->", "<!-- fault-table:end -->"
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    readme.write_text(f"{head}{start}\n{table}\n{end}{tail}")
else:
    print(table)
