#!/usr/bin/env bash
# Session 2026-12-07i (thirty-sixth), call 2 (after call 1): the committed hostile submissions
# (tests/adversarial/run.sh, every expected outcome checked) with the in-process evidence run
# beside ncu's (PTXBENCH_EVIDENCE=compare): does it count what ncu counts on submissions
# written to fool the evidence, and does every verdict keep its outcome?
# Usage (repository root of the GPU machine): call2.sh BIN CUPTI_DIR OUT [FILES...]
#   (no FILES: the generated evidence cheats, tests/adversarial/make_cheats.sh, and the committed
#   submissions aimed at the evidence)
set -uo pipefail
bin="$(cd "$1" && pwd)" cupti="$(cd "$2" && pwd)" out="$3"; shift 3
mkdir -p "$out"; out="$(cd "$out" && pwd)"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$PWD/tasks" PTXBENCH_CACHE_DIR="$out/cache"
export PTXBENCH_EVIDENCE=compare PTXBENCH_CUPTI_DIR="$cupti/13.2.86"
files=("$@")
if [[ ${#files[@]} -eq 0 ]]; then
  bash tests/adversarial/make_cheats.sh "$out/cheats" > /dev/null
  files=("$out"/cheats/evidence_*.cu)
  for f in mma_sync_instead tma_plain_loads tma_store_only two_kernels_second_wgmma \
    wgmma_dead_branch wgmma_for_show; do files+=("tests/adversarial/$f.cu"); done
fi
timeout 520 bash tests/adversarial/run.sh "$bin" "$out/adv" "${files[@]}" > "$out/adversarial.txt" 2>&1
echo "adversarial exit $?"
tail -5 "$out/adversarial.txt"
python3 bench/probes/summarize_inprocess_evidence.py "$out"/adv/*.json > "$out/summary.txt"
rm -rf "$out/cache" "$out/cheats"
cat "$out/summary.txt"
# One archive comes back (the device returns a few files only).
tar -C "$out" -czf "/tmp/call2.tar.gz" . && find "$out" -mindepth 1 -delete && mv "/tmp/call2.tar.gz" "$out/"
