"""Table of bench/judging_speed.sh OUT: per file the median wall time of `ptxbench eval` (compile
cached) and of each stage and worker phase over its runs, the outcomes, and the cold and sustained
speedups of every run. Usage: summarize_judging_speed.py OUT_DIR"""
import csv
import json
import pathlib
import statistics
import sys

folder = pathlib.Path(sys.argv[1])
runs = {}
with open(folder / "runs.tsv") as table:
    for row in csv.DictReader(table, delimiter="\t"):
        runs.setdefault(row["label"], []).append(row)

PHASES = ["setup", "setup.baseline_prebuild", "setup.counters", "correctness",
          "correctness.references", "timing", "timing.setup", "timing.rounds",
          "timing.rounds.checks", "timing.rounds.counters", "timing.rounds.counters.push",
          "timing.rounds.device.blocks", "timing.sustained.setup", "timing.sustained.rounds",
          "timing.sustained.checks", "timing.sustained.counters.push", "counters"]


def med(values):
    values = [v for v in values if v is not None]
    return f"{statistics.median(values):.1f}" if values else "-"


print("| file | outcomes | wall s | compile | evidence | of it controls | worker | "
      + " | ".join(PHASES) + " |")
print("|---" * (7 + len(PHASES)) + "|")
speedups = []
for label, rows in runs.items():
    verdicts = []
    for row in rows:
        try:
            verdicts.append(json.loads((folder / f"{label}_{row['run']}.json").read_text()))
        except (OSError, ValueError):
            pass
    stages = [v.get("stage_seconds", {}) for v in verdicts]
    phases = [s.get("worker_phases", {}) for s in stages]
    outcomes = ",".join(sorted({r["outcome"] for r in rows}))
    cells = [med([float(r["wall_s"]) for r in rows])]
    cells += [med([s.get(k) for s in stages]) for k in ("compile", "evidence")]
    cells.append(med([v.get("evidence", {}).get("worker_phases", {}).get("setup.evidence_controls")
                      for v in verdicts]))
    cells.append(med([s.get("worker") for s in stages]))
    cells += [med([p.get(k) for p in phases]) for k in PHASES]
    print(f"| {label} | {outcomes} | " + " | ".join(cells) + " |")
    for run, v in enumerate(verdicts, 1):
        cold = [t["speedup"]["median"] for t in v.get("timing", []) if "speedup" in t]
        sus = [t.get("sustained", {}).get("speedup", {}).get("median")
               for t in v.get("timing", []) if "speedup" in t]
        speedups.append((f"{label} ({run})", cold, sus))
print("\n| file (run) | cold speedup per timed shape | sustained |\n|---|---|---|")
for label, cold, sus in speedups:
    print(f"| {label} | {' / '.join(f'{c:.3f}' for c in cold)} | "
          f"{' / '.join('-' if s is None else f'{s:.3f}' for s in sus)} |")
