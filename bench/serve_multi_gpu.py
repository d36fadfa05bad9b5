#!/usr/bin/env python3
"""Multi-GPU session for `ptxbench serve` (the multi-GPU issue, docs/serve.md): how judging
throughput scales with the GPUs of one host, and whether workers on different GPUs disturb each
other's timing.

Usage (a machine with one or more GPUs, repository root):
  bench/serve_multi_gpu.py BIN_DIR OUT_DIR PART [--gpus N,N,...] [--copies K] [--budget S]

Parts (one per device call; each adds its results to OUT_DIR/multi_gpu.json):
  warm          compiles the batch's sources into the compile cache (OUT_DIR/cache) with the GPUs
                hidden (CUDA_VISIBLE_DEVICES=""), so that the throughput part judges with every
                compile cached; its seconds are the compile cost, measured apart
  throughput    the batch through `serve --gpus 0..n-1` for each n of --gpus (default 1 and
                every count up to the GPUs present, at most 4): seconds from the first submit to
                the last verdict, evaluations per hour, and the ratio to n = 1 (target: 1.8 with
                2 GPUs, 3.4 with 4)
  interference  the TMA GEMM expert judged by `ptxbench eval` on GPU 0 twice with the other GPUs
                idle, then twice while `serve` on the other GPUs judges a hostile batch (hangs,
                crashes, memory grabs, fork bombs): the largest relative change of a timed
                shape's median speedup (target: within 2%)
The batch: K copies (--copies, default 3) of the TMA GEMM and attention forward experts and of
three broken submissions (an illegal address, a wrong result, a hang), each copy with a distinct
source (so every one compiles once, in `warm`). Run `warm` first; the machine's GPUs, driver
and clocks go into the report.
"""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_session import Server, prepare_session, request, source, submit, wait_done

EXPERTS = [("sm90/gemm/bf16-wgmma-tma", "kernels/reference/sm90_gemm_bf16_wgmma_tma.cu"),
           ("sm90/attention/fwd-bf16", "kernels/reference/sm90_attention_fwd_bf16.cu")]
BROKEN = [("sm90/gemm/bf16-wgmma", "tests/adversarial/illegal_address.cu"),
          ("sm90/gemm/bf16-wgmma", "tests/adversarial/visible_shapes_only.cu"),
          ("sm90/gemm/bf16-wgmma", "tests/adversarial/infinite_loop.cu")]
HOSTILE = BROKEN + [("sm90/gemm/bf16-wgmma", "tests/adversarial/grab_all_gpu_memory.cu"),
                    ("sm90/gemm/bf16-wgmma", "tests/adversarial/fork_bomb.cu")]
CONTROL = EXPERTS[0]


def option(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def nvidia_smi(*args):
    """nvidia-smi's output lines; none on a machine without it."""
    try:
        return subprocess.run(["nvidia-smi", *args], capture_output=True, text=True,
                              check=False).stdout.strip().splitlines()
    except OSError:
        return []


def gpus_present():
    return len([line for line in nvidia_smi("-L") if line.startswith("GPU ")])


def machine():
    return {"nvidia_smi": nvidia_smi("--query-gpu=index,name,driver_version,clocks.sm,"
                                     "clocks.max.sm,power.limit,temperature.gpu",
                                     "--format=csv,noheader"),
            "date": time.strftime("%FT%TZ", time.gmtime()),
            "commit": os.environ.get("PTXB_COMMIT", "unknown")}


def batch(copies):
    """(task, source text, label) for every job of the batch, distinct sources throughout."""
    jobs = []
    for k in range(copies):
        for task, path in EXPERTS + BROKEN:
            label = f"{os.path.basename(path)}#{k}"
            jobs.append((task, source(path, f"multi-gpu {label}"), label))
    return jobs


def warm(exe, out, jobs):
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")  # the static stage only: compile, no GPU
    t0 = time.time()
    for n, (task, code, _) in enumerate(jobs):
        path = os.path.join(out, "src", f"job{n}.cu")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(code)
        subprocess.run([exe, "eval", path, "--task", task, "--json-out", path + ".json"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, env=env, check=False)
    return {"jobs": len(jobs), "compile_seconds": time.time() - t0}


def throughput(exe, out, jobs, counts, t_end):
    rows = []
    for n in counts:
        if time.time() > t_end - 60:
            rows.append({"gpus": n, "skipped": "the part's budget ran out"})
            continue
        server = Server(exe, os.path.join(out, f"throughput{n}.db"), out,
                        gpus=",".join(str(g) for g in range(n)), compile_threads=2 * n)
        t0 = time.time()
        ids = [submit(task, code) for task, code, _ in jobs]
        done = wait_done(ids, t_end - 10)
        wall = time.time() - t0
        metrics = request("GET", "/v1/metrics")[1]
        server.stop()
        outcomes = {}
        for i, (_, _, label) in zip(ids, jobs):
            outcomes[label] = done[i]["verdict"]["outcome"] if i in done else "not judged"
        rows.append({"gpus": n, "jobs": len(ids), "done": len(done), "wall_seconds": wall,
                     "evals_per_hour": 3600 * len(done) / wall, "outcomes": outcomes,
                     "gpu_busy_seconds_by_device": metrics.get("gpu_busy_seconds_by_device"),
                     "gpus_lost": metrics.get("gpus_lost")})
    base = next((r for r in rows if r.get("gpus") == 1 and "evals_per_hour" in r), None)
    for r in rows:
        if base and "evals_per_hour" in r:
            r["scaling"] = r["evals_per_hour"] / base["evals_per_hour"]
    return rows


def eval_speedups(exe, out, name):
    """Judges the control on GPU 0; its timed shapes' median speedups by shape label."""
    task, path = CONTROL
    log = os.path.join(out, f"{name}.txt")
    with open(log, "w") as f:
        subprocess.run([exe, "eval", path, "--task", task, "--json-out",
                        os.path.join(out, f"{name}.json")],
                       stdout=f, stderr=subprocess.STDOUT,
                       env=dict(os.environ, PTXBENCH_DEVICE="0"), check=False)
    with open(os.path.join(out, f"{name}.json")) as f:
        v = json.load(f)
    return v["outcome"], {t.get("label") or json.dumps(t["shape"]): t["speedup"]["median"]
                          for t in v.get("timing", []) if "speedup" in t}


def interference(exe, out, present, t_end):
    if present < 2:
        return {"skipped": f"{present} GPU(s): no neighbour to disturb GPU 0"}
    idle = [eval_speedups(exe, out, f"idle{r}") for r in range(2)]
    neighbours = ",".join(str(g) for g in range(1, min(present, 4)))
    server = Server(exe, os.path.join(out, "hostile.db"), out, gpus=neighbours,
                    compile_threads=4)
    hostile = [(task, source(path, f"hostile {n}")) for n in range(6) for task, path in HOSTILE]
    ids = [submit(task, code) for task, code in hostile]
    busy = []
    for r in range(2):
        if time.time() > t_end - 120:
            break
        busy.append(eval_speedups(exe, out, f"busy{r}"))
    progress = request("GET", "/v1/metrics")[1]
    server.stop()
    worst = 0.0
    for _, speedups in busy:
        for label, s in speedups.items():
            ref = sum(run[1].get(label, s) for run in idle) / len(idle)
            worst = max(worst, abs(s / ref - 1))
    return {"neighbours": neighbours, "hostile_jobs": len(ids),
            "hostile_done_while_measured": progress.get("done"),
            "idle": [{"outcome": o, "speedups": s} for o, s in idle],
            "busy": [{"outcome": o, "speedups": s} for o, s in busy],
            "largest_relative_change": worst, "within_2_percent": worst <= 0.02}


def main():
    if len(sys.argv) < 4 or sys.argv[3] not in ("warm", "throughput", "interference"):
        print(__doc__)
        sys.exit(2)
    bin_dir, out, part = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
    t_end = time.time() + float(option("--budget", "540"))
    exe = prepare_session(bin_dir, out)
    report_path = os.path.join(out, "multi_gpu.json")
    report = {}
    if os.path.exists(report_path):
        with open(report_path) as f:
            report = json.load(f)
    present = gpus_present()
    report.setdefault("machine", []).append(dict(machine(), part=part, gpus_present=present))
    jobs = batch(int(option("--copies", "3")))
    if part == "warm":
        report["warm"] = warm(exe, out, jobs)
    elif part == "throughput":
        default = [n for n in (1, 2, 4) if n <= max(1, min(present, 4))]
        counts = [int(n) for n in option("--gpus", ",".join(map(str, default))).split(",")]
        report["throughput"] = throughput(exe, out, jobs, counts, t_end)
    else:
        report["interference"] = interference(exe, out, present, t_end)
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)
    summary = {k: v for k, v in report.items() if k != "machine"}
    for row in summary.get("throughput", []):
        row.pop("outcomes", None)
    print(json.dumps(summary, indent=1)[:6000])


if __name__ == "__main__":
    main()
