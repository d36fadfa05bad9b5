#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, checks formatting and runs every
# test. GPU tests run when a GPU is present and are reported as skipped otherwise.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
"$root/scripts/build.sh"
"$root/scripts/check-format.sh"
labels="unit"
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  labels="unit|gpu"
else
  echo "test: no GPU on this machine: GPU tests (label gpu) are built but not run"
fi
ctest --test-dir build/release -L "$labels" --output-on-failure -j "$(nproc)"
# The SFT pipeline (python/ptxbench_sft): lint, then its tests (data builder, chat template, the
# tiny-model training runs on the CPU) in the pinned environment bootstrap installed.
PYTHONPATH="$root/.tools/py-sft" "$root/.tools/py-sft/bin/ruff" check python
PYTHONPATH="$root/python" "$root/.tools/py-train/bin/python" -m pytest -q -p no:cacheprovider \
  python/tests
