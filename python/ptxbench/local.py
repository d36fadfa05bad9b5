"""Judging without a service: the local `ptxbench eval` executable."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from .verdict import Verdict


def ptxbench_executable() -> str:
    """$PTXBENCH_BIN, else `ptxbench` on PATH; FileNotFoundError naming both."""
    found = os.environ.get("PTXBENCH_BIN") or shutil.which("ptxbench")
    if not found:
        raise FileNotFoundError("no ptxbench executable: set PTXBENCH_BIN or put it on PATH")
    return found


def evaluate_local(code: str, task: str, *, tier: str = "full", timeout: float = 900.0
                   ) -> Verdict:
    """`ptxbench eval` on `code` as `task` (`--quick` for the quick tier). RuntimeError when the
    executable itself fails (exit status 2: PTXBench could not run)."""
    if tier not in ("full", "quick"):
        raise ValueError(f"unknown tier {tier!r}: 'full' or 'quick'")
    with tempfile.TemporaryDirectory(prefix="ptxbench-py-") as tmp:
        source, out = Path(tmp) / "submission.cu", Path(tmp) / "verdict.json"
        source.write_text(code)
        cmd = [ptxbench_executable(), "eval", str(source), "--task", task, "--json-out", str(out)]
        if tier == "quick":
            cmd.append("--quick")
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        if proc.returncode != 0 or not out.exists():
            raise RuntimeError(f"ptxbench eval exited {proc.returncode}: {proc.stderr[-2000:]}")
        return Verdict.from_json(json.loads(out.read_text()))
