"""The Python package against a real `ptxbench serve` on 127.0.0.1 (the build's executable; the
static stage on a machine without a GPU), and the local CLI path."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ptxbench import AsyncClient, Client, ServiceError, compute_score, evaluate, trl_reward
from ptxbench.rewards import make_judge

ROOT = Path(__file__).resolve().parents[2]
EXE = ROOT / "build" / "release" / "ptxbench"
TASK = "sm90/gemm/bf16-wgmma"
BROKEN = "this is not CUDA @@@\n"
TOKEN = "python-test-token"

pytestmark = pytest.mark.skipif(not EXE.exists(), reason=f"no {EXE}: build first")


def has_gpu() -> bool:
    return subprocess.run(["sh", "-c", "nvidia-smi -L"], capture_output=True).returncode == 0


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("serve")
    # Its own sandbox user: the service's start-up sweep kills every process of that user.
    env = dict(os.environ, PTXBENCH_SERVE_TOKEN=TOKEN, PTXBENCH_CACHE_DIR=str(tmp / "cache"),
               PTXBENCH_SANDBOX_UID="61910")
    proc = subprocess.Popen([str(EXE), "serve", "--port", "0", "--db", str(tmp / "jobs.db"),
                             "--compile-threads", "1"], stdout=subprocess.PIPE, text=True, env=env)
    line = proc.stdout.readline()
    assert line.startswith("serving on http://"), line
    url = line.split()[2]
    yield url
    proc.terminate()
    proc.wait(timeout=120)


def test_health_auth_and_a_compile_error_round_trip(service):
    client = Client(service, TOKEN)
    assert client.health()["ok"] is True
    with pytest.raises(ServiceError) as refused:
        Client(service, "wrong").metrics()
    assert refused.value.status == 401
    with pytest.raises(ServiceError) as bad:
        client.submit("sm90/no-such-task", BROKEN)
    assert bad.value.status == 400 and "unknown task" in bad.value.message
    verdict = client.evaluate(BROKEN, TASK, tier="quick", timeout=300)
    assert verdict.outcome == "compile_error"
    assert verdict.tier == "quick"
    assert "compile" in verdict.feedback


def test_async_client_and_the_trl_and_verl_adapters(service):
    client = Client(service, TOKEN)
    verdict = asyncio.run(AsyncClient(service, TOKEN).evaluate(BROKEN + "// async\n", TASK,
                                                               timeout=300))
    assert verdict.outcome == "compile_error"
    reward = trl_reward(make_judge(client))
    answers = [f"Here:\n```cuda\n{BROKEN}```\n", "no code at all",
               [{"role": "assistant", "content": f"```cuda\n{BROKEN}// chat\n```"}]]
    assert reward(prompts=["p"] * 3, completions=answers, task=[TASK] * 3) == [0.0, 0.0, 0.0]
    with pytest.raises(ValueError):
        reward(prompts=["p"], completions=answers[:1])  # no task column
    score = compute_score("ptxbench", f"```cuda\n{BROKEN}// verl\n```", TASK,
                          judge=make_judge(client))
    assert score == 0.0


@pytest.mark.skipif(has_gpu(), reason="a GPU judges the expert: the unavailable path needs none")
def test_an_unjudgeable_answer_gives_trl_none_and_verl_an_error(service):
    client = Client(service, TOKEN)
    expert = (ROOT / "kernels" / "reference" / "sm90_gemm_bf16_wgmma.cu").read_text()
    answer = f"```cuda\n{expert}```"
    judge = make_judge(client)
    assert trl_reward(judge)(prompts=["p"], completions=[answer], task=[TASK]) == [None]
    with pytest.raises(RuntimeError, match="could not judge"):
        compute_score("ptxbench", answer, None, {"task": TASK}, judge=judge)


def test_local_executable_when_no_service_is_given(monkeypatch, tmp_path):
    monkeypatch.setenv("PTXBENCH_BIN", str(EXE))
    monkeypatch.setenv("PTXBENCH_CACHE_DIR", str(tmp_path / "cache"))
    verdict = evaluate(BROKEN, TASK, tier="quick", timeout=300)
    assert verdict.outcome == "compile_error"
    assert verdict.tier == "quick"
    assert sys.version_info >= (3, 10)
