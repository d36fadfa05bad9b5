"""The dev harness's whole-backward times per form and shape from a call's timing.txt
(lines `FORM.tROUND.CASE total US us ...`; the S4096D128 case gives two lines, non-causal then
causal), and each form's speedup over the first form named (median over the rounds of the
per-round ratios). Usage: timing_table.py TIMING FORM [FORM...]"""
import collections
import re
import statistics
import sys

CASES = ("S4096", "S4096causal", "S16384", "H8S1000D128full", "H64S512D128")


def read(path):
    times = collections.defaultdict(dict)  # (form, case) -> {round: us}
    seen = collections.Counter()
    for line in open(path):
        m = re.match(r"(\w+)\.t(\d+)\.(\S+) total ([\d.]+) us", line)
        if not m:
            continue
        form, rnd, case, us = m.group(1), int(m.group(2)), m.group(3), float(m.group(4))
        if case == "S4096D128":
            seen[(form, rnd)] += 1
            case = "S4096" if seen[(form, rnd)] == 1 else "S4096causal"
        times[(form, case)][rnd] = us
    return times


def main():
    path, forms = sys.argv[1], sys.argv[2:]
    times = read(path)
    print("%-10s" % "us" + "".join("%20s" % c for c in CASES))
    for f in forms:
        print("%-10s" % f + "".join(
            "%20s" % "/".join("%.0f" % v for _, v in sorted(times[(f, c)].items())) for c in CASES))
    base = forms[0]
    print("%s's time over each form's, median of the rounds:" % base)
    for f in forms[1:]:
        cells = []
        for c in CASES:
            b, x = times[(base, c)], times[(f, c)]
            ratios = [b[r] / x[r] for r in x if r in b and x[r] > 0]
            cells.append("%.3f" % statistics.median(ratios) if ratios else "-")
        print("%-10s" % f + "".join("%20s" % c for c in cells))


if __name__ == "__main__":
    main()
