"""The SFT recipes on several GPUs of one machine (docs/sft.md, "Several processes"): the shipped
accelerate configs (FSDP2 for LoRA, ZeRO-3 for full fine-tuning) with one process per GPU, on
random models in the Qwen3.6 architecture (make-tiny --kind qwen3_5) and the rows build-data
makes from the committed exports. Two parts, each within one device command:

small: the "smoke" model (~200M parameters, fits one GPU), bf16, STEPS steps, every step a whole
  global batch of N rows (dataloader_drop_last): full fine-tuning on one GPU (batch N) against
  ZeRO-3 on N GPUs (batch 1 each), LoRA on one GPU against FSDP2 LoRA on N (first 10 losses
  within 1%; every loss finite; the last below the first; every parameter sharded); the FSDP2
  adapter's merged model against the adapter model (fp32 logits within 1e-2); a ZeRO-3
  checkpoint written half-way and resumed (the resumed losses within 1% of the uninterrupted
  run's); tokens/s per GPU against one GPU; peak memory of every rank.
large: the "large" model (~11.8B parameters, bf16: too large for full fine-tuning on one GPU),
  made on the machine, ZeRO-3 full fine-tuning on N GPUs for LARGE_STEPS steps, the bf16 weights
  saved at the end (weights only: a checkpoint with optimizer state is ~14 bytes a parameter),
  their parameter count checked; tokens/s and peak memory of every rank.

Usage (GPU machine, repository root; WHEELS from bench/sft_wheels.sh DIR 3.12, plus the
flash-linear-attention wheels for the Gated DeltaNet layers' Triton kernels):
  python3 bench/sft_multi_gpu.py WHEELS OUT --part small|large [--steps 50] [--large-steps 50]
Writes OUT/PART.json and the runs' metrics and logs; prints a table last; exit 1 when a check
fails."""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from sft_multiprocess_cpu import (
    EXPORTS,
    adapted_config,
    install_wheels,
    largest_relative,
    losses,
    run,
    saved_parameters,
)

ROOT = pathlib.Path(__file__).resolve().parents[1]
ACCELERATE = ROOT / "python/configs/accelerate"
SMOKE_CONFIG = ROOT / "python/configs/smoke-h200.yaml"
COMPARED_LOSSES = 10


def gpu_config(out: pathlib.Path, shipped: str, processes: int) -> pathlib.Path:
    """A shipped accelerate config with the process count set to the GPUs used."""
    return adapted_config(ACCELERATE / shipped, out / shipped.replace("8gpu", f"{processes}gpu"),
                          num_processes=processes)


class Runs:
    """Trainer runs of one part: each writes OUT/NAME/metrics.json and OUT/NAME.log."""

    def __init__(self, out: pathlib.Path, env: dict[str, str], model: pathlib.Path, steps: int):
        self.out, self.env, self.model, self.steps = out, env, model, steps
        self.sft = [sys.executable, "-m", "ptxbench_sft"]

    def train(self, name: str, config: pathlib.Path | None, batch: int, *sets: str) -> dict:
        launch = self.sft if config is None else [
            sys.executable, "-m", "accelerate.commands.launch", "--config_file", str(config),
            "-m", "ptxbench_sft"]
        args = ["train", "--config", str(SMOKE_CONFIG)]
        for s in (f"model.path={self.model}", f"data.train_file={self.out / 'data/train.jsonl'}",
                  f"train.output_dir={self.out / name}", f"train.max_steps={self.steps}",
                  f"train.per_device_train_batch_size={batch}", "train.dataloader_drop_last=true",
                  *sets):
            args += ["--set", s]
        start = time.perf_counter()
        run([*launch, *args], self.out / f"{name}.log", self.env)
        metrics = json.loads((self.out / name / "metrics.json").read_text())
        metrics["launch_wall_s"] = time.perf_counter() - start  # start-up and saving included
        return metrics


def row(name: str, m: dict) -> dict:
    peaks = m.get("peak_gpu_memory_bytes_per_rank") or []
    return {"processes": m["num_processes"], "distributed": m["distributed_type"],
            "sharded_share": m["sharded_parameter_share"], "steps": m["steps"],
            "losses": losses(m), "tokens_per_s": m["tokens_per_s"],
            "tokens_per_s_per_gpu": m["tokens_per_s"] / m["num_processes"],
            "peak_gib_per_rank": [p / 2**30 for p in peaks], "wall_s": m["wall_s"],
            "launch_wall_s": m["launch_wall_s"], "name": name}


def part_small(runs: Runs, gpus: int) -> tuple[dict, dict]:
    lora = ["lora.r=16", "lora.alpha=32"]
    zero3 = gpu_config(runs.out, "zero3-8gpu.yaml", gpus)
    fsdp2 = gpu_config(runs.out, "fsdp2-8gpu.yaml", gpus)
    one = runs.train("one_gpu_full", None, gpus)
    z3 = runs.train("zero3_full", zero3, 1)
    one_lora = runs.train("one_gpu_lora", None, gpus, *lora)
    # FSDP2 checkpoints the layers itself (fsdp_activation_checkpointing): not the trainer too.
    f2 = runs.train("fsdp2_lora", fsdp2, 1, *lora, "train.gradient_checkpointing=false",
                    "model.save=true")
    half = runs.steps // 2  # NOTE: the whole run, saved half-way: the same LR schedule
    runs.train("zero3_checkpointed", zero3, 1, "train.save_strategy=steps",
               f"train.save_steps={half}")
    resumed = runs.train("zero3_resumed", zero3, 1, "train.resume_from_checkpoint="
                         f"{runs.out / 'zero3_checkpointed' / f'checkpoint-{half}'}")
    run([sys.executable, str(ROOT / "bench/sft_lora_merge_check.py"), str(runs.model),
         str(runs.out / "fsdp2_lora"), str(runs.out / "data/train.jsonl"),
         str(runs.out / "merge_check.json")], runs.out / "merge_check.log", runs.env)
    merge = json.loads((runs.out / "merge_check.json").read_text())
    n = COMPARED_LOSSES
    all_runs = {"one_gpu_full": one, "zero3_full": z3, "one_gpu_lora": one_lora,
                "fsdp2_lora": f2, "zero3_resumed": resumed}
    checks = {
        "losses_finite_and_falling": all(m["all_losses_finite"] and m["last_loss"] < m["first_loss"]
                                         for m in (one, z3, one_lora, f2)),
        f"zero3_first_{n}_losses_within_1pct_of_one_gpu":
            largest_relative(losses(z3)[:n], losses(one)[:n]) <= 0.01,
        f"fsdp2_lora_first_{n}_losses_within_1pct_of_one_gpu":
            largest_relative(losses(f2)[:n], losses(one_lora)[:n]) <= 0.01,
        "zero3_and_fsdp2_on_every_gpu_every_parameter_sharded": all(
            m["num_processes"] == gpus and m["sharded_parameter_share"] == 1.0 for m in (z3, f2)),
        "lora_merged_logits_within_1e-2": merge["max_abs_lora_B"] > 0
        and merge["max_abs_diff"] <= 1e-2,
        "zero3_resumed_losses_within_1pct": largest_relative(losses(resumed),
                                                             losses(z3)[half:]) <= 0.01,
    }
    summary = {"runs": {name: row(name, m) for name, m in all_runs.items()}, "merge": merge,
               "tokens_per_s_per_gpu_vs_one_gpu": {
                   "zero3_full": z3["tokens_per_s"] / gpus / one["tokens_per_s"],
                   "fsdp2_lora": f2["tokens_per_s"] / gpus / one_lora["tokens_per_s"]}}
    return summary, checks


def part_large(runs: Runs, gpus: int, corpus: pathlib.Path) -> tuple[dict, dict]:
    start = time.perf_counter()
    run([*runs.sft, "make-tiny", "--out", str(runs.model), "--kind", "qwen3_5", "--size", "large",
         "--dtype", "bfloat16", "--corpus", str(corpus)], runs.out / "make-large.log", runs.env)
    made_s = time.perf_counter() - start
    model_params = saved_parameters(runs.model)
    z3 = runs.train("zero3_large", gpu_config(runs.out, "zero3-8gpu.yaml", gpus), 1,
                    "model.save=true")
    saved = saved_parameters(runs.out / "zero3_large")
    checks = {
        "losses_finite_and_falling": z3["all_losses_finite"] and z3["last_loss"] < z3["first_loss"],
        "every_parameter_partitioned_on_every_gpu": z3["num_processes"] == gpus
        and z3["sharded_parameter_share"] == 1.0,
        "too_large_for_one_gpu_at_16_bytes_a_parameter": model_params * 16 > 141e9,
        "saved_weights_are_the_whole_model": saved == model_params,
    }
    summary = {"runs": {"zero3_large": row("zero3_large", z3)}, "model_parameters": model_params,
               "saved_parameters": saved, "make_model_s": made_s,
               "saved_bytes": sum(f.stat().st_size
                                  for f in (runs.out / "zero3_large").glob("*.safetensors"))}
    return summary, checks


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wheels")
    ap.add_argument("out")
    ap.add_argument("--part", choices=("small", "large"), required=True)
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--large-steps", type=int, default=50)
    args = ap.parse_args()
    import torch

    gpus = torch.cuda.device_count()
    if gpus < 2:
        sys.exit(f"{gpus} GPU(s): this run needs several")
    out = pathlib.Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    site = install_wheels(args.wheels, out, sys.executable)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([site, str(ROOT / "python")]),
               TOKENIZERS_PARALLELISM="false", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               HF_DATASETS_OFFLINE="1", PYTHONUNBUFFERED="1")
    sft = [sys.executable, "-m", "ptxbench_sft"]
    run([*sft, "build-data", "--export", *EXPORTS, "--out", str(out / "data")],
        out / "build-data.log", env)
    if args.part == "small":
        model = out / "smoke"
        run([*sft, "make-tiny", "--out", str(model), "--kind", "qwen3_5", "--size", "smoke",
             "--corpus", str(out / "data/train.jsonl")], out / "make-smoke.log", env)
        summary, checks = part_small(Runs(out, env, model, args.steps), gpus)
    else:
        summary, checks = part_large(Runs(out, env, out / "large", args.large_steps), gpus,
                                     out / "data/train.jsonl")
    summary |= {"gpus": gpus, "device": torch.cuda.get_device_name(0), "checks": checks}
    (out / f"{args.part}.json").write_text(json.dumps(summary, indent=2) + "\n")
    print("| run | GPUs | distributed | sharded | steps | first loss | last loss | tokens/s/GPU "
          "| peak GiB per rank |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in summary["runs"].values():
        print(f"| {r['name']} | {r['processes']} | {r['distributed']} | {r['sharded_share']:.2f} "
              f"| {r['steps']} | {r['losses'][0]:.4f} | {r['losses'][-1]:.4f} | "
              f"{r['tokens_per_s_per_gpu']:.0f} | "
              f"{' '.join(f'{p:.1f}' for p in r['peak_gib_per_rank'])} |")
    for name, ok in checks.items():
        print(f"{'ok  ' if ok else 'FAIL'} {name}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
