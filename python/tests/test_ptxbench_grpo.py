"""One GRPO step in TRL on the CPU with the PTXBench reward adapter as its reward: the adapter
takes TRL's calling convention (prompts, completions, dataset columns as keywords)."""

from __future__ import annotations

import pytest

from ptxbench import trl_reward

TASK = "sm90/gemm/bf16-wgmma"


def test_a_grpo_step_calls_the_adapter_with_the_task_column(tiny_dir, tmp_path):
    datasets = pytest.importorskip("datasets")
    trl = pytest.importorskip("trl")
    judged: list[tuple[str, str]] = []

    def judge(code, task):  # never reached: a random tiny model writes no code block
        judged.append((code, task))
        raise AssertionError("no code should have been judged")

    adapter = trl_reward(judge)
    seen: list[dict] = []

    def ptxbench_reward(prompts, completions, **kwargs):
        rewards = adapter(prompts=prompts, completions=completions, **kwargs)
        seen.append({"tasks": list(kwargs["task"]), "n": len(completions), "rewards": rewards})
        return rewards

    data = datasets.Dataset.from_list([{"prompt": "Write the kernel.", "task": TASK}] * 2)
    args = trl.GRPOConfig(output_dir=str(tmp_path / "grpo"), per_device_train_batch_size=2,
                          num_generations=2, max_completion_length=8, max_steps=1,
                          report_to=[], save_strategy="no", logging_steps=1, use_cpu=True,
                          bf16=False)
    trainer = trl.GRPOTrainer(model=str(tiny_dir), reward_funcs=[ptxbench_reward], args=args,
                              train_dataset=data)
    trainer.train()
    assert seen, "TRL never called the reward"
    assert all(s["tasks"] == [TASK] * s["n"] for s in seen)
    assert all(r == 0.0 for s in seen for r in s["rewards"])  # no code: reward 0, nothing judged
    assert not judged
