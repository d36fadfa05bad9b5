"""Prints one line per verdict JSON: task, outcome, cases, and timing per shape."""
import json
import sys

print(f"{'task':28} {'outcome':12} {'cases':>8}  timing (candidate TFLOP/s, fraction of library)")
for path in sys.argv[1:]:
    with open(path) as f:
        v = json.load(f)
    corr = v.get("correctness", {})
    cases = f"{corr.get('passed', '-')}/{corr.get('total', '-')}"
    timing = "; ".join(
        f"{'x'.join(str(d) for d in t['shape'].values())}: "
        + (f"{t['candidate_tflops']:.0f} TFLOP/s, {t['fraction_of_library']:.2f}x lib"
           if "error" not in t else t["error"])
        for t in v.get("timing", []))
    print(f"{v['task']:28} {v['outcome']:12} {cases:>8}  {timing or v['reason']}")
