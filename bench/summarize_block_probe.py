"""The table of bench/timing_block_probe.sh: per expert and block size (verdicts named
EXPERT-bBLOCK_ROUND.json in a folder), the mean over rounds of the worker's seconds and of its
cold-round phases (all rounds, their counter ranges, their output checks), and per timed shape
the rounds taken, the calls a round and the cold speedup's median with its 95% interval's width,
round by round.
Usage: python3 bench/summarize_block_probe.py DIR"""
import collections
import glob
import json
import os
import pathlib
import re
import statistics
import sys

PHASES = ("timing.rounds", "timing.rounds.counters", "timing.rounds.checks",
          "timing.sustained.rounds")


def main() -> int:
    runs = collections.defaultdict(list)
    for f in sorted(glob.glob(os.path.join(sys.argv[1], "*-b*_[0-9].json"))):
        m = re.match(r"(.+)-b(\d+)_(\d)\.json$", os.path.basename(f))
        if m:
            runs[(m.group(1), int(m.group(2)))].append(json.loads(pathlib.Path(f).read_text()))
    for (expert, block), verdicts in sorted(runs.items()):
        stages = [v.get("stage_seconds", {}) for v in verdicts]
        worker = statistics.mean(s.get("worker", 0.0) for s in stages)
        phases = ", ".join(
            f"{p.removeprefix('timing.')} "
            f"{statistics.mean(s.get('worker_phases', {}).get(p, 0.0) for s in stages):.2f}"
            for p in PHASES)
        outcomes = "/".join(v["outcome"] for v in verdicts)
        print(f"{expert} block {block}: {len(verdicts)} run(s) {outcomes}; worker {worker:.2f} s "
              f"({phases})")
        for v in verdicts:
            shapes = []
            for t in v.get("timing", []):
                s = t.get("speedup", {})
                width = s.get("high", 0.0) - s.get("low", 0.0)
                shapes.append(f"{t.get('samples', '?')}x{t.get('calls_per_sample', '?')} "
                              f"{s.get('median', 0.0):.3f}±{width / 2:.3f}")
            print("    " + " | ".join(shapes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
