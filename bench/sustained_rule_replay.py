#!/usr/bin/env python3
"""Replays the sustained regime's round rule (src/timing/stats.cpp, another_round) offline on the
raw per-round samples of verdicts, to compare thresholds and estimators without a GPU.

For each timed shape of each verdict: the rounds the rule would have taken out of those recorded
(it can only stop earlier than the run did, never go on), the median of the order-balanced pair
ratios there, the per-round median over the same rounds (the estimator before 2026-12-04) and the
ratio of all recorded rounds' sums (the most stable reference when many rounds were recorded).

Usage: bench/sustained_rule_replay.py [--permille 20] [--max-rounds 10] [--min-ms 500]
                                      [--cap-ms 1500] VERDICT.json...
"""
import argparse
import json
import math
import os
import statistics

MIN_ROUNDS = 4  # kSustainedMinRounds
NOISY_ROUNDS = 40  # kSustainedNoisyRounds
MIN_PAIRS = 3  # kMinBalancedPairs


def median_ci(values):
    """timing/stats.cpp median_ci: median and order-statistic 95% interval."""
    x = sorted(values)
    n = len(x)
    median = x[n // 2] if n % 2 else 0.5 * (x[n // 2 - 1] + x[n // 2])
    half = 0.98 * math.sqrt(n)
    lo = max(0, math.floor(n / 2 - half))
    hi = min(n - 1, math.ceil(n / 2 + half) - 1)
    return median, x[lo], x[max(hi, lo)]


def pair_ratios(lib, cand, rounds):
    return [(lib[k] + lib[k + 1]) / (cand[k] + cand[k + 1]) for k in range(0, rounds - 1, 2)]


def uncertain(lib, cand, rounds, halfwidth):
    ratios = pair_ratios(lib, cand, rounds)
    if len(ratios) < MIN_PAIRS:
        return True
    m, lo, hi = median_ci(ratios)
    return m - lo > halfwidth * m or hi - m > halfwidth * m


def replay(cand, lib, calls, args):
    """Rounds another_round takes on these samples (per-call us), and the timed us then."""
    halfwidth = args.permille / 1000.0
    max_rounds = args.max_rounds
    min_rounds = min(MIN_ROUNDS, max_rounds) if args.min_ms > 0 else max_rounds
    done, timed = 0, 0.0
    while done < len(cand):
        pair_open = done % 2 == 1
        if pair_open or done < min_rounds or (done < max_rounds and timed < args.min_ms * 1e3):
            more = True
        else:
            more = (halfwidth > 0 and done < max(max_rounds, NOISY_ROUNDS)
                    and timed < args.cap_ms * 1e3 and uncertain(lib, cand, done, halfwidth))
        if not more:
            break
        timed += calls * (cand[done] + lib[done])
        done += 1
    return done, timed


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--permille", type=float, default=20)
    p.add_argument("--max-rounds", type=int, default=10)
    p.add_argument("--min-ms", type=float, default=500)
    p.add_argument("--cap-ms", type=float, default=1500)
    p.add_argument("verdicts", nargs="+")
    args = p.parse_args()
    print("| verdict | shape | recorded | replayed | timed ms | pair median | per-round median "
          "| sums of all |")
    print("|---|---|---|---|---|---|---|---|")
    for path in args.verdicts:
        with open(path) as f:
            v = json.load(f)
        for t in v.get("timing", []):
            s = t.get("sustained") or {}
            cand, lib = s.get("candidate_us"), s.get("baseline_us")
            if not cand or not lib:
                continue
            rounds, timed = replay(cand, lib, s.get("calls", 20), args)
            even = rounds - rounds % 2
            pm = median_ci(pair_ratios(lib, cand, even))[0] if even >= 2 else float("nan")
            per_round = statistics.median(b / c for b, c in zip(lib[:rounds], cand[:rounds]))
            n = len(cand) - len(cand) % 2
            sums = sum(lib[:n]) / sum(cand[:n])
            print(f"| {os.path.basename(path)} | {t.get('label', '')[:32]} | {len(cand)} | "
                  f"{rounds} | {timed / 1e3:.0f} | {pm:.3f} | {per_round:.3f} | {sums:.3f} |")


if __name__ == "__main__":
    main()
