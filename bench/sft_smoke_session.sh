#!/usr/bin/env bash
# The SFT smoke run on one GPU (issue 7), from the repository root:
#   bench/sft_smoke_session.sh WHEELS_DIR OUT_DIR [EXPORT]
# WHEELS_DIR holds the wheels the GPU machine lacks (trl, datasets, dill, multiprocess; it has
# torch, transformers, peft, accelerate): installed into a private folder, nothing system-wide.
# Builds the SFT rows from EXPORT (default: the H200 model-run export), a random ~160M-parameter
# Qwen3 model with a tokenizer trained on those rows (python -m ptxbench_sft make-tiny), trains
# it in bf16 with python/configs/smoke-h200.yaml, and copies metrics.json and the logs to OUT.
set -uo pipefail
wheels="$(cd "$1" && pwd)"; out="$2"; mkdir -p "$out"; out="$(cd "$out" && pwd)"
export_file="${3:-bench/results/2026-11-29-h200-model-run/export.jsonl.gz}"
cd "$(dirname "${BASH_SOURCE[0]}")/.."
site="$(mktemp -d)"; work="$(mktemp -d)"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$site" \
  "$wheels"/*.whl || { echo "sft smoke: wheel install failed" >&2; exit 2; }
export PYTHONPATH="$site:$PWD/python" PYTHONUNBUFFERED=1
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_DATASETS_OFFLINE=1
{
  date -u +"date %Y-%m-%dT%H:%M:%SZ"
  echo "commit ${PTXB_COMMIT:-unknown (set PTXB_COMMIT)}"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv
  python3 -c "import torch, transformers, trl, peft, accelerate, datasets, pyarrow
for m in (torch, transformers, trl, peft, accelerate, datasets, pyarrow):
    print(m.__name__, m.__version__)"
} > "$out/environment.txt" 2>&1
step() {  # step NAME COMMAND...: run, log to OUT/NAME.log, stop the session on failure
  local name="$1"; shift
  echo "== $name: $*"
  "$@" > "$out/$name.log" 2>&1 || { echo "sft smoke: $name failed (exit $?)"; tail -20 "$out/$name.log"; exit 1; }
}
step build_data python3 -m ptxbench_sft build-data --export "$export_file" --out "$work/data"
step make_model python3 -m ptxbench_sft make-tiny --out "$work/model" --size smoke \
  --corpus "$work/data/train.jsonl"
step train python3 -m ptxbench_sft train --config python/configs/smoke-h200.yaml \
  --set model.path="$work/model" --set data.train_file="$work/data/train.jsonl" \
  --set train.output_dir="$work/run"
cp "$work/run/metrics.json" "$work/data/data_card.json" "$out/"
python3 - "$out/metrics.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
print(f"steps {m['steps']}  loss {m['first_loss']:.3f} -> {m['last_loss']:.3f}  "
      f"finite {m['all_losses_finite']}  tokens/s {m['tokens_per_s']:.0f}  "
      f"completion tokens/s {m['completion_tokens_per_s']:.0f}  "
      f"peak GPU memory {m['peak_gpu_memory_bytes'] / 2**30:.1f} GiB  rows {m['rows']}  "
      f"device {m['device']}")
PY
