#!/usr/bin/env bash
# Noise of the skinny GEMM speedups: eval three times, run --model reference once more.
set -uo pipefail
bin=.carry/bin; out=/tmp/rep; mkdir -p $out
export PATH="/usr/local/cuda/bin:$PATH" PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$PWD/tasks" PTXBENCH_CACHE_DIR="$out/cache"
for i in 1 2 3; do
  for t in wgmma wgmma_tma; do
    task=sm90/gemm/bf16-$(echo $t | tr _ -)
    $bin/ptxbench eval kernels/reference/sm90_gemm_bf16_$t.cu --task $task --no-evidence --json-out $out/eval_${t}_$i.json > /dev/null 2>&1
  done
done
$bin/ptxbench run --model reference --tasks sm90/gemm --run-name again --db $out/runs.db > $out/run.log 2>&1
$bin/ptxbench export --db $out/runs.db -o $out/export.jsonl
python3 - <<'PY'
import json, glob
rows = {}
for f in sorted(glob.glob('/tmp/rep/eval_*.json')):
    v = json.load(open(f)); name = f.split('eval_')[1].rsplit('_', 1)[0]
    for t in v['timing']:
        rows.setdefault((name, json.dumps(t['shape'], sort_keys=True)), []).append(t['speedup']['median'])
for line in open('/tmp/rep/export.jsonl'):
    a = json.loads(line); name = a['task'].split('/')[-1].replace('bf16-', '').replace('-', '_')
    for t in a['evaluation']['verdict']['timing']:
        rows.setdefault((name, json.dumps(t['shape'], sort_keys=True)), []).append(('run', t['speedup']['median']))
for k, v in rows.items():
    evals = [x for x in v if not isinstance(x, tuple)]; runs = [x[1] for x in v if isinstance(x, tuple)]
    spread = (max(evals) - min(evals)) / min(evals) * 100
    print(k[0], k[1], 'evals', ['%.3f' % x for x in evals], 'spread %.2f%%' % spread, 'run', ['%.3f' % x for x in runs])
PY
