"""Per verdict JSON in a folder (bench/library_choices_probe.sh): the worker's seconds, the set-up
phases the library's plan choices touch (the plan builds ahead, the choices made before the
candidate loads, the plans at each timed shape's set-up) and per timed shape how the library's
plan was chosen (`timed` or `preferred`), which one, and the median of the library's per-round
times (µs a call) in the cold rounds. Usage: python3 bench/summarize_library_choices.py DIR"""
import glob
import json
import os
import pathlib
import statistics
import sys

PHASES = ("setup.baseline_prebuild", "setup.library_choices", "timing.setup.library_plan")


def main() -> int:
    for f in sorted(glob.glob(os.path.join(sys.argv[1], "*_[0-9].json"))):
        v = json.loads(pathlib.Path(f).read_text())
        st = v.get("stage_seconds", {})
        phases = st.get("worker_phases", {})
        cut = ", ".join(f"{p.split('.')[-1]} {phases.get(p, 0):.2f}" for p in PHASES)
        print(f"{os.path.basename(f):44s} {v['outcome']:10s} worker {st.get('worker', 0):.2f} s "
              f"({cut}); choices reported {len(v.get('library_choices', []))}")
        for t in v.get("timing", []):
            plan = t.get("baseline_plan", {})
            print(f"    {t.get('label') or json.dumps(t.get('shape')):38s} "
                  f"{plan.get('choice', '?'):9s} chosen {plan.get('chosen', '?')} "
                  f"library {statistics.median(t.get('baseline_us') or [0]):9.1f} us, speedup "
                  f"{t['speedup']['median']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
