"""Supervised fine-tuning on build-data rows with TRL's SFTTrainer (docs/sft.md).

Contract: the loss is on the completion only (prompt-completion rows, ``completion_only_loss``);
each row is rendered with its own ``chat_template_kwargs``, exactly as the evaluation client's
server renders ``request.messages``; rows longer than ``train.max_length`` tokens are dropped and
counted, never truncated; no packing. Writes ``metrics.json`` (and the model or LoRA adapter) to
``train.output_dir``. Bad input raises ``InputError``; the CLI prints it on one line, exit code 2.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import InputError

# Sections and their keys; "train" takes any SFTConfig field (checked against TRL at load time).
MODEL_KEYS = {"path", "dtype", "attn_implementation", "save"}
DATA_KEYS = {"train_file", "eval_file"}
LORA_KEYS = {"r", "alpha", "dropout", "target_modules"}
SECTIONS = ("model", "data", "train", "lora")
DTYPES = ("float32", "bfloat16")
# SFTConfig values this pipeline depends on: a config may repeat them, never change them.
# (logging_nan_inf_filter would replace a NaN loss in the logs, so metrics.json could not see it.)
FIXED_TRAIN = {"completion_only_loss": True, "assistant_only_loss": False, "packing": False,
               "loss_type": "nll", "report_to": "none", "logging_nan_inf_filter": False}
ROW_COLUMNS = ("prompt", "completion", "chat_template_kwargs")
METRICS_FILE = "metrics.json"
METRICS_SCHEMA = 1


# --------------------------------------------------------------------------- config


@dataclass
class Config:
    model: dict[str, Any]
    data: dict[str, Any]
    train: dict[str, Any]
    lora: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        out = {"model": self.model, "data": self.data, "train": self.train}
        return out | ({"lora": self.lora} if self.lora is not None else {})


def apply_override(raw: dict[str, Any], item: str) -> None:
    """``section.key=value`` (value parsed as YAML) into the raw config mapping."""
    import yaml

    key, sep, value = item.partition("=")
    parts = key.strip().split(".")
    if not sep or len(parts) != 2 or not all(parts):
        raise InputError(f"--set expects section.key=value, got {item!r}")
    section = raw.setdefault(parts[0], {})
    if not isinstance(section, dict):
        raise InputError(f"config section {parts[0]!r} is not a mapping")
    section[parts[1]] = yaml.safe_load(value)


def sft_config_fields() -> dict[str, str]:
    """SFTConfig field name -> its annotated type, as text."""
    import dataclasses

    from trl import SFTConfig

    return {f.name: str(f.type) for f in dataclasses.fields(SFTConfig)}


def _floats_from_text(train: dict[str, Any], fields: dict[str, str]) -> None:
    """YAML 1.1 reads ``1e-4`` (no dot) as a string; SFTConfig would keep it and fail later."""
    for key, value in train.items():
        if isinstance(value, str) and "float" in fields[key] and "str" not in fields[key]:
            try:
                train[key] = float(value)
            except ValueError as e:
                raise InputError(f"train.{key} must be a number, got {value!r}") from e


def _check_keys(section: str, values: dict[str, Any], known: set[str]) -> None:
    for key in values:
        if key not in known:
            raise InputError(f"unknown config key '{section}.{key}'")


def validate(raw: Any) -> Config:
    """Check sections, keys and values; the ``train`` keys against TRL's SFTConfig fields."""
    if not isinstance(raw, dict):
        raise InputError("config must be a YAML mapping of sections")
    for name, body in raw.items():
        if name not in SECTIONS:
            raise InputError(f"unknown config key '{name}' (sections: {', '.join(SECTIONS)})")
        if not isinstance(body, dict):
            raise InputError(f"config section '{name}' must be a mapping")
    model, data = dict(raw.get("model") or {}), dict(raw.get("data") or {})
    train, lora = dict(raw.get("train") or {}), raw.get("lora")
    _check_keys("model", model, MODEL_KEYS)
    _check_keys("data", data, DATA_KEYS)
    fields = sft_config_fields()
    _check_keys("train", train, set(fields))
    _floats_from_text(train, fields)
    for section, key in (("model", "path"), ("data", "train_file"), ("train", "output_dir")):
        if not raw.get(section, {}).get(key):
            raise InputError(f"missing config key '{section}.{key}'")
    model.setdefault("dtype", "float32")
    model.setdefault("attn_implementation", "sdpa")
    model.setdefault("save", True)
    if model["dtype"] not in DTYPES:
        raise InputError(f"model.dtype must be one of {DTYPES}, got {model['dtype']!r}")
    max_length = train.get("max_length")
    if not isinstance(max_length, int) or isinstance(max_length, bool) or max_length <= 0:
        raise InputError("train.max_length must be a positive integer (longer rows are dropped)")
    for key, value in FIXED_TRAIN.items():
        if key in train and train[key] != value:
            raise InputError(f"train.{key} must be {value!r} in this pipeline, got {train[key]!r}")
    return Config(model=model, data=data, train=train,
                  lora=None if lora is None else _validate_lora(dict(lora)))


def _validate_lora(lora: dict[str, Any]) -> dict[str, Any]:
    _check_keys("lora", lora, LORA_KEYS)
    lora.setdefault("target_modules", "all-linear")
    lora.setdefault("dropout", 0.0)
    if not isinstance(lora.get("r"), int) or lora["r"] <= 0 or "alpha" not in lora:
        raise InputError("lora needs a positive integer 'r' and an 'alpha'")
    if not 0.0 <= float(lora["dropout"]) < 1.0:
        raise InputError("lora.dropout must be in [0, 1)")
    return lora


def load_config(path: str | Path, overrides: list[str] | tuple[str, ...] = ()) -> Config:
    import yaml

    path = Path(path)
    if not path.is_file():
        raise InputError(f"config file not found: {path}")
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as e:
        raise InputError(f"{path}: not valid YAML: {' '.join(str(e).split())}") from e
    if not isinstance(raw, dict):
        raise InputError(f"{path}: config must be a YAML mapping of sections")
    for item in overrides:
        apply_override(raw, item)
    return validate(raw)


# --------------------------------------------------------------------------- rows


def _check_message(where: str, m: Any) -> None:
    if not isinstance(m, dict) or not isinstance(m.get("role"), str):
        raise InputError(f"{where}: each message needs a string 'role'")
    if not isinstance(m.get("content"), str):
        raise InputError(f"{where}: message content must be a string")
    if m.get("reasoning_content") is not None and not isinstance(m["reasoning_content"], str):
        raise InputError(f"{where}: reasoning_content must be a string")


def check_row(where: str, row: Any) -> dict[str, Any]:
    """The training columns of one build-data row, or InputError naming what is wrong."""
    if not isinstance(row, dict):
        raise InputError(f"{where}: row is not a JSON object")
    prompt, completion = row.get("prompt"), row.get("completion")
    if not isinstance(prompt, list) or not prompt:
        raise InputError(f"{where}: 'prompt' must be a non-empty list of messages")
    if not isinstance(completion, list) or len(completion) != 1:
        raise InputError(f"{where}: 'completion' must hold exactly one message")
    for m in prompt + completion:
        _check_message(where, m)
    if completion[0]["role"] != "assistant":
        raise InputError(f"{where}: the completion message must have role 'assistant'")
    if not isinstance(row.get("chat_template_kwargs"), dict):
        raise InputError(f"{where}: 'chat_template_kwargs' must be an object "
                         "(the thinking policy shared with the evaluation client)")
    return {k: row[k] for k in ROW_COLUMNS}


def read_rows(path: str | Path) -> list[dict[str, Any]]:
    path = Path(path)
    if not path.is_file():
        raise InputError(f"data file not found: {path}")
    rows = []
    with path.open(encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise InputError(f"{path}:{lineno}: not JSON ({e.msg})") from e
            rows.append(check_row(f"{path}:{lineno}", obj))
    if not rows:
        raise InputError(f"no rows in {path}")
    return rows


def render(tokenizer, row: dict[str, Any], generation_prompt: bool) -> str:
    """The prompt (with the generation prompt) or prompt + completion, as text."""
    messages = row["prompt"] if generation_prompt else row["prompt"] + row["completion"]
    return tokenizer.apply_chat_template(messages, tokenize=False,
                                         add_generation_prompt=generation_prompt,
                                         **row["chat_template_kwargs"])


@dataclass
class RowSelection:
    dataset: Any  # datasets.Dataset with ROW_COLUMNS
    used: int = 0
    dropped_over_length: int = 0
    lengths: list[int] = field(default_factory=list)


def select_rows(tokenizer, rows: list[dict[str, Any]], max_length: int,
                name: str = "train") -> RowSelection:
    """Drop rows over ``max_length`` tokens (prompt + completion, as the trainer tokenizes them)
    and check each kept row renders the same from the Arrow dataset (which fills missing keys
    with None) as from the JSON, and that its prompt rendering is a prefix of the full one."""
    from datasets import Dataset

    kept, lengths, numbers = [], [], []
    for i, row in enumerate(rows):
        full = render(tokenizer, row, generation_prompt=False)
        if not full.startswith(render(tokenizer, row, generation_prompt=True)):
            raise InputError(f"{name} row {i}: the prompt rendering is not a prefix of the "
                             "prompt+completion rendering (reasoning with enable_thinking=false?)")
        n = len(tokenizer(full, add_special_tokens=False)["input_ids"])
        if n <= max_length:
            kept.append(row)
            lengths.append(n)
            numbers.append(i)
    if not kept:
        raise InputError(f"all {len(rows)} {name} rows are longer than max_length {max_length}")
    dataset = Dataset.from_list(kept)
    for i, row in enumerate(kept):
        if render(tokenizer, dataset[i], False) != render(tokenizer, row, False):
            raise InputError(f"{name} row {numbers[i]}: the chat template renders the Arrow row "
                             "(missing keys filled with None) differently from the JSON row")
    return RowSelection(dataset, len(kept), len(rows) - len(kept), lengths)


# --------------------------------------------------------------------------- trainer


def _metered_trainer_class():
    import torch
    from transformers import TrainerCallback
    from trl import SFTTrainer

    class LossRecorder(TrainerCallback):
        """Keeps every logged training loss with its step (logging_steps=1 -> every step)."""

        def __init__(self) -> None:
            self.history: list[dict[str, float]] = []

        def on_log(self, args, state, control, logs=None, **kwargs):
            if logs and "loss" in logs:
                self.history.append({"step": state.global_step, "loss": float(logs["loss"]),
                                     "learning_rate": float(logs.get("learning_rate", 0.0))})

    class MeteredSFTTrainer(SFTTrainer):
        """SFTTrainer that counts the tokens each training forward processes: non-pad tokens
        (attention mask) and labelled completion tokens, kept on the device until the end."""

        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
            if model.training:
                step = torch.stack([inputs["attention_mask"].sum(),
                                    (inputs["labels"] != -100).sum()]).to(torch.int64)
                counts = getattr(self, "_token_counts", None)
                self._token_counts = step if counts is None else counts + step
            return super().compute_loss(model, inputs, return_outputs, num_items_in_batch)

        def token_counts(self) -> tuple[int, int]:
            """(tokens, completion tokens) summed over processes; every process must call it."""
            counts = getattr(self, "_token_counts", None)
            if counts is None:
                counts = torch.zeros(2, dtype=torch.int64, device=self.accelerator.device)
            total = self.accelerator.reduce(counts, reduction="sum")
            return int(total[0]), int(total[1])

    return MeteredSFTTrainer, LossRecorder


def sft_args(cfg: Config):
    from trl import SFTConfig

    try:
        return SFTConfig(**{**cfg.train, **FIXED_TRAIN})
    except (TypeError, ValueError) as e:
        raise InputError(f"invalid train section: {' '.join(str(e).split())}") from e


def lora_config(cfg: Config):
    if cfg.lora is None:
        return None
    from peft import LoraConfig

    return LoraConfig(r=cfg.lora["r"], lora_alpha=cfg.lora["alpha"],
                      lora_dropout=float(cfg.lora["dropout"]),
                      target_modules=cfg.lora["target_modules"], task_type="CAUSAL_LM")


def _load(what: str, from_pretrained, path: str, **kwargs):
    """``from_pretrained``, with a missing or unreadable path reported as InputError."""
    try:
        return from_pretrained(path, **kwargs)
    except OSError as e:
        raise InputError(f"cannot load the {what} from {path}: "
                         f"{str(e).strip().splitlines()[0]}") from e


@dataclass
class Prepared:
    trainer: Any
    recorder: Any
    train_rows: RowSelection
    eval_rows: RowSelection | None


def prepare(cfg: Config) -> Prepared:
    """Tokenizer, rows, model and trainer, ready to train (the tests inspect it untrained)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    # NOTE: SFTConfig before the model: under accelerate + DeepSpeed ZeRO-3 building the
    # arguments activates zero.Init, so from_pretrained then loads the weights sharded.
    args = sft_args(cfg)
    model_path = cfg.model["path"]
    tokenizer = _load("tokenizer", AutoTokenizer.from_pretrained, model_path)
    if not getattr(tokenizer, "chat_template", None):
        raise InputError(f"the tokenizer at {model_path} has no chat template")
    train_rows = select_rows(tokenizer, read_rows(cfg.data["train_file"]), args.max_length)
    eval_rows = None
    if cfg.data.get("eval_file"):
        eval_rows = select_rows(tokenizer, read_rows(cfg.data["eval_file"]), args.max_length,
                                "eval")
    model = _load("model", AutoModelForCausalLM.from_pretrained, model_path,
                  dtype=getattr(torch, cfg.model["dtype"]),
                  attn_implementation=cfg.model["attn_implementation"])
    trainer_cls, recorder_cls = _metered_trainer_class()
    recorder = recorder_cls()
    trainer = trainer_cls(model=model, args=args, train_dataset=train_rows.dataset,
                          eval_dataset=eval_rows.dataset if eval_rows else None,
                          processing_class=tokenizer, peft_config=lora_config(cfg),
                          callbacks=[recorder])
    return Prepared(trainer, recorder, train_rows, eval_rows)


# --------------------------------------------------------------------------- run


def versions() -> dict[str, str]:
    import accelerate
    import datasets
    import peft
    import torch
    import transformers
    import trl

    return {m.__name__: m.__version__ for m in (torch, transformers, trl, peft, accelerate,
                                                  datasets)}


def device_name(trainer) -> str:
    import platform

    import torch

    if trainer.args.device.type == "cuda":
        return torch.cuda.get_device_name(trainer.args.device)
    return f"cpu ({platform.machine()}, {torch.get_num_threads()} threads)"


def sharded_parameter_share(model) -> float:
    """The share of the model's parameter elements held sharded: DTensor shards (FSDP2 shards
    every wrapped parameter) or DeepSpeed ZeRO-3 partitions (a parameter with ``ds_numel``, its
    whole size; its local tensor is empty between uses); 0 without sharding. A multi-process run
    proves it sharded with this."""
    from torch.distributed.tensor import DTensor

    total = sharded = 0
    for p in model.parameters():
        zero3 = getattr(p, "ds_numel", None)
        numel = zero3 if zero3 is not None else p.numel()  # a DTensor's numel is the whole's
        total += numel
        sharded += numel if zero3 is not None or isinstance(p, DTensor) else 0
    return sharded / total if total else 0.0


def peak_memory_per_rank(trainer) -> list[int] | None:
    """Every process's peak allocated GPU memory in bytes, in rank order (None on the CPU).
    Every process must call it (a collective)."""
    import torch

    if trainer.args.device.type != "cuda":
        return None
    peak = torch.tensor([torch.cuda.max_memory_allocated(trainer.args.device)],
                        dtype=torch.int64, device=trainer.args.device)
    return [int(v) for v in trainer.accelerator.gather(peak).tolist()]


def write_json_atomic(path: Path, obj: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(obj, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(path)


def _length_summary(lengths: list[int]) -> dict[str, float]:
    """Token lengths of the rows used (prompt + completion)."""
    return {"min": min(lengths), "max": max(lengths), "mean": sum(lengths) / len(lengths)}


def run_training(prep: Prepared, cfg: Config) -> dict[str, Any]:
    """Train, then write metrics.json and (unless model.save is false) the model or adapter."""
    import torch

    trainer = prep.trainer
    on_cuda = trainer.args.device.type == "cuda"
    if on_cuda:
        torch.cuda.reset_peak_memory_stats(trainer.args.device)
    start = time.perf_counter()
    # NOTE: a checkpoint directory (or true: the newest in output_dir) resumes model, optimizer,
    # scheduler, RNG and data order from it; the losses then continue where it was written.
    trainer.train(resume_from_checkpoint=trainer.args.resume_from_checkpoint)
    wall_s = time.perf_counter() - start
    tokens, completion_tokens = trainer.token_counts()
    peaks = peak_memory_per_rank(trainer)
    losses = prep.recorder.history
    metrics = {
        "schema": METRICS_SCHEMA,
        "steps": trainer.state.global_step,
        "losses": losses,
        "first_loss": losses[0]["loss"] if losses else None,
        "last_loss": losses[-1]["loss"] if losses else None,
        "all_losses_finite": all(math.isfinite(h["loss"]) for h in losses),
        "wall_s": wall_s,
        "train_tokens": tokens,
        "train_completion_tokens": completion_tokens,
        "tokens_per_s": tokens / wall_s if wall_s > 0 else None,
        "completion_tokens_per_s": completion_tokens / wall_s if wall_s > 0 else None,
        "peak_gpu_memory_bytes": peaks[0] if peaks else None,  # rank 0, which writes this
        "peak_gpu_memory_bytes_per_rank": peaks,
        "resumed_from_checkpoint": trainer.args.resume_from_checkpoint,
        "num_processes": trainer.accelerator.num_processes,
        "distributed_type": str(trainer.accelerator.distributed_type),
        "sharded_parameter_share": sharded_parameter_share(trainer.model),
        "device": device_name(trainer),
        "versions": versions(),
        "row_tokens": _length_summary(prep.train_rows.lengths),
        "rows": {"train_used": prep.train_rows.used,
                 "train_dropped_over_length": prep.train_rows.dropped_over_length,
                 "eval_used": prep.eval_rows.used if prep.eval_rows else 0,
                 "eval_dropped_over_length": (prep.eval_rows.dropped_over_length
                                              if prep.eval_rows else 0)},
        "lora": cfg.lora is not None,
        "config": cfg.as_dict(),
    }
    out = Path(trainer.args.output_dir)
    if cfg.model["save"]:
        trainer.save_model(str(out))  # the adapter alone under LoRA
    if trainer.is_world_process_zero():
        out.mkdir(parents=True, exist_ok=True)
        write_json_atomic(out / METRICS_FILE, metrics)
    return metrics


def train(cfg: Config) -> dict[str, Any]:
    return run_training(prepare(cfg), cfg)


# --------------------------------------------------------------------------- CLI


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", required=True, metavar="FILE.yaml")
    p.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE",
                   dest="overrides", help="override one config value (YAML); repeatable")


def run_cli(args: argparse.Namespace) -> int:
    metrics = train(load_config(args.config, args.overrides))
    summary = {k: metrics[k] for k in ("steps", "first_loss", "last_loss", "wall_s",
                                       "tokens_per_s", "rows")}
    print(json.dumps(summary, sort_keys=True))
    return 0
