"""The offline stand-ins: tokenizer vocabulary and template, the random models, make-tiny."""

from __future__ import annotations

import math

import pytest
import torch

from ptxbench_sft import tiny
from ptxbench_sft.__main__ import main


@pytest.fixture(scope="module")
def tokenizer(tiny_dir):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(tiny_dir))


def test_special_and_think_tokens_are_single_tokens(tokenizer):
    for text in (*tiny.SPECIAL_TOKENS, *tiny.THINK_TOKENS):
        ids = tokenizer(text, add_special_tokens=False)["input_ids"]
        assert len(ids) == 1 and tokenizer.convert_ids_to_tokens(ids) == [text]
    assert tokenizer.eos_token == "<|im_end|>" and tokenizer.pad_token == "<|endoftext|>"
    # As in the Qwen3.x vocabulary, the think markers survive skip_special_tokens.
    ids = tokenizer("<think>\nx\n</think><|im_end|>", add_special_tokens=False)["input_ids"]
    assert tokenizer.decode(ids, skip_special_tokens=True) == "<think>\nx\n</think>"


def test_round_trip_and_saved_template(tokenizer):
    text = "__global__ void k(float* x) {\n  x[0] = 1.5f;  // ok\n}\n\n\tdone"
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    assert tokenizer.decode(ids) == text
    assert tokenizer.chat_template == tiny.chat_template()


def test_prompt_completion_boundary_is_a_token_boundary(tokenizer):
    # The enable_thinking=false generation prompt ends in "\n\n"; the completion text follows.
    head = "<|im_start|>assistant\n<think>\n\n</think>\n\n"
    for tail in ("Here it is.", "```cuda\nx\n```", " spaced", "\tTab"):
        ids_head = tokenizer(head, add_special_tokens=False)["input_ids"]
        ids_full = tokenizer(head + tail, add_special_tokens=False)["input_ids"]
        assert ids_full[:len(ids_head)] == ids_head, tail


def _forward_backward(model, vocab: int) -> torch.Tensor:
    ids = torch.randint(0, vocab, (2, 48), generator=torch.Generator().manual_seed(0))
    out = model(input_ids=ids, labels=ids)
    out.loss.backward()
    return out.loss


@pytest.mark.parametrize("kind", ["qwen3", "qwen3_5"])
def test_tiny_models_forward_backward(tokenizer, kind):
    if kind == "qwen3_5" and not tiny.hybrid_available():
        pytest.fail("transformers lacks Qwen3_5TextConfig (the Qwen3.6 hybrid)")
    model = tiny.build_model(tokenizer, kind, "tiny")
    loss = _forward_backward(model, len(tokenizer))
    assert math.isfinite(loss.item())
    # A random model starts near the uniform loss ln(vocab).
    assert abs(loss.item() - math.log(len(tokenizer))) < 1.0
    assert model.config.vocab_size == len(tokenizer)
    assert model.config.eos_token_id == tokenizer.eos_token_id
    if kind == "qwen3_5":
        assert model.config.layer_types == ["linear_attention", "full_attention"]


def test_smoke_size_parameter_count(tokenizer):
    from transformers import AutoModelForCausalLM

    for kind in ("qwen3", "qwen3_5"):
        with torch.device("meta"):  # shapes only, no memory
            model = AutoModelForCausalLM.from_config(
                tiny.build_config(tokenizer, kind, "smoke"))
        params = sum(p.numel() for p in model.parameters())
        assert 100e6 <= params <= 300e6, (kind, params)


def test_large_size_does_not_fit_one_gpu_for_full_fine_tuning(tokenizer):
    """The sharded size of the multi-GPU run: Qwen3.6-27B's width, half its depth; at 16 bytes a
    parameter (ZeRO-3's full fine-tuning state) it needs more than one 141 GB H200."""
    from transformers import AutoModelForCausalLM

    config = tiny.build_config(tokenizer, "qwen3_5", "large")
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config)
    params = sum(p.numel() for p in model.parameters())
    assert 10e9 <= params <= 13e9, params
    assert params * 16 > 141e9
    assert (config.hidden_size, config.intermediate_size, config.num_attention_heads) == (
        5120, 17408, 40)


def test_bfloat16_weights(tokenizer):
    model = tiny.build_model(tokenizer, "qwen3", "tiny", dtype="bfloat16")
    assert {p.dtype for p in model.parameters()} == {torch.bfloat16}
    with pytest.raises(ValueError, match="unknown dtype"):
        tiny.build_model(tokenizer, "qwen3", "tiny", dtype="float16")


def test_make_tiny_cli(tmp_path, rows_file, capsys):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    out = tmp_path / "m"
    assert main(["make-tiny", "--out", str(out), "--corpus", str(rows_file)]) == 0
    assert '"kind": "qwen3"' in capsys.readouterr().out
    tok = AutoTokenizer.from_pretrained(str(out))
    model = AutoModelForCausalLM.from_pretrained(str(out))
    assert model.config.vocab_size == len(tok) and tok.chat_template == tiny.chat_template()


def test_make_tiny_missing_corpus_is_exit_2(tmp_path, capsys):
    rc = main(["make-tiny", "--out", str(tmp_path / "m"), "--corpus", str(tmp_path / "no.jsonl")])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("error: data file not found") and err.count("\n") == 1
