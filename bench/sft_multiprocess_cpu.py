"""The multi-process SFT paths on CPU (gloo), what a machine without several GPUs can check of the
multi-GPU recipes (docs/sft.md, "Several processes"), on the tiny random model in the Qwen3.6
architecture (Gated DeltaNet + full attention) and the rows build-data makes from the committed
exports:
- the trainer under `accelerate launch` with the shipped FSDP2 config set to 2 processes on the
  CPU (accelerate turns `use_cpu` into plain data parallelism, MULTI_CPU: FSDP in accelerate
  needs GPUs), against one process with the same global batch and seed: losses finite and
  falling, equal within 1% on every step whose global batch is whole; a LoRA adapter trained
  there, saved by rank 0, gives the merged model's logits within 1e-2 (fp32);
- FSDP2 itself (bench/fsdp2_cpu_smoke.py under torchrun): every decoder layer and the root
  sharded, 2 processes against 1 on the same batches (losses within 1%), a sharded checkpoint
  round trip (logits equal);
- with --wheels DIR (bench/sft_wheels.sh DIR 3.11 cpu: DeepSpeed and what it needs): the trainer
  under the shipped ZeRO-3 config set to 2 processes on the CPU (DeepSpeed over gloo, every
  parameter partitioned), against one process (losses within 1%), saving the whole model
  (zero3_save_16bit_model gathers it), and a ZeRO-3 checkpoint written half-way and resumed
  (the resumed steps' losses equal the uninterrupted run's within 1e-5).

Usage (repository root): PYTHON=.tools/py-train/bin/python bench/sft_multiprocess_cpu.py OUT
  [--steps 4] [--fsdp2-steps 10] [--wheels DIR]
Writes OUT/summary.json and the runs' metrics and logs; prints a table last; exit 1 when a check
fails."""
from __future__ import annotations

import argparse
import json
import math
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXPORTS = sorted(str(p) for p in (ROOT / "bench/results").glob(
    "2026-11-29-h200-model-run*/**/export.jsonl*"))  # the committed exports of model runs
SHIPPED_FSDP2 = ROOT / "python/configs/accelerate/fsdp2-8gpu.yaml"
SHIPPED_ZERO3 = ROOT / "python/configs/accelerate/zero3-8gpu.yaml"
TINY_CONFIG = ROOT / "python/configs/tiny-cpu.yaml"
PROCESSES = 2


def run(cmd: list[str], log: pathlib.Path, env: dict[str, str]) -> None:
    with open(log, "w") as out:
        code = subprocess.call(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
    if code != 0:
        sys.exit(f"{' '.join(cmd[:6])} ... failed ({code}); see {log}")


def adapted_config(shipped: pathlib.Path, path: pathlib.Path, **changes) -> pathlib.Path:
    """The shipped accelerate config `shipped` with top-level `changes`, written to `path`."""
    import yaml

    cfg = yaml.safe_load(shipped.read_text())
    cfg.update(changes)
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


def cpu_config(out: pathlib.Path, shipped: pathlib.Path = SHIPPED_FSDP2) -> pathlib.Path:
    """A shipped accelerate config with what a CPU run must change: the process count, the
    device, no bf16 autocast (fp32, so that the runs' losses compare); fsdp_config stays as
    shipped (accelerate ignores it on the CPU), deepspeed_config too (DeepSpeed runs it, over
    gloo)."""
    return adapted_config(shipped, out / f"{shipped.stem}-as-cpu.yaml",
                          num_processes=PROCESSES, use_cpu=True, mixed_precision="no")


def losses(m: dict) -> list[float]:
    """A run's logged losses (metrics.json), in step order."""
    return [h["loss"] for h in m["losses"]] if "losses" in m else []


def largest_relative(a: list[float], b: list[float]) -> float:
    """The largest |a - b| / |b| over two equally long series."""
    return max(abs(x - y) / abs(y) for x, y in zip(a, b, strict=True))


def saved_parameters(folder: pathlib.Path) -> int:
    """Parameter elements in a folder's safetensors (headers only)."""
    from safetensors import safe_open

    total = 0
    for file in sorted(folder.glob("*.safetensors")):
        with safe_open(str(file), "pt") as f:
            names = f.keys()  # safe_open is not iterable
            total += sum(math.prod(f.get_slice(key).get_shape()) for key in names)
    return total


def install_wheels(wheels: str, out: pathlib.Path, python: str) -> str:
    """The wheels in `wheels` installed into OUT/site (for PYTHONPATH); exits on failure."""
    site = out / "site"
    whl = sorted(str(p) for p in pathlib.Path(wheels).glob("*.whl"))
    if not whl:
        sys.exit(f"no wheels in {wheels} (bench/sft_wheels.sh makes them)")
    run([python, "-m", "pip", "install", "-q", "--no-index", "--no-deps", "--no-compile",
         "--upgrade", "--target", str(site), *whl], out / "wheels.log", dict(os.environ))
    return str(site)


def zero3_runs(train, out: pathlib.Path, steps: int) -> dict:
    """The ZeRO-3 trainer runs: 2 processes, the whole model saved; the same run checkpointed
    half-way and resumed from there."""
    config = cpu_config(out, SHIPPED_ZERO3)
    run_ = train("zero3", PROCESSES, 1, "--set", "model.save=true", config=config)
    half = steps // 2
    train("zero3_checkpointed", PROCESSES, 1, "--set", "train.save_strategy=steps",
          "--set", f"train.save_steps={half}", config=config)
    resumed = train("zero3_resumed", PROCESSES, 1, "--set",
                    f"train.resume_from_checkpoint={out / 'zero3_checkpointed' / f'checkpoint-{half}'}",
                    config=config)
    return {"run": run_, "resumed": resumed, "resumed_from_step": half,
            "saved_parameters": saved_parameters(out / "zero3"),
            "tiny_parameters": saved_parameters(out / "tiny"),
            "resume_largest_relative_difference": largest_relative(losses(resumed),
                                                                   losses(run_)[half:])}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--fsdp2-steps", type=int, default=10)
    ap.add_argument("--wheels", help="DeepSpeed's wheels (bench/sft_wheels.sh): ZeRO-3 runs too")
    args = ap.parse_args()
    out = pathlib.Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    python = os.environ.get("PYTHON", sys.executable)
    accelerate = str(pathlib.Path(python).with_name("accelerate"))
    torchrun = str(pathlib.Path(python).with_name("torchrun"))
    path = [str(ROOT / "python")]
    if args.wheels:
        path.insert(0, install_wheels(args.wheels, out, python))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path), TOKENIZERS_PARALLELISM="false")
    sft = [python, "-m", "ptxbench_sft"]
    run([*sft, "build-data", "--export", *EXPORTS, "--out", str(out / "data")],
        out / "build-data.log", env)
    with open(out / "data/train.jsonl") as f:
        rows = sum(1 for _ in f)
    run([*sft, "make-tiny", "--out", str(out / "tiny"), "--kind", "qwen3_5", "--corpus",
         str(out / "data/train.jsonl")], out / "make-tiny.log", env)
    accel = cpu_config(out)
    base = ["--config", str(TINY_CONFIG), "--set", f"model.path={out / 'tiny'}",
            "--set", f"data.train_file={out / 'data/train.jsonl'}",
            "--set", "train.max_length=65536"]  # the real rows, about 9-18K tiny-model tokens

    def train(name: str, processes: int, batch: int, *extra: str,
              config: pathlib.Path = accel) -> dict:
        sets = [*base, "--set", f"train.output_dir={out / name}",
                "--set", f"train.max_steps={args.steps}",
                "--set", f"train.per_device_train_batch_size={batch}", *extra]
        launch = ([accelerate, "launch", "--config_file", str(config), "-m", "ptxbench_sft"]
                  if processes > 1 else sft)
        run([*launch, "train", *sets], out / f"{name}.log", env)
        return json.loads((out / name / "metrics.json").read_text())

    one = train("one_process", 1, PROCESSES)
    two = train("two_processes", PROCESSES, 1)
    lora = train("two_processes_lora", PROCESSES, 1, "--set", "lora.r=8", "--set", "lora.alpha=16",
                 "--set", "model.save=true")
    run([python, str(ROOT / "bench/sft_lora_merge_check.py"), str(out / "tiny"),
         str(out / "two_processes_lora"), str(out / "data/train.jsonl"),
         str(out / "merge_check.json")], out / "merge_check.log", env)
    merge = json.loads((out / "merge_check.json").read_text())
    zero3 = zero3_runs(train, out, args.steps) if args.wheels else {}
    fsdp2 = {}
    for n in (1, PROCESSES):
        run([torchrun, "--nproc_per_node", str(n), str(ROOT / "bench/fsdp2_cpu_smoke.py"),
             str(out / "tiny"), str(out / "data/train.jsonl"), str(out / f"fsdp2_{n}.json"),
             "--steps", str(args.fsdp2_steps)], out / f"fsdp2_{n}.log", env)
        fsdp2[n] = json.loads((out / f"fsdp2_{n}.json").read_text())

    whole = min(args.steps, rows // PROCESSES)  # steps of the first epoch with a whole batch
    trainer_rel = largest_relative(losses(two)[:whole], losses(one)[:whole])
    fsdp2_rel = largest_relative(fsdp2[PROCESSES]["losses"], fsdp2[1]["losses"])
    if zero3:
        zero3["largest_relative_loss_difference"] = largest_relative(
            losses(zero3["run"])[:whole], losses(one)[:whole])
    checks = {
        "trainer_two_processes": two["num_processes"] == PROCESSES
        and two["distributed_type"] == "DistributedType.MULTI_CPU",
        "trainer_losses_finite_and_falling": all(
            m["all_losses_finite"] and m["last_loss"] < m["first_loss"] for m in (one, two, lora)),
        f"trainer_first_{whole}_losses_within_1pct": whole > 0 and trainer_rel <= 0.01,
        "lora_trained_and_merged_logits_within_1e-2": merge["max_abs_lora_B"] > 0
        and merge["max_abs_diff"] <= 1e-2,
        "fsdp2_every_parameter_sharded": fsdp2[PROCESSES]["sharded_parameter_share"] == 1.0,
        "fsdp2_losses_within_1pct": fsdp2_rel <= 0.01,
        "fsdp2_losses_falling": fsdp2[PROCESSES]["losses"][-1] < fsdp2[PROCESSES]["losses"][0],
        "fsdp2_checkpoint_round_trip": fsdp2[PROCESSES][
            "checkpoint_round_trip_max_abs_logit_diff"] <= 1e-6,
    }
    if zero3:
        checks |= {
            "zero3_two_processes_every_parameter_partitioned":
                zero3["run"]["distributed_type"] == "DistributedType.DEEPSPEED"
                and zero3["run"]["num_processes"] == PROCESSES
                and zero3["run"]["sharded_parameter_share"] == 1.0,
            f"zero3_first_{whole}_losses_within_1pct":
                whole > 0 and zero3["largest_relative_loss_difference"] <= 0.01,
            "zero3_whole_model_saved": zero3["saved_parameters"] == zero3["tiny_parameters"],
            "zero3_resumed_losses_equal": zero3["resume_largest_relative_difference"] <= 1e-5,
        }
    summary = {
        "exports": [str(pathlib.Path(e).relative_to(ROOT)) for e in EXPORTS],
        "train_rows": rows,
        "accelerate_config": "python/configs/accelerate/fsdp2-8gpu.yaml with num_processes "
                             f"{PROCESSES}, use_cpu true, mixed_precision no",
        "trainer_runs": {name: {k: m[k] for k in (
            "num_processes", "distributed_type", "sharded_parameter_share", "steps",
            "first_loss", "last_loss", "tokens_per_s", "wall_s", "device")} | {
            "losses": losses(m)} for name, m in (
            ("one_process", one), ("two_processes", two), ("two_processes_lora", lora))},
        "trainer_compared_steps": whole,
        "trainer_largest_relative_loss_difference": trainer_rel,
        "merge_check": merge,
        "fsdp2": {str(n): m for n, m in fsdp2.items()},
        "zero3": {k: v for k, v in zero3.items() if k not in ("run", "resumed")} | (
            {"losses": losses(zero3["run"]), "resumed_losses": losses(zero3["resumed"])}
            if zero3 else {}),
        "fsdp2_largest_relative_loss_difference": fsdp2_rel,
        "versions": two["versions"],
        "checks": checks,
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print("| run | processes | distributed | sharded share | steps | first loss | last loss |")
    print("|---|---|---|---|---|---|---|")
    for name, r in summary["trainer_runs"].items():
        print(f"| {name} | {r['num_processes']} | {r['distributed_type']} | "
              f"{r['sharded_parameter_share']:.2f} | {r['steps']} | {r['first_loss']:.4f} | "
              f"{r['last_loss']:.4f} |")
    for name in ("run", "resumed") if zero3 else ():
        r = zero3[name]
        print(f"| zero3 {name} | {r['num_processes']} | {r['distributed_type']} | "
              f"{r['sharded_parameter_share']:.2f} | {len(r['losses'])} | "
              f"{r['losses'][0]['loss']:.4f} | {r['last_loss']:.4f} |")
    for n, m in fsdp2.items():
        print(f"| fsdp2_cpu_smoke | {n} | {'FSDP2' if n > 1 else 'none'} | "
              f"{m['sharded_parameter_share']:.2f} | {len(m['losses'])} | {m['losses'][0]:.4f} | "
              f"{m['losses'][-1]:.4f} |")
    print(f"trainer: first {whole} losses, 2 processes vs 1, largest relative difference "
          f"{trainer_rel:.2e}; FSDP2: {fsdp2_rel:.2e}; merged vs adapter logits "
          f"{merge['max_abs_diff']:.2e}; FSDP2 checkpoint round trip "
          f"{fsdp2[PROCESSES]['checkpoint_round_trip_max_abs_logit_diff']:.2e}")
    if zero3:
        print(f"ZeRO-3: 2 processes vs 1, largest relative difference "
              f"{zero3['largest_relative_loss_difference']:.2e}; resumed vs uninterrupted "
              f"{zero3['resume_largest_relative_difference']:.2e}; saved "
              f"{zero3['saved_parameters']} of {zero3['tiny_parameters']} parameters")
    for name, ok in checks.items():
        print(f"{'ok  ' if ok else 'FAIL'} {name}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
