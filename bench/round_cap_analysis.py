#!/usr/bin/env python3
"""How far the cold speedup moves when a shape's rounds are cut to the first N.

Reads verdict JSON files (ptxbench eval --json-out) and, for every timed shape with more than N
rounds, compares the median of the per-round speedups (library / candidate, paired by round) over
the first N rounds with the verdict's speedup over all of them. Prints one row per verdict and
the largest deviation per N. Used to choose PTXBENCH_TIMING_MAX_SAMPLES (docs/timing.md).

Usage: bench/round_cap_analysis.py VERDICT.json... [--caps 50,100,200]
"""
import argparse
import json
import statistics


def shapes_of(verdict):
    timing = verdict.get("timing") or []
    return timing["shapes"] if isinstance(timing, dict) else timing


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("verdicts", nargs="+")
    parser.add_argument("--caps", default="50,100,200")
    args = parser.parse_args()
    caps = [int(c) for c in args.caps.split(",")]
    worst = {cap: (0.0, "") for cap in caps}
    for path in args.verdicts:
        with open(path) as f:
            verdict = json.load(f)
        cells = []
        for shape in shapes_of(verdict):
            cand, base = shape.get("candidate_us"), shape.get("baseline_us")
            if not isinstance(cand, list) or not cand or not shape.get("speedup"):
                continue
            full = shape["speedup"]["median"]
            ratios = [b / c for b, c in zip(base, cand)]
            cell = [f"{full:.3f} ({len(ratios)} rounds)"]
            for cap in caps:
                if len(ratios) <= cap:
                    cell.append("-")
                    continue
                moved = 100.0 * (statistics.median(ratios[:cap]) / full - 1.0)
                cell.append(f"{moved:+.2f}%")
                if abs(moved) > abs(worst[cap][0]):
                    worst[cap] = (moved, f"{path} {shape.get('label', '')}")
            cells.append(" ".join(cell))
        print(f"{path}: " + " | ".join(cells))
    for cap in caps:
        print(f"first {cap} rounds: largest move {worst[cap][0]:+.2f}% ({worst[cap][1]})")


if __name__ == "__main__":
    main()
