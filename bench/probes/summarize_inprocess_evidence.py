"""One line per verdict of `ptxbench eval` run with PTXBENCH_EVIDENCE=compare: the outcome,
the seconds of Nsight Compute's evidence run and of the in-process one beside it, whether the
in-process run's per-opcode and per-class counts equal ncu's and its hardware counters are within
0.1% of ncu's on every control and call (src/eval/inprocess_evidence.hpp), and whether the
judgement from it (availability, R1 and R2 per target, pass disagreement, failed call) is ncu's.
The differing kernels' first opcodes, classes and counters, and differing judgements, follow.
Usage: python3 summarize_inprocess_evidence.py VERDICT.json...
Exit 0 when every verdict holds both comparisons and all are the same.
"""

import json
import sys


def differing(comparison: dict) -> list:
    """Lines naming each control or call whose counts differ, with its first opcodes, classes
    and counters."""
    out = []
    groups = [(f"control {i + 1}", c) for i, c in enumerate(comparison.get("controls", []))]
    groups += [(f"call {i + 1}", c) for i, c in enumerate(comparison.get("calls", []))]
    for where, k in groups:
        if k.get("same"):
            continue
        items = [
            f"{op} ncu {v['ncu']} in-process {v['in_process']}"
            for op, v in list(k.get("opcodes", {}).items())[:3]
        ]
        items += [
            f"class {c} ncu {v['ncu']:.0f} in-process {v['in_process']:.0f}"
            for c, v in k.get("classes", {}).items()
        ]
        items += [
            f"{m} ncu {v['ncu']:.0f} in-process {v['in_process']:.0f}"
            for m, v in k.get("counters", {}).items()
        ]
        out.append(
            f"    {where} {k['kernels']}: {k['opcodes_differing']} opcodes differ; "
            + "; ".join(items)
        )
    return out


def main() -> int:
    ok = True
    print("file\toutcome\tncu_s\tin_process_s\tcomparison")
    for path in sys.argv[1:]:
        try:
            with open(path) as f:
                verdict = json.load(f)
        except (OSError, json.JSONDecodeError) as e:
            print(f"{path}\tunreadable\t-\t-\t{e}")
            ok = False
            continue
        evidence = verdict.get("evidence", {})
        ncu_s = verdict.get("stage_seconds", {}).get("evidence")
        own = evidence.get("in_process")
        name = path.rsplit("/", 1)[-1]
        if own is None:
            print(f"{name}\t{verdict.get('outcome')}\t{ncu_s}\t-\tnot run")
            ok = False
            continue
        comparison = own.get("comparison")
        if comparison is None:
            why = (
                own.get("unavailable") or own.get("candidate_fault") or own.get("cheat")
            )
            state = f"none ({why or 'ncu profile unavailable'})"
            ok = False
        else:
            state = "same" if comparison["same"] else "DIFFERENT"
            ok = ok and comparison["same"]
        judgement = own.get("judgement")
        if judgement is not None:
            state += ", judgement " + ("same" if judgement["same"] else "DIFFERENT")
            ok = ok and judgement["same"]
        ncu_text = f"{ncu_s:.2f}" if isinstance(ncu_s, (int, float)) else "-"
        print(
            f"{name}\t{verdict.get('outcome')}\t{ncu_text}\t"
            f"{own.get('seconds', 0):.2f}\t{state}"
        )
        if comparison is not None:
            for line in differing(comparison):
                print(line)
        if judgement is not None and not judgement["same"]:
            print(f"    ncu: {json.dumps(judgement['ncu'])}")
            print(f"    in-process: {json.dumps(judgement['in_process'])}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
