"""Prints one line per verdict JSON: task, outcome, cases, and timing per shape."""
import json
import sys

verdicts = []
for path in sys.argv[1:]:
    with open(path) as f:
        verdicts.append(json.load(f))
width = max([len("task")] + [len(v["task"]) for v in verdicts])
print(f"{'task':{width}} {'outcome':12} {'cases':>8}  "
      "timing (candidate TFLOP/s, fraction of library)")
for v in verdicts:
    corr = v.get("correctness", {})
    cases = f"{corr.get('passed', '-')}/{corr.get('total', '-')}"
    timing = "; ".join(
        f"{'x'.join(str(d) for d in t['shape'].values())}: "
        + (f"{t['candidate_tflops']:.0f} TFLOP/s, {t['fraction_of_library']:.2f}x lib"
           if "error" not in t else t["error"])
        for t in v.get("timing", []))
    print(f"{v['task']:{width}} {v['outcome']:12} {cases:>8}  {timing or v['reason']}")
