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
  round trip (logits equal).

Usage (repository root): PYTHON=.tools/py-train/bin/python bench/sft_multiprocess_cpu.py OUT
  [--steps 4] [--fsdp2-steps 10]
Writes OUT/summary.json and the runs' metrics and logs; prints a table last; exit 1 when a check
fails."""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXPORTS = sorted(str(p) for p in (ROOT / "bench/results").glob(
    "2026-11-29-h200-model-run*/**/export.jsonl*"))  # the committed exports of model runs
SHIPPED_FSDP2 = ROOT / "python/configs/accelerate/fsdp2-8gpu.yaml"
TINY_CONFIG = ROOT / "python/configs/tiny-cpu.yaml"
PROCESSES = 2


def run(cmd: list[str], log: pathlib.Path, env: dict[str, str]) -> None:
    with open(log, "w") as out:
        code = subprocess.call(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
    if code != 0:
        sys.exit(f"{' '.join(cmd[:6])} ... failed ({code}); see {log}")


def cpu_config(out: pathlib.Path) -> pathlib.Path:
    """The shipped FSDP2 config with what a CPU run must change: the process count, the device,
    no bf16 autocast (fp32, so that the runs' losses compare); fsdp_config stays as shipped
    (accelerate ignores it on the CPU)."""
    import yaml

    cfg = yaml.safe_load(SHIPPED_FSDP2.read_text())
    cfg.update(num_processes=PROCESSES, use_cpu=True, mixed_precision="no")
    path = out / "fsdp2-8gpu-as-cpu.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--fsdp2-steps", type=int, default=10)
    args = ap.parse_args()
    out = pathlib.Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    python = os.environ.get("PYTHON", sys.executable)
    accelerate = str(pathlib.Path(python).with_name("accelerate"))
    torchrun = str(pathlib.Path(python).with_name("torchrun"))
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"), TOKENIZERS_PARALLELISM="false")
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

    def train(name: str, processes: int, batch: int, *extra: str) -> dict:
        sets = [*base, "--set", f"train.output_dir={out / name}",
                "--set", f"train.max_steps={args.steps}",
                "--set", f"train.per_device_train_batch_size={batch}", *extra]
        launch = ([accelerate, "launch", "--config_file", str(accel), "-m", "ptxbench_sft"]
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
    fsdp2 = {}
    for n in (1, PROCESSES):
        run([torchrun, "--nproc_per_node", str(n), str(ROOT / "bench/fsdp2_cpu_smoke.py"),
             str(out / "tiny"), str(out / "data/train.jsonl"), str(out / f"fsdp2_{n}.json"),
             "--steps", str(args.fsdp2_steps)], out / f"fsdp2_{n}.log", env)
        fsdp2[n] = json.loads((out / f"fsdp2_{n}.json").read_text())

    def losses(m: dict) -> list[float]:
        return [h["loss"] for h in m["losses"]] if "losses" in m else []

    def largest_relative(a: list[float], b: list[float]) -> float:
        return max(abs(x - y) / abs(y) for x, y in zip(a, b, strict=True))

    whole = min(args.steps, rows // PROCESSES)  # steps of the first epoch with a whole batch
    trainer_rel = largest_relative(losses(two)[:whole], losses(one)[:whole])
    fsdp2_rel = largest_relative(fsdp2[PROCESSES]["losses"], fsdp2[1]["losses"])
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
    for n, m in fsdp2.items():
        print(f"| fsdp2_cpu_smoke | {n} | {'FSDP2' if n > 1 else 'none'} | "
              f"{m['sharded_parameter_share']:.2f} | {len(m['losses'])} | {m['losses'][0]:.4f} | "
              f"{m['losses'][-1]:.4f} |")
    print(f"trainer: first {whole} losses, 2 processes vs 1, largest relative difference "
          f"{trainer_rel:.2e}; FSDP2: {fsdp2_rel:.2e}; merged vs adapter logits "
          f"{merge['max_abs_diff']:.2e}; FSDP2 checkpoint round trip "
          f"{fsdp2[PROCESSES]['checkpoint_round_trip_max_abs_logit_diff']:.2e}")
    for name, ok in checks.items():
        print(f"{'ok  ' if ok else 'FAIL'} {name}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
