"""Does a call's time depend on its place in the round? For every verdict JSON (or .json.xz or
.json.gz) given, prints per timed shape the candidate's and the library's median in rounds where
each ran first and where it ran second (even rounds: candidate first; docs/timing.md). A ratio far
from 1.00 means host work of that side was timed when the stream had drained before it (the flaw
the launch gate closed: cuDNN's backward at B=2 H=8 S=1000 D=128 ran 64 us second and 76-106 us
first at 968781b).
Usage: python3 bench/summarize_round_order.py VERDICT.json[.xz|.gz]..."""
import gzip
import json
import lzma
import statistics
import sys


def load(path):
    opener = gzip.open if path.endswith(".gz") else lzma.open if path.endswith(".xz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def medians(samples):
    """(median over even rounds, median over odd rounds): a side has one place in all even rounds
    (the candidate first, the library second) and the other place in all odd ones."""
    return statistics.median(samples[0::2]), statistics.median(samples[1::2])


print("| verdict | shape | cand even / odd us | ratio | lib even / odd us | ratio | gate expired |")
print("|---|---|---|---|---|---|---|")
for path in sys.argv[1:]:
    try:
        verdict = load(path)
    except (OSError, ValueError) as e:
        print(f"| {path} | unreadable: {e} ||||||")
        continue
    for t in verdict.get("timing", []):
        cand, base = t.get("candidate_us") or [], t.get("baseline_us") or []
        if len(cand) < 2 or len(base) < 2:
            continue
        ce, co = medians(cand)
        be, bo = medians(base)
        print(f"| {path.rsplit('/', 1)[-1]} | {t.get('label', '?')} | {ce:.1f} / {co:.1f} | "
              f"{co / ce:.3f} | {be:.1f} / {bo:.1f} | {bo / be:.3f} | {t.get('gate_expired', 0)} |")
