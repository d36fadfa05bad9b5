#!/usr/bin/env python3
"""The work ceilings of docs/evidence.md measured: per verdict and profiled call, the MMA
target's non-target FLOP share, integer multiply share and instructions per multiply-add, and
the TMA target's moved and other-read input shares, each beside the task's limit, with the
largest value per task and its margin to the limit (limit / value) last. A margin under 2 is
marked: the ceiling sits too close to an honest kernel, or the kernel is not honest.

Reads any verdicts judged with the evidence stage (e.g. bench/evidence_session.sh's `experts`
part); hidden shapes print as the verdict labels them.

Usage: bench/probes/work_ceilings_summary.py VERDICT.json...
"""
import json
import os
import sys

# (column, key of the call's target row, key of its limit, whether the limit is a floor)
COLUMNS = [
    ("flop", "nontarget_flop_share", "max_nontarget_flop_share", False),
    ("int", "integer_share", "max_nontarget_integer_share", False),
    ("instr/mac", "instructions_per_mac", "max_nontarget_instructions_per_mac", False),
    ("moved", "moved_input_share", "min_moved_input_share", True),
    ("other", "other_read_input_share", "max_other_read_input_share", False),
]


def cell(value):
    return "-" if value is None else f"{value:.4f}"


def main():
    worst = {}  # (task, column) -> (value, limit, is_floor)
    print("verdict  shape  target  " + "  ".join(c[0] for c in COLUMNS))
    for path in sys.argv[1:]:
        with open(path) as f:
            v = json.load(f)
        task = v.get("task", "?")
        for call in v.get("evidence", {}).get("calls", []):
            shape = call.get("label") or json.dumps(call.get("shape"), sort_keys=True)
            if call.get("hidden"):
                shape = "hidden"
            for t in call.get("targets", []):
                row = []
                for name, key, limit_key, is_floor in COLUMNS:
                    value, limit = t.get(key), t.get(limit_key)
                    row.append(cell(value))
                    if value is None or limit is None:
                        continue
                    k = (task, t["instruction"], name)
                    old = worst.get(k)
                    closer = old is None or (value < old[0] if is_floor else value > old[0])
                    if closer:
                        worst[k] = (value, limit, is_floor)
                if any(c != "-" for c in row):
                    print(f"{os.path.basename(path)}  {shape}  {t['instruction']}  "
                          + "  ".join(row))
    print("\nclosest to each limit (margin = limit / value, or value / limit for a floor):")
    for (task, instruction, name), (value, limit, is_floor) in sorted(worst.items()):
        margin = (value / limit if is_floor else limit / value) if value > 0 else float("inf")
        flag = "  <-- under 2" if margin < 2 else ""
        print(f"{task}  {instruction}  {name}: {value:.4f} against {limit:.4f}, "
              f"margin {margin:.1f}{flag}")


if __name__ == "__main__":
    main()
