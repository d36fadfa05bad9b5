"""What the timed rounds' checks cost above the library's own GPU time, per verdict: the seconds of
`timing.rounds.checks` and `timing.sustained.checks` (docs/result-schema.md), the library's median
call times the calls checked (each check runs the library once on the candidate's inputs,
src/worker/round_check.cpp), and the rest per checked call. Usage: summarize_check_cost.py
VERDICT.json...   (e.g. the JSONs of a callA.sh evals.tar.gz)"""
import json
import pathlib
import sys


def regime_cost(records, checks_seconds):
    """(calls checked, library seconds, overhead ms a call) of one regime's records."""
    calls = sum(len(r["baseline_us"]) * r["calls"] for r in records)
    library = sum(r["baseline"]["median"] * len(r["baseline_us"]) * r["calls"] for r in records) / 1e6
    overhead_ms = 1e3 * (checks_seconds - library) / calls if calls else float("nan")
    return calls, library, overhead_ms


print("| verdict | cold checks s | calls | library s | ms a call | sustained checks s | calls | "
      "library s | ms a call |")
print("|---" * 9 + "|")
for name in sys.argv[1:]:
    verdict = json.loads(pathlib.Path(name).read_text())
    phases = verdict.get("stage_seconds", {}).get("worker_phases", {})
    timed = [t for t in verdict.get("timing", []) if t.get("baseline_us")]
    cold = [dict(t, calls=t["calls_per_sample"]) for t in timed]
    sustained = [t["sustained"] for t in timed if t.get("sustained", {}).get("baseline_us")]
    cells = [pathlib.Path(name).stem]
    for records, phase in ((cold, "timing.rounds.checks"), (sustained, "timing.sustained.checks")):
        seconds = phases.get(phase)
        if seconds is None or not records:
            cells += ["-"] * 4
            continue
        calls, library, overhead = regime_cost(records, seconds)
        cells += [f"{seconds:.2f}", str(calls), f"{library:.2f}", f"{overhead:.2f}"]
    print("| " + " | ".join(cells) + " |")
