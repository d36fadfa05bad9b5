"""Shared test setup: the package on sys.path, no network, one CPU thread, and the SFT fixtures
(synthetic rows, a tokenizer + tiny random model built once per session)."""

import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# Nothing may touch a model hub or the network; set before transformers/datasets are imported.
for _var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
    os.environ[_var] = "1"
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
# NOTE: one thread: CI has 2 cores shared with the C++ build, and spinning OpenMP workers made a
# tiny-model step 50x slower under contention.
os.environ.setdefault("OMP_NUM_THREADS", "1")

CONFIGS = Path(__file__).resolve().parents[1] / "configs"
SYSTEM = {"role": "system", "content": "You are an expert GPU kernel engineer."}
# Text that appears only in prompts: no labelled token may decode to it.
FAILED_MARK = "FAILEDATTEMPT"
FEEDBACK_MARK = "HARNESSFEEDBACK"
OLD_REASONING = "OLDREASONING the tile loop reads past K."


def kernel_answer(name: str, n: int) -> str:
    return (f"Here is the kernel.\n\n```cuda\n__global__ void {name}(float* x, int n) {{\n"
            f"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            f"  if (i < n) x[i] = {n}.0f * x[i];\n}}\n```\n")


def _direct(task: str, n: int, kwargs: dict, reasoning: str | None = None) -> dict:
    completion = {"role": "assistant", "content": kernel_answer(f"{task}_k", n)}
    if reasoning is not None:
        completion["reasoning_content"] = reasoning
    return {"prompt": [SYSTEM, {"role": "user", "content": f"Task {task}: scale x by {n}."}],
            "completion": [completion], "chat_template_kwargs": kwargs, "kind": "direct",
            "task": f"sm90/scale/{task}"}


def _repair(task: str, n: int, kwargs: dict, reasoning: str | None) -> dict:
    failed = {"role": "assistant", "content": f"{FAILED_MARK}\n" + kernel_answer("bad_k", 0),
              "reasoning_content": OLD_REASONING}
    feedback = {"role": "user", "content": f"PTXBench judged your previous answer:\n\n"
                                           f"Verdict: incorrect {FEEDBACK_MARK}\n"}
    completion = {"role": "assistant", "content": kernel_answer(f"{task}_fix", n)}
    if reasoning is not None:
        completion["reasoning_content"] = reasoning
    prompt = [SYSTEM, {"role": "user", "content": f"Task {task}: scale x by {n}."}, failed,
              feedback]
    return {"prompt": prompt, "completion": [completion], "chat_template_kwargs": kwargs,
            "kind": "repair", "feedback_class": "incorrect", "task": f"sm90/scale/{task}"}


def synthetic_rows() -> list[dict]:
    """Direct and repair rows in build-data's format: with and without reasoning, thinking off,
    and repairs whose failed attempt carries reasoning, under preserve_thinking false and true."""
    keep, drop = {"preserve_thinking": True}, {"preserve_thinking": False}
    return [
        _direct("a", 2, drop),
        _direct("b", 3, drop, reasoning="Each thread scales one element."),
        _direct("c", 4, {"preserve_thinking": False, "enable_thinking": False}),
        _repair("d", 5, drop, reasoning="The bound check was missing."),
        _repair("e", 6, keep, reasoning="The grid was one block short."),
        _repair("f", 7, drop, reasoning=None),
    ]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def rows() -> list[dict]:
    return synthetic_rows()


@pytest.fixture(scope="session")
def rows_file(tmp_path_factory, rows) -> Path:
    return write_jsonl(tmp_path_factory.mktemp("data") / "train.jsonl", rows)


@pytest.fixture(scope="session")
def tiny_dir(tmp_path_factory, rows) -> Path:
    """Tokenizer + tiny random qwen3 model, built once (the tokenizer learns the rows' texts)."""
    from ptxbench_sft import tiny

    out = tmp_path_factory.mktemp("tiny")
    tiny.make_tiny(out, "qwen3", "tiny", rows)
    return out


@pytest.fixture
def tiny_config(tmp_path, tiny_dir, rows_file):
    """``make(*overrides)`` -> Config: configs/tiny-cpu.yaml on the session model and rows."""
    from ptxbench_sft import train

    base = [f"model.path={tiny_dir}", f"data.train_file={rows_file}",
            f"train.output_dir={tmp_path / 'run'}"]

    def make(*overrides: str):
        return train.load_config(CONFIGS / "tiny-cpu.yaml", [*base, *overrides])

    return make
