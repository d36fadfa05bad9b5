"""Prints a Markdown table of the timing rows of every verdict JSON in a folder."""
import json
import pathlib
import sys

folder = pathlib.Path(sys.argv[1])
print("| verdict | shape | candidate us | library us | cand TFLOP/s | lib TFLOP/s | "
      "fraction of library | speedup [95% CI] | SM MHz before->after |")
print("|---|---|---|---|---|---|---|---|---|")
for path in sorted(folder.glob("*.json")):
    try:
        v = json.loads(path.read_text())
    except (OSError, ValueError):
        continue
    for t in v.get("timing", []):
        shape = "x".join(str(x) for x in t["shape"].values())
        if "error" in t:
            print(f"| {path.stem} | {shape} | error: {t['error']} |||||||")
            continue
        cb, ca = t.get("clocks_before", {}), t.get("clocks_after", {})
        s = t["speedup"]
        print(f"| {path.stem} | {shape} | {t['candidate']['median']:.1f} | "
              f"{t['baseline']['median']:.1f} | {t['candidate_tflops']:.0f} | "
              f"{t['baseline_tflops']:.0f} | {t['fraction_of_library']:.3f} | "
              f"{s['median']:.3f} [{s['low']:.3f}, {s['high']:.3f}] | "
              f"{cb.get('sm_mhz', '?')}->{ca.get('sm_mhz', '?')} |")
