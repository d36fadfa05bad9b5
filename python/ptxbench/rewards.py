"""Rewards from verdicts (docs/python.md), and adapters for TRL GRPO and verl.

Shaping (`reward_of`), in [-1, 1]:
- rejected_cheat: -1.0, the minimum: a cheat must never pay better than an honest failure;
- no code, compile_error, crashed, timeout and the other failures: 0.0;
- incorrect: 0.1 (it compiled and ran);
- instruction_missing, low_instruction_share (correct, but the target instructions did not do
  the work): 0.3;
- passed: 0.5 + 0.5 * min(s, 2) / 2 with s the geometric mean of the cold speedups over the
  library (0.75 at parity, 1.0 at twice the library's speed or more); 0.5 without timing;
- unavailable (PTXBench could not judge): no reward. The adapters retry once; then TRL gets None
  (TRL counts a None reward as 0 for that function: say so to whoever reads the curves) and verl
  gets an exception.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable, Sequence
from typing import Any

from .client import Client
from .extract import extract_code
from .local import evaluate_local
from .verdict import CHEAT, Verdict

Judge = Callable[[str, str], Verdict]  # (code, task) -> verdict


def reward_of(verdict: Verdict | None) -> float | None:
    """The shaped reward of a verdict (module docstring); None for `unavailable`; 0.0 for None
    (an answer without code)."""
    if verdict is None:
        return 0.0
    outcome = verdict.outcome
    if outcome == CHEAT:
        return -1.0
    if outcome == "unavailable":
        return None
    if outcome == "passed":
        s = verdict.geomean_speedup
        return 0.5 if s is None else 0.5 + 0.5 * min(s, 2.0) / 2.0
    if outcome in ("instruction_missing", "low_instruction_share"):
        return 0.3
    if outcome == "incorrect":
        return 0.1
    return 0.0


def make_judge(client: Client | None = None, *, tier: str = "quick",
               timeout: float = 900.0) -> Judge:
    """A judge through `client`, else the local executable; `tier` quick by default (rewards)."""
    if client is not None:
        return lambda code, task: client.evaluate(code, task, tier=tier, timeout=timeout)
    return lambda code, task: evaluate_local(code, task, tier=tier, timeout=timeout)


def _judged_reward(judge: Judge, answer: str, task: str) -> tuple[float | None, Verdict | None]:
    code = extract_code(answer)
    if code is None:
        return 0.0, None
    verdict = judge(code, task)
    if verdict.outcome == "unavailable":  # once more: a busy or restarting service
        verdict = judge(code, task)
    return reward_of(verdict), verdict


def _text(completion: Any) -> str:
    """A TRL completion: a string, or chat messages whose last one holds the answer."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list) and completion:
        last = completion[-1]
        if isinstance(last, dict):
            return str(last.get("content") or "")
    return str(completion)


def trl_reward(judge: Judge | None = None, *, task_column: str = "task",
               max_workers: int = 16) -> Callable[..., list[float | None]]:
    """A TRL GRPO reward function: `reward_funcs=[trl_reward(make_judge(client))]`. The dataset
    needs a column `task_column` with each row's task id (TRL passes it as a keyword). Answers
    are judged concurrently (the service spreads them over its GPUs)."""
    judge = judge or make_judge()

    def ptxbench_reward(prompts: Sequence[Any], completions: Sequence[Any],
                        **kwargs: Any) -> list[float | None]:
        tasks = kwargs.get(task_column)
        if tasks is None or len(tasks) != len(completions):
            raise ValueError(f"the dataset needs a '{task_column}' column (one task id per row)")
        with concurrent.futures.ThreadPoolExecutor(max_workers=max_workers) as pool:
            futures = [pool.submit(_judged_reward, judge, _text(c), t)
                       for c, t in zip(completions, tasks, strict=True)]
            return [f.result()[0] for f in futures]

    ptxbench_reward.__name__ = "ptxbench_reward"
    return ptxbench_reward


def compute_score(data_source: str, solution_str: str, ground_truth: Any,
                  extra_info: dict[str, Any] | None = None, *, judge: Judge | None = None
                  ) -> float:
    """verl's reward function: the task id is `extra_info["task"]`, else `ground_truth` (a
    string). Raises RuntimeError when PTXBench could not judge even on a retry."""
    task = (extra_info or {}).get("task") or ground_truth
    if not isinstance(task, str) or not task:
        raise ValueError("compute_score: give the task id as extra_info['task'] or ground_truth")
    reward, verdict = _judged_reward(judge or make_judge(), solution_str, task)
    if reward is None:
        reason = verdict.reason if verdict is not None else ""
        raise RuntimeError(f"PTXBench could not judge the answer for {task}: {reason}")
    return reward
