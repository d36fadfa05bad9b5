"""Reward shaping and code extraction: pure functions."""

from __future__ import annotations

import pytest

from ptxbench import Verdict, extract_code, reward_of


def verdict(outcome: str, speedups: list[float] | None = None) -> Verdict:
    rows = [{"speedup": {"median": s}} for s in (speedups or [])]
    return Verdict.from_json({"outcome": outcome, "reason": "", "timing": rows, "targets": []})


def test_shaping_orders_cheats_below_every_failure_and_pays_speed():
    assert reward_of(verdict("rejected_cheat", [5.0])) == -1.0
    failures = ["compile_error", "crashed", "timeout", "no_code"]
    assert all(reward_of(verdict(o)) == 0.0 for o in failures)
    assert reward_of(None) == 0.0
    assert reward_of(verdict("incorrect")) == 0.1
    assert reward_of(verdict("low_instruction_share")) == 0.3
    assert reward_of(verdict("instruction_missing")) == 0.3
    assert reward_of(verdict("passed")) == 0.5
    assert reward_of(verdict("passed", [1.0, 1.0])) == pytest.approx(0.75)
    assert reward_of(verdict("passed", [0.5, 2.0])) == pytest.approx(0.75)  # geometric mean 1
    assert reward_of(verdict("passed", [4.0, 4.0])) == 1.0
    assert reward_of(verdict("unavailable")) is None


def test_verdict_view_reads_speedups_targets_and_tier():
    v = Verdict.from_json({"outcome": "passed", "reason": "ok", "config": {"tier": "quick"},
                           "timing": [{"speedup": {"median": 0.9}}, {"error": "plan failed"}],
                           "targets": [{"met": True}, {"met": True}]})
    assert v.passed and v.targets_met and v.tier == "quick" and v.speedups == [0.9]
    assert not Verdict.from_json({"outcome": "passed", "targets": [{"met": False}]}).targets_met


RUN = "extern \"C\" int ptxb_run(const ptxb_args* a) {\n  return 0;\n}\n"


def test_extraction_follows_the_judges_rules():
    assert extract_code("no fences here") is None
    # A cuda block that defines ptxb_run wins over a longer untagged one.
    answer = f"```\n{'x' * 500}\n```\ntext\n```cuda\n{RUN}```\n"
    assert extract_code(answer) == RUN
    # Leading reasoning is ignored, drafts inside it included; an unclosed one is all reasoning.
    assert extract_code(f"<think>```cuda\n{RUN}draft```</think>\n```cuda\n{RUN}```") == RUN
    assert extract_code(f"<think>```cuda\n{RUN}```") is None
    assert extract_code(f"draft```cuda\nold\n```</think>```cuda\n{RUN}```") == RUN
    # Tildes, indentation, an unterminated last fence, ties to the later block.
    assert extract_code(f"~~~cu\n{RUN}~~~") == RUN
    assert extract_code(f"  ```cuda\n  {RUN.splitlines()[0]}\n  ```") == RUN.splitlines()[0] + "\n"
    assert extract_code(f"```cuda\n{RUN}") == RUN
    assert extract_code("```cpp\nint a;\n```\n```cpp\nint b;\n```") == "int b;\n"
    assert extract_code("```python\nprint(1)\n```") is None
