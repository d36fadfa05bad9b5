#!/usr/bin/env bash
# Packs the CUPTI libraries of later CUDA releases for a GPU machine without network, to run
# bench/probes/sass_metrics_probe.sh against them (does a later CUPTI report every patched
# function?). Downloads PyPI's nvidia-cuda-cupti wheels (no dependencies), keeps libcupti.so.13,
# libnvperf_host.so and libnvperf_target.so of each in a folder named after its version, and
# writes them as one tar.xz (about 11 MB for two releases). On the GPU machine: unpack it to DIR
# and pass DIR/VERSION to sass_metrics_probe.sh.
# Usage (a machine with PyPI): bench/probes/cupti_wheels.sh OUT.tar.xz [VERSION...]
#   (default versions: 13.2.86 13.5.25)
set -euo pipefail
out="${1:?usage: cupti_wheels.sh OUT.tar.xz [VERSION...]}"; shift
versions=("$@"); [[ ${#versions[@]} -gt 0 ]] || versions=(13.2.86 13.5.25)
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
for v in "${versions[@]}"; do
  pip download --quiet --no-deps "nvidia-cuda-cupti==$v" -d "$work/wheel-$v"
  python3 -m zipfile -e "$work/wheel-$v"/*.whl "$work/unpacked-$v"
  mkdir -p "$work/pack/$v"
  cp "$work/unpacked-$v"/nvidia/cu13/lib/{libcupti.so.13,libnvperf_host.so,libnvperf_target.so} \
    "$work/pack/$v/"
done
tar -cJf "$out" -C "$work/pack" .
echo "$out: ${versions[*]}"
