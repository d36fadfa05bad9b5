#!/usr/bin/env python3
"""Writes (stdout) an attempt export (docs/result-schema.md, "Attempt export", schema 1) for
`ptxbench run --model replay`: a scripted model that answers task sm90/gemm/bf16-wgmma-tma with
the expert solution carrying an edge-tile bug in turn 1 (incorrect on hidden shapes) and with
the expert solution itself in turn 2. The per-turn numbers of the report must show the fix."""
import json
import pathlib
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parents[2]
task = "sm90/gemm/bf16-wgmma-tma"
expert = (root / "kernels/reference/sm90_gemm_bf16_wgmma_tma.cu").read_text()
buggy = subprocess.run([str(root / "tests/e2e/make_edge_bug.sh")], check=True,
                       capture_output=True, text=True).stdout
run = {"id": 1, "name": "scripted", "model": "replay", "endpoint": "", "prompt_version": "1",
       "ptxbench_version": "0.1.0", "created_at": "2026-11-29T00:00:00Z", "settings": {},
       "environment": {}}
for turn, source in enumerate([buggy, expert]):
    text = "```cuda\n" + source + "```\n"
    line = {"schema": 1, "run": run, "attempt_id": turn + 1, "task": task, "sample": 0,
            "turn": turn, "status": "ok", "error": "", "request": {}, "response": {},
            "response_text": text, "reasoning": "", "code": source, "feedback": "",
            "usage": {"prompt_tokens": 0, "completion_tokens": 0}, "latency_s": 0.0,
            "retries": 0, "created_at": "2026-11-29T00:00:00Z", "evaluation": None}
    sys.stdout.write(json.dumps(line) + "\n")
