"""One line per verdict JSON named NAME_R.json (R a round digit) in a folder: outcome, cold and
sustained speedup medians per timed shape, wall seconds (from NAME_R.wall when the caller wrote
one) and the evidence and worker stages' seconds. The summary the H200 acceptance calls print.
Usage: python3 bench/speedup_lines.py DIR"""
import glob
import json
import os
import pathlib
import sys


def sustained(t: dict) -> str:
    s = t.get("sustained")
    return f"{s['speedup']['median']:.3f}" if isinstance(s, dict) and "speedup" in s else "-"


def main() -> int:
    for f in sorted(glob.glob(os.path.join(sys.argv[1], "*_[0-9].json"))):
        v = json.loads(pathlib.Path(f).read_text())
        timing = v.get("timing", [])
        cold = " / ".join(f"{t['speedup']['median']:.3f}" for t in timing)
        sus = " / ".join(sustained(t) for t in timing)
        wall_file = pathlib.Path(f[:-5] + ".wall")
        wall = wall_file.read_text().strip() if wall_file.exists() else "?"
        st = v.get("stage_seconds", {})
        print(f"{os.path.basename(f):40s} {v['outcome']:10s} cold {cold} | sustained {sus} | "
              f"wall {wall} s, evidence {st.get('evidence', 0):.1f}, "
              f"worker {st.get('worker', 0):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
