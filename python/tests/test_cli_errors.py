"""Bad input to every ``python -m ptxbench_sft`` command: exit status 2, one stderr line that
names the problem, no traceback and no output written."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PYTHON_DIR = Path(__file__).resolve().parents[1]


def run_cli(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(PYTHON_DIR))
    return subprocess.run([sys.executable, "-m", "ptxbench_sft", *args], env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    good = {"schema": 1, "run": {"name": "r"}, "task": "sm90/gemm/a", "sample": 0, "turn": 0,
            "request": {"messages": [{"role": "user", "content": "write it"}]}}
    out = {
        "not_json": "{not json\n",
        "wrong_schema": json.dumps(dict(good, schema=2)) + "\n",
        "no_run": json.dumps({k: v for k, v in good.items() if k != "run"}) + "\n",
        "bad_turn": json.dumps(dict(good, turn="0")) + "\n",
        "bad_message": json.dumps(dict(good, request={"messages": [{"role": "user"}]})) + "\n",
        "not_object": "[1, 2]\n",
        "bad_config": "model: [unclosed\n",
        "bad_rows": "{\"prompt\": []}\n",
    }
    paths = {}
    for name, text in out.items():
        paths[name] = tmp_path / f"{name}.jsonl"
        paths[name].write_text(text)
    paths["truncated_gz"] = tmp_path / "truncated.jsonl.gz"
    paths["truncated_gz"].write_bytes(gzip.compress(b"x" * 4096)[:20])
    paths["out"] = tmp_path / "out"
    return paths


CASES = [
    (["frob"], "invalid choice: 'frob'"),
    (["build-data", "--export", "{missing}", "--out", "{out}"], "export file not found"),
    (["build-data", "--export", "{not_json}", "--out", "{out}"], "not_json.jsonl:1: not JSON"),
    (["build-data", "--export", "{wrong_schema}", "--out", "{out}"], "export schema 2, expected 1"),
    (["build-data", "--export", "{no_run}", "--out", "{out}"], "'run' needs a string 'name'"),
    (["build-data", "--export", "{bad_turn}", "--out", "{out}"], "'turn' must be an integer"),
    (["build-data", "--export", "{bad_message}", "--out", "{out}"],
     "request message 0 needs string 'role' and 'content'"),
    (["build-data", "--export", "{not_object}", "--out", "{out}"], "must be a JSON object"),
    (["build-data", "--export", "{truncated_gz}", "--out", "{out}"], "cannot read the export"),
    (["build-data", "--export", "{not_json}", "--out", "{out}", "--max-tokens", "many"],
     "--max-tokens"),
    (["build-data", "--bogus"], "ptxbench_sft build-data: error:"),
    (["train", "--config", "{missing}"], "config file not found"),
    (["train", "--config", "{bad_config}"], "not valid YAML"),
    (["make-tiny", "--out", "{out}", "--corpus", "{missing}"], "data file not found"),
    (["make-tiny", "--out", "{out}", "--corpus", "{bad_rows}"],
     "'prompt' must be a non-empty list"),
    (["make-tiny", "--out", "{out}", "--size", "huge"], "invalid choice: 'huge'"),
    (["serve-eval", "--bogus"], "ptxbench_sft serve-eval: error:"),
]


@pytest.mark.parametrize(("args", "expected"), CASES, ids=[" ".join(c[0][:3]) for c in CASES])
def test_bad_input_is_one_line_exit_2(files, tmp_path, args, expected):
    names = dict(files, missing=tmp_path / "missing.file")
    proc = run_cli(*[a.format(**names) for a in args])
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert expected in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not files["out"].exists()
