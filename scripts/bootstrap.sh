#!/usr/bin/env bash
# Installs, idempotently, what a fresh Debian machine with the CUDA 13 toolkit lacks to build and
# test PTXBench: Debian dev packages, the PyPI disassembler wheels (nvdisasm/cuobjdump 13.x,
# which read sm_90a and sm_100a cubins; Debian's 12.4 tools cannot read sm_100a), the
# cudnn-frontend headers of the attention baseline and the CUPTI 13.2 libraries of the in-process
# evidence.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

debian_packages=(cmake ninja-build g++ pkg-config python3 python3-pip python3-venv
  nlohmann-json3-dev libtomlplusplus-dev libcli11-dev libgtest-dev libsqlite3-dev
  libcurl4-openssl-dev clang-format openssl)
pypi_tools=("nvidia-cuda-cuobjdump==13.5.37" "nvidia-cuda-nvdisasm==13.5.37")

missing=()
for p in "${debian_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "bootstrap: installing Debian packages: ${missing[*]}"
  sudo_cmd=""; [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "bootstrap: the CUDA 13 toolkit (nvcc) is required and is not installed" >&2
  exit 1
fi

# Disassemblers go to .tools/ inside the checkout: nothing system-wide is touched.
tools="$root/.tools"
if [ ! -x "$tools/bin/cuobjdump" ] || [ ! -x "$tools/bin/nvdisasm" ]; then
  echo "bootstrap: installing ${pypi_tools[*]} into $tools"
  rm -rf "$tools/py"
  python3 -m pip install -q --disable-pip-version-check --no-deps --target "$tools/py" "${pypi_tools[@]}"
  mkdir -p "$tools/bin"
  ln -sf "$tools/py/nvidia/cu13/bin/cuobjdump" "$tools/bin/cuobjdump"
  ln -sf "$tools/py/nvidia/cu13/bin/nvdisasm" "$tools/bin/nvdisasm"
fi
# cudnn-frontend: the header-only C++ API of cuDNN's graph interface, for the attention baseline
# (src/baselines/cudnn_*). Only the wheel's include/ is kept. 1.32.0 builds against the cuDNN 9.14
# .. 9.19 headers and opens libcudnn at run time. The wheel is chosen for one fixed interpreter and
# platform: the headers are the same in every wheel of a release.
frontend_version="1.32.0"
frontend="$tools/cudnn-frontend"
if [ "$(cat "$frontend/VERSION" 2>/dev/null)" != "$frontend_version" ] ||
  [ ! -f "$frontend/include/cudnn_frontend.h" ]; then
  echo "bootstrap: unpacking nvidia-cudnn-frontend==$frontend_version headers into $frontend"
  mkdir -p "$tools"
  work="$(mktemp -d "$tools/.cudnn-frontend.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  python3 -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
    --python-version 3.11 --platform manylinux_2_28_x86_64 \
    -d "$work/wheel" "nvidia-cudnn-frontend==$frontend_version"
  python3 - "$work" <<'PY'
import pathlib, sys, zipfile
work = pathlib.Path(sys.argv[1])
(wheel,) = (work / "wheel").glob("*.whl")
with zipfile.ZipFile(wheel) as z:
    members = [m for m in z.namelist() if m.startswith("include/") and not m.endswith("/")]
    if not any(m == "include/cudnn_frontend.h" for m in members):
        sys.exit(f"bootstrap: {wheel.name} has no include/cudnn_frontend.h")
    z.extractall(work / "out", members)
PY
  echo "$frontend_version" >"$work/out/VERSION"
  rm -rf "$frontend"
  mv "$work/out" "$frontend"
fi
# CUPTI of CUDA 13.2 for the in-process evidence (docs/evidence.md, "In-process evidence"): the
# toolkit's 13.0 reports the SASS metrics of a process's first patched function only. Its three
# libraries from PyPI's wheel into .tools/cupti (PTXBENCH_CUPTI_DIR's default); CUDA 13's
# minor-version compatibility runs them on a 580 driver.
cupti_version="13.2.86"
cupti="$tools/cupti"
if [ "$(cat "$cupti/VERSION" 2>/dev/null)" != "$cupti_version" ] || [ ! -f "$cupti/libcupti.so.13" ]; then
  echo "bootstrap: unpacking nvidia-cuda-cupti==$cupti_version libraries into $cupti"
  mkdir -p "$tools"
  cupti_work="$(mktemp -d "$tools/.cupti.XXXXXX")"
  python3 -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
    --platform manylinux_2_25_x86_64 -d "$cupti_work/wheel" "nvidia-cuda-cupti==$cupti_version"
  python3 - "$cupti_work" <<'PY'
import pathlib, sys, zipfile
work = pathlib.Path(sys.argv[1])
(wheel,) = (work / "wheel").glob("*.whl")
names = ("libcupti.so.13", "libnvperf_host.so", "libnvperf_target.so")
(work / "out").mkdir()
with zipfile.ZipFile(wheel) as z:
    for name in names:
        member = f"nvidia/cu13/lib/{name}"
        if member not in z.namelist():
            sys.exit(f"bootstrap: {wheel.name} has no {member}")
        (work / "out" / name).write_bytes(z.read(member))
PY
  echo "$cupti_version" >"$cupti_work/out/VERSION"
  rm -rf "$cupti"
  mv "$cupti_work/out" "$cupti"
  rm -rf "$cupti_work"
fi
# The SFT data pipeline's test tools (python/: pytest, ruff), into .tools/py-sft.
sft_tools=("pytest==9.2.0" "ruff==0.17.6")
if [ "$(cat "$tools/py-sft/VERSIONS" 2>/dev/null)" != "${sft_tools[*]}" ]; then
  echo "bootstrap: installing ${sft_tools[*]} into $tools/py-sft"
  rm -rf "$tools/py-sft"
  python3 -m pip install -q --disable-pip-version-check --target "$tools/py-sft" "${sft_tools[@]}"
  echo "${sft_tools[*]}" > "$tools/py-sft/VERSIONS"
fi
# The SFT training side (python/: torch, transformers, trl, peft, ...) for its CPU tests, pinned
# by python/requirements-train.txt, into the virtual environment .tools/py-train (~3 GB: the
# PyPI torch wheel brings its CUDA libraries; CPU use needs no GPU).
train_lock="$root/python/requirements-train.txt"
train_env="$tools/py-train"
if [ "$(cat "$train_env/LOCK" 2>/dev/null)" != "$(sha256sum < "$train_lock")" ]; then
  echo "bootstrap: installing python/requirements-train.txt into $train_env (a few minutes)"
  rm -rf "$train_env"
  python3 -m venv "$train_env"
  "$train_env/bin/python" -m pip install -q --disable-pip-version-check -r "$train_lock"
  sha256sum < "$train_lock" > "$train_env/LOCK"
fi
echo "bootstrap: ready"
