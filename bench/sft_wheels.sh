#!/usr/bin/env bash
# The Python wheels the SFT runs need beyond a machine's packages, into one folder: what the GPU
# machines' image lacks (trl, datasets and their dill and multiprocess; DeepSpeed and its hjson
# and pydantic) and what this project's CPU environment (.tools/py-train) lacks for DeepSpeed
# (einops, py-cpuinfo, hjson). DeepSpeed has no wheel on PyPI: its source is built here into a
# pure-Python wheel without compiled ops (DS_BUILD_OPS=0; ZeRO-3 needs none of them, and the
# GPU image has ninja and nvcc should one be JIT-built). For a GPU machine also
# flash-linear-attention (Triton kernels of the Qwen3.6 Gated DeltaNet layers, which transformers
# otherwise runs in slow PyTorch; not for the CPU, where those kernels cannot run; causal-conv1d
# has no wheel and its PyTorch fallback is a plain convolution). Installed elsewhere with
#   python3 -m pip install -q --no-index --no-deps --no-compile --target DIR OUT_DIR/*.whl
# and PYTHONPATH=DIR. Usage (repository root, network):
#   bench/sft_wheels.sh OUT_DIR [PYTHON_VERSION=3.12] [gpu|cpu=gpu]
#   (3.11 cpu for .tools/py-train)
# OUT_DIR/MANIFEST.txt: every wheel with its size and sha256.
set -euo pipefail
out="${1:?usage: bench/sft_wheels.sh OUT_DIR [PYTHON_VERSION]}"
pyver="${2:-3.12}"
target="${3:-gpu}"
[[ "$target" == gpu || "$target" == cpu ]] || { echo "target: gpu or cpu, not $target" >&2; exit 2; }
python="${PYTHON:-.tools/py-train/bin/python}"  # builds DeepSpeed's wheel: needs torch
mkdir -p "$out"
out="$(cd "$out" && pwd)"
platform=(--only-binary=:all: --python-version "$pyver" --implementation cp
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64
  --platform manylinux2014_x86_64)
# The versions .tools/py-train runs (python/requirements-train.txt and what it resolved).
"$python" -m pip download -q --no-deps "${platform[@]}" -d "$out" \
  trl==1.16.0 datasets==5.2.0 dill==0.4.1 multiprocess==0.70.19 \
  hjson==3.1.0 einops==0.8.1 py-cpuinfo==9.0.0 \
  pydantic==2.14.4 pydantic-core==2.50.5 annotated-types==0.8.0 typing-inspection==0.4.5
[[ "$target" == gpu ]] && "$python" -m pip download -q --no-deps "${platform[@]}" -d "$out" \
  flash-linear-attention==0.6.0 fla-core==0.6.0
build="$(mktemp -d)"
trap 'rm -rf "$build"' EXIT
# NOTE: no build isolation (setup.py imports torch); `wheel` and a setuptools that torch accepts
# come from a private folder, not the environment.
"$python" -m pip install -q --target "$build/tools" wheel 'setuptools<82'
DS_BUILD_OPS=0 PYTHONPATH="$build/tools" "$python" -m pip wheel -q --no-deps \
  --no-build-isolation -w "$out" deepspeed==0.19.8 > "$build/deepspeed.log" 2>&1 ||
  { tail -30 "$build/deepspeed.log" >&2; exit 1; }
(cd "$out" && for w in *.whl; do
  printf '%s %s %s\n' "$w" "$(stat -c %s "$w")" "$(sha256sum "$w" | cut -d' ' -f1)"
done) > "$out/MANIFEST.txt"
cat "$out/MANIFEST.txt"
