"""The dev harness's whole-backward times per form and case from a call's timing.txt (lines
`FORM.tROUND.CASE total US us ...`, CASE the case's shape without spaces, e.g.
B4H16S4096D128causal, as bwd_dev_call.sh names them since 2026-12-07d; before, the --only filter,
where a filter that matched two shapes gave two lines, here CASE and CASE#2), and each form's
speedup over the first form named (its time over the form's: the median over the rounds of the
per-round ratios).
Usage: timing_table.py TIMING FORM [FORM...]"""
import collections
import re
import statistics
import sys


def read(path):
    times = collections.defaultdict(dict)  # (form, case) -> {round: us}
    cases = []  # in the order first seen
    seen = collections.Counter()
    for line in open(path):
        m = re.match(r"(\w+)\.t(\d+)\.(\S+) total ([\d.]+) us", line)
        if not m:
            continue
        form, rnd, case, us = m.group(1), int(m.group(2)), m.group(3), float(m.group(4))
        seen[(form, rnd, case)] += 1
        if seen[(form, rnd, case)] > 1:  # an older timing.txt: the filter's n-th shape
            case += "#%d" % seen[(form, rnd, case)]
        if case not in cases:
            cases.append(case)
        times[(form, case)][rnd] = us
    return times, cases


def main():
    path, forms = sys.argv[1], sys.argv[2:]
    times, cases = read(path)
    rows = [["us"] + cases]
    for f in forms:
        rows.append([f] + ["/".join("%.0f" % v for _, v in sorted(times[(f, c)].items()))
                           for c in cases])
    base = forms[0]
    rows.append(["%s / form:" % base] + [""] * len(cases))
    for f in forms[1:]:
        cells = []
        for c in cases:
            b, x = times[(base, c)], times[(f, c)]
            ratios = [b[r] / x[r] for r in x if r in b and x[r] > 0]
            cells.append("%.3f" % statistics.median(ratios) if ratios else "-")
        rows.append([f] + cells)
    widths = [max(len(r[i]) for r in rows) + 2 for i in range(len(rows[0]))]
    for r in rows:
        print(r[0].ljust(widths[0]) + "".join(c.rjust(w) for c, w in zip(r[1:], widths[1:])))


if __name__ == "__main__":
    main()
