"""serve-eval: a real OpenAI-compatible server from PyPI (``transformers serve``) on the tiny model,
the real PTXBench client against it, and the server failures reported clearly."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ptxbench_sft.__main__ import main
from ptxbench_sft.serve_eval import DEFAULT_PTXBENCH

TASK = "sm90/gemm/bf16-wgmma"
TEMPLATE_KWARGS = {"enable_thinking": False, "preserve_thinking": False}


@pytest.fixture
def venv_on_path(monkeypatch):
    """`transformers` (the console script) lives beside this interpreter."""
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")


@pytest.mark.skipif(not DEFAULT_PTXBENCH.is_file(), reason="build/release/ptxbench not built")
def test_ptxbench_generates_against_transformers_serve(tmp_path, tiny_dir, venv_on_path):
    db = tmp_path / "runs.db"
    status = main(["serve-eval", "--server", "transformers", "--device", "cpu",
                   "--model", str(tiny_dir), "--startup-timeout", "180",
                   "--server-log", str(tmp_path / "server.log"), "--",
                   "generate", "--tasks", TASK, "--max-tokens", "24", "--run-name", "e2e",
                   "--db", str(db), "--extra-body",
                   json.dumps({"chat_template_kwargs": TEMPLATE_KWARGS})])
    assert status == 0, (tmp_path / "server.log").read_text()[-2000:]
    export = tmp_path / "export.jsonl"
    subprocess.run([str(DEFAULT_PTXBENCH), "export", "--db", str(db), "-o", str(export)],
                   check=True, capture_output=True)
    (attempt,) = [json.loads(line) for line in export.read_text().splitlines()]
    # A random model writes no kernel; what matters is the round trip through a real server.
    assert attempt["status"] in ("ok", "no_code") and attempt["response_text"]
    assert 0 < attempt["usage"]["completion_tokens"] <= 24
    assert attempt["request"]["chat_template_kwargs"] == TEMPLATE_KWARGS
    # The server rendered exactly the prompt training renders from the same messages and
    # arguments (build-data keeps request.messages as the row's prompt).
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_dir)
    ids = tok.apply_chat_template(attempt["request"]["messages"], add_generation_prompt=True,
                                  tokenize=True, **TEMPLATE_KWARGS)
    ids = ids["input_ids"] if hasattr(ids, "keys") else ids
    assert attempt["usage"]["prompt_tokens"] == len(ids)


def serve_eval(tmp_path, server_command: str, *extra: str) -> list[str]:
    return ["serve-eval", "--model", "m", "--server-command", server_command,
            "--server-log", str(tmp_path / "server.log"), "--ptxbench", sys.executable, *extra,
            "--", "generate", "--tasks", TASK]


def test_server_that_exits_is_an_error_with_its_log(tmp_path, capsys):
    cmd = f"{sys.executable} -c 'print(\"no such model\"); raise SystemExit(3)'"
    assert main(serve_eval(tmp_path, cmd)) == 2
    err = capsys.readouterr().err
    assert "exited with status 3" in err and "no such model" in err


def test_server_that_never_answers_times_out_and_is_stopped(tmp_path, capsys):
    pid_file = tmp_path / "pid"
    cmd = (f"{sys.executable} -c 'import os, time; open(\"{pid_file}\", \"w\")"
           f".write(str(os.getpid())); time.sleep(120)'")
    assert main(serve_eval(tmp_path, cmd, "--startup-timeout", "2")) == 2
    assert "did not answer" in capsys.readouterr().err
    pid = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_ptxbench_command_is_required(tmp_path, capsys):
    args = serve_eval(tmp_path, "true")[:-3]
    assert main(args) == 2
    assert "run or generate" in capsys.readouterr().err
