#!/usr/bin/env python3
"""Summary of bench/model_run_session.sh: per run and task the outcome of every turn, the
run's speedups next to `ptxbench eval`'s for the same expert, and the judging overhead
(judge wall time over the sum of the verdict's stage times)."""
import gzip
import json
import math
import pathlib
import statistics
import sys

out = pathlib.Path(sys.argv[1])
export = out / "export.jsonl"
text = export.read_text() if export.exists() else gzip.open(f"{export}.gz", "rt").read()
attempts = [json.loads(line) for line in text.splitlines() if line]

print("## Attempts\n\n| run | task | sample | turn | outcome | speedups |\n|---|---|---|---|---|---|")
for a in sorted(attempts, key=lambda a: (a["run"]["name"], a["task"], a["sample"], a["turn"])):
    e = a.get("evaluation") or {}
    speedups = ", ".join(f"{s['speedup']:.3f}" for s in e.get("speedups", []))
    print(f"| {a['run']['name']} | {a['task']} | {a['sample']} | {a['turn'] + 1} | "
          f"{e.get('outcome', 'unjudged')} | {speedups} |")

print("\n## Speedup: run --model reference vs ptxbench eval (same expert, same session)\n")
print("| task | shape | run | eval | difference |\n|---|---|---|---|---|")
worst = 0.0
# Per task, the number the report shows: the geomean over shapes, clamped to [0.1, 10]
# (sample_speedup in src/report/metrics.cpp), of the run's and of eval's speedups.
per_task = {}
for a in attempts:
    if a["run"]["name"] != "reference" or not a.get("evaluation"):
        continue
    name = a["task"].replace("/", "_").replace("-", "_")
    path = out / f"eval_{name}.json"
    if not path.exists():
        continue
    verdict = json.loads(path.read_text())
    by_shape = {json.dumps(t["shape"], sort_keys=True): t["speedup"]["median"]
                for t in verdict.get("timing", []) if "speedup" in t}
    run_timing = a["evaluation"]["verdict"].get("timing", [])
    for t in run_timing:
        key = json.dumps(t["shape"], sort_keys=True)
        if "speedup" not in t or key not in by_shape:
            continue
        r, e = t["speedup"]["median"], by_shape[key]
        diff = (r - e) / e
        worst = max(worst, abs(diff))
        pair = per_task.setdefault(a["task"], ([], []))
        pair[0].append(min(max(r, 0.1), 10.0))
        pair[1].append(min(max(e, 0.1), 10.0))
        shape = " ".join(f"{k}={v}" for k, v in t["shape"].items())
        print(f"| {a['task']} | {shape} | {r:.3f} | {e:.3f} | {diff * 100:+.2f}% |")
print(f"\nLargest difference of one shape: {worst * 100:.2f}%")

print("\n## Per task, as the report shows it (geomean over shapes)\n")
print("| task | shapes | run | eval | difference |\n|---|---|---|---|---|")
worst_task = 0.0
for task, (runs, evals) in sorted(per_task.items()):
    r, e = math.exp(statistics.fmean(map(math.log, runs))), math.exp(
        statistics.fmean(map(math.log, evals)))
    worst_task = max(worst_task, abs(r / e - 1))
    print(f"| {task} | {len(runs)} | {r:.3f} | {e:.3f} | {(r / e - 1) * 100:+.2f}% |")
print(f"\nLargest difference of a task's speedup: {worst_task * 100:.2f}% (acceptance: within 2%)")

print("\n## Judging overhead (judge wall time without GPU queueing / sum of stage times)\n")
print("| run | task | turn | judge s | stages s | overhead |\n|---|---|---|---|---|---|")
for a in attempts:
    e = a.get("evaluation")
    if not e or not e.get("stage_seconds"):
        continue
    st = e["stage_seconds"]
    # gpu_wait is queueing for a free GPU, not judging; compile_before_gpu is the real compile
    # (the pipeline's own compile stage is then a cache hit).
    stages = sum(v for k, v in st.items() if k != "gpu_wait" and isinstance(v, (int, float)))
    judged = e["judge_seconds"] - st.get("gpu_wait", 0.0)
    if stages <= 0:
        continue
    print(f"| {a['run']['name']} | {a['task']} | {a['turn'] + 1} | {judged:.1f} | "
          f"{stages:.1f} | {(judged / stages - 1) * 100:+.1f}% |")
