"""Training on CPU with the tiny model: over-fitting, the completion-only labels and the prompt
tokens exactly as the trainer's dataloader yields them, the length drop, LoRA, bad input."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest
import torch
from conftest import CONFIGS, FAILED_MARK, FEEDBACK_MARK, OLD_REASONING, write_jsonl

from ptxbench_sft import train
from ptxbench_sft.__main__ import main

REAL_EXPORT = (Path(__file__).resolve().parents[2]
               / "bench/results/2026-11-29-h200-model-run/export.jsonl.gz")


def expected_completion(row: dict) -> str:
    """What the labels must decode to, written out by hand (not rendered by the template): the
    think block (empty without reasoning; in the prompt when thinking is off), the answer,
    ``<|im_end|>`` and the template's newline after it. TRL labels every token after the
    prompt, so that newline is labelled too."""
    message = row["completion"][0]
    if row["chat_template_kwargs"].get("enable_thinking") is False:
        return message["content"] + "<|im_end|>\n"
    reasoning = message.get("reasoning_content") or ""
    return f"<think>\n{reasoning}\n</think>\n\n{message['content']}<|im_end|>\n"


def seen_by_training(trainer) -> list[tuple[list[int], list[int]]]:
    """(input_ids, labels) of every sequence of one epoch of the trainer's own dataloader, with
    the padding removed."""
    out = []
    for batch in trainer.get_train_dataloader():
        for ids, labels, mask in zip(batch["input_ids"], batch["labels"],
                                     batch["attention_mask"], strict=True):
            keep = mask.bool()
            assert (labels[~keep] == -100).all()  # padding is never a target
            out.append((ids[keep].tolist(), labels[keep].tolist()))
    return out


def check_sequences(trainer, tokenizer, rows: list[dict]) -> None:
    """Each sequence training sees: its prompt tokens are what the server renders from the
    request messages, its labels decode to exactly the completion, nothing else is labelled."""
    seqs = seen_by_training(trainer)
    assert len(seqs) == len(rows)
    by_text = {train.render(tokenizer, r, generation_prompt=False): r for r in rows}
    assert len(by_text) == len(rows)
    for ids, labels in seqs:
        row = by_text[tokenizer.decode(ids)]
        first = next(i for i, label in enumerate(labels) if label != -100)
        # A labelled suffix: labels equal the inputs from the first labelled token on.
        assert labels[first:] == ids[first:] and set(labels[:first]) == {-100}
        server_prompt = tokenizer.apply_chat_template(
            row["prompt"], add_generation_prompt=True, tokenize=True, return_dict=True,
            **row["chat_template_kwargs"])["input_ids"]
        assert ids[:first] == list(server_prompt)
        target = tokenizer.decode(labels[first:])
        assert target == expected_completion(row)
        assert labels[-2:] == tokenizer.convert_tokens_to_ids(["<|im_end|>", "Ċ"])
        for mark in (FAILED_MARK, FEEDBACK_MARK, OLD_REASONING):
            assert mark not in target
        if len(row["prompt"]) > 2 and row["prompt"][-2]["role"] == "assistant":  # a repair
            failed, feedback = row["prompt"][-2], row["prompt"][-1]
            prompt_text = tokenizer.decode(ids[:first])
            for text in (failed["content"], feedback["content"]):
                assert text in prompt_text and text not in target
            if failed.get("reasoning_content"):
                preserve = bool(row["chat_template_kwargs"].get("preserve_thinking"))
                assert (failed["reasoning_content"] in prompt_text) == preserve


# --------------------------------------------------------------------------- training


def test_overfit_and_metrics(tiny_config, tiny_dir, rows_file, tmp_path, capsys):
    out = tmp_path / "run"
    rc = main(["train", "--config", str(CONFIGS / "tiny-cpu.yaml"),
               "--set", f"model.path={tiny_dir}", "--set", f"data.train_file={rows_file}",
               "--set", f"train.output_dir={out}"])
    assert rc == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    metrics = json.loads((out / "metrics.json").read_text())
    assert summary["steps"] == metrics["steps"] == 40 and metrics["schema"] == train.METRICS_SCHEMA
    assert metrics["all_losses_finite"] and len(metrics["losses"]) == 40
    assert metrics["last_loss"] < 0.5 * metrics["first_loss"]
    assert metrics["rows"] == {"train_used": 6, "train_dropped_over_length": 0,
                               "eval_used": 0, "eval_dropped_over_length": 0}
    assert 0 < metrics["train_completion_tokens"] < metrics["train_tokens"]
    assert 0 < metrics["row_tokens"]["min"] <= metrics["row_tokens"]["max"] <= 2048
    assert metrics["tokens_per_s"] > 0 and metrics["peak_gpu_memory_bytes"] is None
    assert metrics["peak_gpu_memory_bytes_per_rank"] is None  # CPU
    assert metrics["resumed_from_checkpoint"] is None
    assert set(metrics["versions"]) == {"torch", "transformers", "trl", "peft", "accelerate",
                                        "datasets"}
    assert metrics["device"].startswith("cpu") and metrics["config"]["train"]["max_steps"] == 40
    assert metrics["num_processes"] == 1 and metrics["distributed_type"] == "DistributedType.NO"
    assert metrics["sharded_parameter_share"] == 0.0  # FSDP2 shards are DTensors: none here
    assert not (out / "model.safetensors").exists()  # tiny-cpu.yaml: model.save false


def test_labels_are_exactly_the_completion(tiny_config, rows):
    prep = train.prepare(tiny_config())
    check_sequences(prep.trainer, prep.trainer.processing_class, rows)


def test_over_length_row_dropped_not_truncated(tiny_config, rows):
    tokenizer = train.prepare(tiny_config()).trainer.processing_class
    lengths = [len(tokenizer(train.render(tokenizer, r, False))["input_ids"]) for r in rows]
    longest = max(range(len(rows)), key=lengths.__getitem__)
    limit = sorted(lengths)[-2]  # every row but the longest fits
    prep = train.prepare(tiny_config(f"train.max_length={limit}"))
    assert (prep.train_rows.used, prep.train_rows.dropped_over_length) == (len(rows) - 1, 1)
    kept = [r for i, r in enumerate(rows) if i != longest]
    # Untruncated: every kept sequence is whole, and its labels still end on <|im_end|>\n.
    check_sequences(prep.trainer, tokenizer, kept)
    assert sorted(len(ids) for ids, _ in seen_by_training(prep.trainer)) == sorted(
        n for i, n in enumerate(lengths) if i != longest)
    with pytest.raises(train.InputError, match="longer than max_length"):
        train.prepare(tiny_config(f"train.max_length={min(lengths) - 1}"))


def test_lora_changes_only_adapters_and_merges(tiny_config, tmp_path):
    cfg = tiny_config("lora.r=8", "lora.alpha=16", "train.max_steps=5",
                      "train.learning_rate=1e-2", "model.save=true")
    prep = train.prepare(cfg)
    model = prep.trainer.model
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    assert any("lora_" in n for n in before)
    metrics = train.run_training(prep, cfg)
    assert metrics["lora"] and metrics["steps"] == 5
    for name, param in model.named_parameters():
        changed = not torch.equal(before[name], param.detach())
        if "lora_" not in name:
            assert not changed, name
    assert any(not torch.equal(before[n], p.detach())
               for n, p in model.named_parameters() if "lora_B" in n)
    out = Path(cfg.train["output_dir"])
    assert (out / "adapter_config.json").exists() and (out / "adapter_model.safetensors").exists()
    assert not (out / "model.safetensors").exists()

    ids = torch.tensor([prep.trainer.train_dataset[0]["input_ids"]])
    model.eval()
    with torch.no_grad():
        adapter_logits = model(input_ids=ids).logits
        merged_logits = model.merge_and_unload()(input_ids=ids).logits
    assert torch.allclose(adapter_logits, merged_logits, atol=1e-5, rtol=1e-4)


def test_resumed_run_continues_the_losses(tiny_config, tmp_path):
    """A run saved at step 3 and resumed there (model, optimizer, scheduler, RNG, data order from
    the checkpoint) logs the uninterrupted run's losses for steps 4-6."""
    whole = train.train(tiny_config("train.max_steps=6", "train.save_strategy=steps",
                                    "train.save_steps=3", f"train.output_dir={tmp_path / 'a'}"))
    assert whole["resumed_from_checkpoint"] is None and (tmp_path / "a/checkpoint-3").is_dir()
    resumed = train.train(tiny_config(
        "train.max_steps=6", f"train.output_dir={tmp_path / 'b'}",
        f"train.resume_from_checkpoint={tmp_path / 'a/checkpoint-3'}"))
    assert resumed["resumed_from_checkpoint"] == str(tmp_path / "a/checkpoint-3")
    assert [h["step"] for h in resumed["losses"]] == [4, 5, 6]
    for after, before in zip(resumed["losses"], whole["losses"][3:], strict=True):
        assert after["loss"] == pytest.approx(before["loss"], rel=1e-5), after["step"]


def test_sharded_share_counts_fsdp2_and_zero3_partitions():
    """DeepSpeed ZeRO-3 leaves each parameter an empty local tensor with its whole size in
    ``ds_numel``; a model half of whose elements are so partitioned is half sharded."""
    model = torch.nn.Sequential(torch.nn.Linear(4, 4, bias=False),
                                torch.nn.Linear(4, 4, bias=False))
    assert train.sharded_parameter_share(model) == 0.0
    model[0].weight.ds_numel = 16
    model[0].weight.data = torch.empty(0)
    assert train.sharded_parameter_share(model) == 0.5


@pytest.mark.skipif(not REAL_EXPORT.exists(), reason="real export not in this checkout")
def test_real_h200_export_end_to_end(tmp_path, capsys):
    data, model_dir, out = tmp_path / "data", tmp_path / "model", tmp_path / "run"
    assert main(["build-data", "--export", str(REAL_EXPORT), "--out", str(data)]) == 0
    assert main(["make-tiny", "--out", str(model_dir), "--corpus",
                 str(data / "train.jsonl")]) == 0
    config = CONFIGS / "tiny-cpu.yaml"
    base = [f"model.path={model_dir}", f"data.train_file={data / 'train.jsonl'}",
            f"train.output_dir={out}"]
    rows = train.read_rows(data / "train.jsonl")
    prep = train.prepare(train.load_config(config, [*base, "train.max_length=65536"]))
    assert prep.train_rows.used == 5
    check_sequences(prep.trainer, prep.trainer.processing_class, rows)
    # Two steps over the rows that fit in 10000 tokens: the three longest are dropped.
    capsys.readouterr()
    sets = [x for item in base for x in ("--set", item)]
    assert main(["train", "--config", str(config), *sets, "--set", "train.max_length=10000",
                 "--set", "train.max_steps=2", "--set",
                 "train.per_device_train_batch_size=1"]) == 0
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["rows"]["train_used"] + metrics["rows"]["train_dropped_over_length"] == 5
    assert metrics["rows"]["train_used"] >= 1 and metrics["steps"] == 2
    assert all(math.isfinite(h["loss"]) for h in metrics["losses"])


# --------------------------------------------------------------------------- bad input


def run_cli_error(tmp_path, capsys, *sets: str, config: Path | None = None) -> str:
    config = config or CONFIGS / "tiny-cpu.yaml"
    argv = ["train", "--config", str(config)]
    for item in (f"train.output_dir={tmp_path / 'run'}", *sets):
        argv += ["--set", item]
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    return err


def test_bad_input_exit_2(tmp_path, capsys, tiny_dir, rows_file, rows):
    good = [f"model.path={tiny_dir}", f"data.train_file={rows_file}"]
    assert "unknown config key 'train.max_stepz'" in run_cli_error(
        tmp_path, capsys, *good, "train.max_stepz=3")
    assert "unknown config key 'model.revision'" in run_cli_error(
        tmp_path, capsys, *good, "model.revision=main")
    assert "data file not found" in run_cli_error(
        tmp_path, capsys, good[0], f"data.train_file={tmp_path / 'none.jsonl'}")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    assert "no rows in" in run_cli_error(tmp_path, capsys, good[0], f"data.train_file={empty}")
    bad = write_jsonl(tmp_path / "bad.jsonl", [rows[0], {**rows[1], "completion": []}])
    assert "bad.jsonl:2: 'completion'" in run_cli_error(
        tmp_path, capsys, good[0], f"data.train_file={bad}")
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"prompt": [\n')
    assert "broken.jsonl:1: not JSON" in run_cli_error(
        tmp_path, capsys, good[0], f"data.train_file={broken}")
    assert "train.packing must be False" in run_cli_error(
        tmp_path, capsys, *good, "train.packing=true")
    assert "config file not found" in run_cli_error(
        tmp_path, capsys, *good, config=tmp_path / "none.yaml")
    section = tmp_path / "section.yaml"
    section.write_text("modle: {path: x}\n")
    assert "unknown config key 'modle'" in run_cli_error(tmp_path, capsys, config=section)


def test_reasoning_with_thinking_off_is_refused(tiny_config, tmp_path, rows):
    row = {**rows[2], "completion": [{**rows[2]["completion"][0], "reasoning_content": "x"}]}
    path = write_jsonl(tmp_path / "r.jsonl", [row])
    with pytest.raises(train.InputError, match="not a prefix"):
        train.prepare(tiny_config(f"data.train_file={path}"))


# --------------------------------------------------------------------------- shipped configs


@pytest.mark.parametrize("name", sorted(p.name for p in CONFIGS.glob("*.yaml")))
def test_shipped_configs_validate(name):
    cfg = train.load_config(CONFIGS / name)
    # TRL accepts the train section; without a GPU, bf16 is only accepted together with use_cpu.
    if not torch.cuda.is_available():
        cfg = dataclasses.replace(cfg, train={**cfg.train, "use_cpu": True})
    train.sft_args(cfg)
    assert cfg.train["max_length"] > 0


def accelerate_config(name: str) -> dict:
    """Parsed and checked the way ``accelerate launch`` reads it: top-level keys against its
    config class, nested plugin keys against its launch options."""
    import yaml
    from accelerate.commands.config.config_args import ClusterConfig
    from accelerate.commands.launch import launch_command_parser

    path = CONFIGS / "accelerate" / name
    ClusterConfig.from_yaml_file(str(path))  # raises on unknown top-level keys
    raw = yaml.safe_load(path.read_text())
    options = {o.lstrip("-") for a in launch_command_parser()._actions for o in a.option_strings}
    for section in ("fsdp_config", "deepspeed_config"):
        unknown = set(raw.get(section) or {}) - options
        assert not unknown, (name, section, unknown)
    return raw


def effective_batch(cfg: train.Config, processes: int) -> int:
    return (cfg.train["per_device_train_batch_size"] * cfg.train["gradient_accumulation_steps"]
            * processes)


def test_27b_lora_fsdp2_recipe():
    acc = accelerate_config("fsdp2-8gpu.yaml")
    fsdp = acc["fsdp_config"]
    assert acc["distributed_type"] == "FSDP" and acc["num_processes"] == 8
    assert fsdp["fsdp_version"] == 2 and fsdp["fsdp_reshard_after_forward"] is True
    assert fsdp["fsdp_auto_wrap_policy"] == "TRANSFORMER_BASED_WRAP"
    assert fsdp["fsdp_state_dict_type"] == "SHARDED_STATE_DICT"
    from transformers import Qwen3_5ForCausalLM

    assert fsdp["fsdp_transformer_layer_cls_to_wrap"] in Qwen3_5ForCausalLM._no_split_modules
    cfg = train.load_config(CONFIGS / "qwen3.6-27b-lora-fsdp2.yaml")
    # transformers refuses FSDP activation checkpointing together with the trainer's.
    assert fsdp["fsdp_activation_checkpointing"] and not cfg.train["gradient_checkpointing"]
    assert cfg.lora["target_modules"] == "all-linear" and 64 <= cfg.lora["r"] <= 128
    assert 1e-4 <= cfg.train["learning_rate"] <= 2e-4
    assert 16384 <= cfg.train["max_length"] <= 32768
    assert cfg.train["bf16"] and cfg.model["dtype"] == "bfloat16"
    assert 16 <= effective_batch(cfg, acc["num_processes"]) <= 64


def test_27b_full_zero3_recipe():
    acc = accelerate_config("zero3-8gpu.yaml")
    assert acc["distributed_type"] == "DEEPSPEED" and acc["num_processes"] == 8
    assert acc["deepspeed_config"]["zero_stage"] == 3
    cfg = train.load_config(CONFIGS / "qwen3.6-27b-full.yaml")
    assert cfg.lora is None and cfg.train["gradient_checkpointing"]
    assert cfg.train["learning_rate"] == 1e-5 and cfg.train["lr_scheduler_type"] == "cosine"
    assert 0.03 <= cfg.train["warmup_steps"] <= 0.05
    assert 32 <= effective_batch(cfg, acc["num_processes"]) <= 64
    assert 16384 <= cfg.train["max_length"] <= 32768
    assert cfg.train["bf16"] and cfg.model["dtype"] == "bfloat16"


def test_hybrid_qwen3_5_trains(tmp_path, rows, rows_file):
    """The Qwen3.6 architecture (Gated DeltaNet + full attention, torch fallback on CPU)."""
    from ptxbench_sft import tiny

    model_dir = tmp_path / "hybrid"
    tiny.make_tiny(model_dir, "qwen3_5", "tiny", rows)
    cfg = train.load_config(CONFIGS / "tiny-cpu.yaml", [
        f"model.path={model_dir}", f"data.train_file={rows_file}",
        f"train.output_dir={tmp_path / 'run'}", "train.max_steps=15"])
    prep = train.prepare(cfg)
    assert prep.trainer.model.config.layer_types == ["linear_attention", "full_attention"]
    check_sequences(prep.trainer, prep.trainer.processing_class, rows)
    metrics = train.run_training(prep, cfg)
    assert metrics["all_losses_finite"] and metrics["last_loss"] < metrics["first_loss"]
