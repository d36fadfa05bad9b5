#!/usr/bin/env bash
# Call 2: the catalog's seven counters (two tensor-path op counters and the TMA load bytes
# added) on the device: the new TMA cheat (tests/adversarial/evidence/tma_profiler_aware.cu)
# judged with this commit's catalog and with the previous commit's four counters (OLD_TASKS), the
# two counter-fixture cheats and the TMA expert's evidence fixture re-recorded, then every sm90
# expert once (do the timed calls match the profiled call on all seven counters).
# Usage (repository root, GPU machine): call2/call2.sh BIN_DIR OUT OLD_TASKS
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" old_tasks="$(cd "$3" && pwd)"
mkdir -p "$out"; out="$(cd "$out" && pwd)"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > "$out/gpu.txt"
tests/adversarial/make_cheats.sh /tmp/cheats-src > /dev/null
export PTXBENCH_HOME="$PWD" PTXBENCH_CACHE_DIR=/tmp/c2-cache
judge() {  # label tasks_dir file task
  local start=$SECONDS
  PTXBENCH_TASKS_DIR="$2" PTXBENCH_TIMING_SAMPLES=10 PTXBENCH_TIMING_MIN_MS=0 \
    PTXBENCH_TIMING_WARMUP=2 timeout -k 5 150 "$bin/ptxbench" eval "$3" --task "$4" \
    --json-out "$out/$1.json" > "$out/$1.txt" 2>&1
  echo -e "$1\t$(python3 -c "import json;v=json.load(open('$out/$1.json'));print(v['outcome'],'|',v['reason'][:150])" 2>/dev/null || echo no-verdict)\t$((SECONDS - start)) s" | tee -a "$out/cheats.tsv"
}
judge tma_profiler_aware_new "$PWD/tasks" /tmp/cheats-src/evidence_tma_profiler_aware.cu sm90/gemm/bf16-wgmma-tma
judge tma_profiler_aware_old "$old_tasks" /tmp/cheats-src/evidence_tma_profiler_aware.cu sm90/gemm/bf16-wgmma-tma
judge evidence_profiler_aware "$PWD/tasks" /tmp/cheats-src/evidence_profiler_aware.cu sm90/gemm/bf16-wgmma
judge evidence_random_half "$PWD/tasks" /tmp/cheats-src/evidence_random_half.cu sm90/gemm/bf16-wgmma
PTXB_COMMIT="$(cat "$bin/COMMIT")" timeout -k 5 $((560 - SECONDS)) bench/evidence_session.sh "$bin" "$out/s" fixture \
  experts tma,fp8,wgmma,gelu,fp8b,llm,grouped,fwd,bwd,gqa,varlen,paged,fwd96,bwd96,fwd256 1 \
  > "$out/session.log" 2>&1
echo "session exit $?"
rm -rf "$out/s/cache"
python3 - "$out/s" <<'PY'
import json, sys, glob, os
for f in sorted(glob.glob(sys.argv[1] + "/new_*.json")):
    v = json.load(open(f)); c = v.get("counter_check", {}).get("match", {})
    print(os.path.basename(f), v["outcome"], "compared", c.get("calls_compared"), "mismatched",
          c.get("calls_mismatched"), v.get("counter_check", {}).get("unavailable", ""),
          [round(t["speedup"]["median"], 3) for t in v.get("timing", [])])
PY
tar -C "$out" -czf "$out/call2.tar.gz" --exclude=call2.tar.gz .
