"""Golden tests of chat_template.jinja, rendered with Jinja2 alone the way transformers renders
chat templates (sandboxed, trim_blocks, lstrip_blocks, loop controls), plus the property TRL
relies on: rendering(prompt, add_generation_prompt) is a prefix of rendering(prompt + completion).
"""

from __future__ import annotations

import itertools

import jinja2.ext
import pytest
from jinja2.sandbox import ImmutableSandboxedEnvironment

from ptxbench_sft.tiny import chat_template

SYS = {"role": "system", "content": "S"}
USER = {"role": "user", "content": "U"}
FAILED = {"role": "assistant", "content": "A1", "reasoning_content": "R1"}
FEEDBACK = {"role": "user", "content": "F"}
FIX = {"role": "assistant", "content": "A2", "reasoning_content": "R2"}
PLAIN = {"role": "assistant", "content": "A2"}


def render(messages, add_generation_prompt=False, **kwargs) -> str:
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[jinja2.ext.loopcontrols])
    return env.from_string(chat_template()).render(
        messages=messages, add_generation_prompt=add_generation_prompt, **kwargs)


def turn(role: str, body: str) -> str:
    return f"<|im_start|>{role}\n{body}<|im_end|>\n"


def test_chatml_framing_and_generation_prompt():
    assert render([SYS, USER]) == turn("system", "S") + turn("user", "U")
    assert render([SYS, USER], add_generation_prompt=True) == (
        turn("system", "S") + turn("user", "U") + "<|im_start|>assistant\n")


def test_last_assistant_turn_carries_its_reasoning():
    assert render([USER, FIX]) == turn("user", "U") + turn(
        "assistant", "<think>\nR2\n</think>\n\nA2")
    # No reasoning: an empty think block, as the Qwen3 family renders the final turn.
    assert render([USER, PLAIN]) == turn("user", "U") + turn(
        "assistant", "<think>\n\n</think>\n\nA2")


@pytest.mark.parametrize("preserve", [None, False, True])
def test_history_reasoning_dropped_unless_preserved(preserve):
    kwargs = {} if preserve is None else {"preserve_thinking": preserve}
    history = "<think>\nR1\n</think>\n\nA1" if preserve else "A1"
    assert render([SYS, USER, FAILED, FEEDBACK, FIX], **kwargs) == (
        turn("system", "S") + turn("user", "U") + turn("assistant", history)
        + turn("user", "F") + turn("assistant", "<think>\nR2\n</think>\n\nA2"))


def test_enable_thinking_false_prefills_an_empty_think_block():
    prompt = render([USER], add_generation_prompt=True, enable_thinking=False)
    assert prompt == turn("user", "U") + "<|im_start|>assistant\n<think>\n\n</think>\n\n"
    assert render([USER, PLAIN], enable_thinking=False).startswith(prompt)


def test_none_values_read_as_absent():
    # datasets (Arrow) fills keys missing from some rows with None.
    none_msgs = [{**m, "reasoning_content": m.get("reasoning_content")}
                 for m in (SYS, USER, FAILED, FEEDBACK, PLAIN)]
    assert render(none_msgs, preserve_thinking=None, enable_thinking=None) == render(
        [SYS, USER, FAILED, FEEDBACK, PLAIN])


@pytest.mark.parametrize("preserve,thinking", list(itertools.product([None, False, True],
                                                                      [None, True, False])))
def test_prompt_rendering_is_prefix_of_full_rendering(preserve, thinking):
    kwargs = {k: v for k, v in (("preserve_thinking", preserve), ("enable_thinking", thinking))
              if v is not None}
    # With thinking off the completion has no reasoning (train.py refuses such rows otherwise).
    completion = PLAIN if thinking is False else FIX
    for prompt in ([USER], [SYS, USER], [SYS, USER, FAILED, FEEDBACK]):
        head = render(prompt, add_generation_prompt=True, **kwargs)
        full = render(prompt + [completion], **kwargs)
        assert full.startswith(head), (prompt, kwargs)
        assert full[len(head):].endswith("A2<|im_end|>\n")
