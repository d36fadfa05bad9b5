"""Prints a Markdown table of the runtime evidence in every verdict JSON of the given folders:
per verdict and target the levels, the lowest executed count / FLOP share over the profiled
calls, and the evidence stage's wall time. Reads verdict schema 3 (floor {kind, value},
measured_min_flop_share) and schema 2 (a bare floor number, min_flop_share)."""
import json
import pathlib
import sys

print("| verdict | outcome | target | S1 | R1 | R2 | min executed | floor | min FLOP share | "
      "evidence s | total s |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for folder in sys.argv[1:]:
    for path in sorted(pathlib.Path(folder).glob("*.json")):
        try:
            v = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if "targets" not in v:
            continue
        stages = v.get("stage_seconds", {})
        total = sum(x for x in stages.values() if isinstance(x, (int, float)))
        ev = stages.get("evidence")
        for t in v["targets"]:
            share = t.get("measured_min_flop_share", t.get("min_flop_share"))
            floor = t.get("floor", "-")
            if isinstance(floor, dict):
                floor = floor["value"]
            print(f"| {path.stem} | {v['outcome']} | {t['instruction']} | {t['S1']} | {t['R1']} | "
                  f"{t['R2']} | {t.get('min_executed', '-')} | {floor} | "
                  f"{'-' if share is None else f'{share:.4f}'} | "
                  f"{'-' if ev is None else f'{ev:.1f}'} | {total:.1f} |")
