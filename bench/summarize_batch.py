"""Compares the clean and the mixed batch of bench/isolation_batch.sh: verdict counts, and per
timed shape the mean speedup of the passing candidates in each batch (must agree within 2%)."""
import json
import pathlib
import statistics
import sys


def load(folder):
    out = {}
    for path in sorted(pathlib.Path(folder).glob("*.json")):
        try:
            out[path.stem] = json.loads(path.read_text())
        except ValueError:
            out[path.stem] = None
    return out


def speedups(verdicts):
    per_shape = {}
    for v in verdicts.values():
        if not v or v.get("outcome") not in ("passed", "unavailable"):
            continue
        for t in v.get("timing", []):
            if "speedup" in t:
                shape = "x".join(str(x) for x in t["shape"].values())
                per_shape.setdefault(shape, []).append(t["speedup"]["median"])
    return per_shape


clean, mixed = load(sys.argv[1]), load(sys.argv[2])
print(f"mixed batch: {len(mixed)} verdict files of 20 candidates")
outcomes = {}
for name, v in mixed.items():
    outcomes.setdefault(v["outcome"] if v else "no verdict", []).append(name)
for outcome, names in sorted(outcomes.items()):
    print(f"- {outcome}: {len(names)} ({', '.join(names)})")
print("\n| shape | clean mean speedup (n) | mixed mean speedup (n) | difference |")
print("|---|---|---|---|")
ok = len(mixed) == 20
cs, ms = speedups(clean), speedups(mixed)
for shape in sorted(cs):
    c, m = statistics.mean(cs[shape]), statistics.mean(ms.get(shape, [float("nan")]))
    diff = abs(m - c) / c
    ok = ok and diff <= 0.02
    print(f"| {shape} | {c:.4f} ({len(cs[shape])}) | {m:.4f} ({len(ms.get(shape, []))}) | "
          f"{100 * diff:.2f}% |")
print(f"\nacceptance (20 verdicts, speedups within 2%): {'MET' if ok else 'NOT MET'}")
