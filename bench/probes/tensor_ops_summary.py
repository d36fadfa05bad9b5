#!/usr/bin/env python3
"""Calibrates the H200's tensor-path op counters against the evidence run's exact MMA FLOPs.

Reads verdicts judged with the `tensor_ops` variant of bench/probes/ncu_cost_probe.sh (the
evidence metrics plus sm__ops_path_tensor_*) and prints, per profiled kernel that ran MMA
opcodes (and for the evidence control, whose FLOPs are known: one bf16 m64n8k16 and one e4m3
m64n8k32 wgmma per warpgroup), the MMA FLOPs from the per-opcode counts beside each counter's
value and their ratio. A counter usable as MMA evidence reads the same ratio on every kernel and
shape (e.g. 0.5: one op per multiply-add). The TMA unit's counters (instructions, requests, bytes
loaded and stored) are printed beside them, without a ratio.

Usage: bench/probes/tensor_ops_summary.py VERDICT.json...
"""
import json
import os
import sys

PREFIXES = ("sm__ops_path_tensor", "sm__inst_executed_pipe_tma", "l1tex__tmain", "l1tex__m_")
CONTROL_FLOPS = {"bf16": 16384, "fp8": 32768}  # docs/evidence.md, the evidence control


def counters(kernel):
    return {k: v for k, v in kernel.get("metrics", {}).items() if k.startswith(PREFIXES)}


def ratios(flops, values):
    return "; ".join(f"{k.removeprefix('sm__ops_path_tensor_')} {v:.4g} ({v / flops:.4f})"
                     if flops and k.startswith(PREFIXES[0]) else
                     f"{k.removeprefix('sm__ops_path_tensor_')} {v:.4g}"
                     for k, v in sorted(values.items()))


def main():
    for path in sys.argv[1:]:
        with open(path) as f:
            v = json.load(f)
        e = v.get("evidence", {})
        name = os.path.basename(path)
        positive = e.get("controls", {}).get("positive", {})
        if counters(positive):
            print(f"{name} | control | bf16 {CONTROL_FLOPS['bf16']} + fp8 {CONTROL_FLOPS['fp8']} "
                  f"FLOPs | {ratios(0, counters(positive))}")
        for call in e.get("calls", []):
            flops_by_kernel = {}
            for t in call.get("targets", []):
                for k in t.get("kernels", []):
                    if k.get("mma_flops"):
                        flops_by_kernel[k["kernel"]] = k["mma_flops"]
            for k in call.get("kernels", []):
                flops = flops_by_kernel.get(k.get("name"), 0)
                values = counters(k)
                if values and (flops or any(values.values())):
                    print(f"{name} | {call.get('shape')} | {k.get('name', '')[:40]} | "
                          f"{flops:.4g} FLOPs | {ratios(flops, values)}")


if __name__ == "__main__":
    main()
