#!/usr/bin/env bash
# Compiles every hostile submission (the committed tests/adversarial/*.cu and the cheats
# make_cheats.sh generates from the experts) as PTXBench would, up to PTX for sm_90a (no ptxas, no
# GPU): a cheat that no longer compiles after an expert changed would otherwise be judged
# compile_error on the GPU and stop testing the check it was written against.
# Usage: tests/adversarial/compile_all.sh NVCC WORK_DIR [FILE...]   (exit 1 names each file that
#   failed; FILEs: those alone instead, the check's own test gives it one that cannot compile)
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
nvcc="$1" work="$2"; shift 2
rm -rf "$work"; mkdir -p "$work/generated" "$work/logs"
compile_one() {  # FILE: its log under WORK_DIR/logs, "FAILED FILE" when nvcc fails
  local log="$work/logs/$(basename "$1" .cu).log"
  "$nvcc" -std=c++17 -O3 -arch=compute_90a -code=compute_90a -Xcompiler -fPIC -c \
    -I "$root/include" "$1" -o /dev/null > "$log" 2>&1 || { echo "FAILED $1"; sed -n 1,6p "$log"; }
}
export -f compile_one; export nvcc work root
if [[ $# -gt 0 ]]; then
  files=("$@")
else
  "$root/tests/adversarial/make_cheats.sh" "$work/generated" > "$work/generated.txt" || exit 1
  # Files expected to fail compiling (their attack is on the compile itself) are left out.
  mapfile -t files < <(grep -L '^// ptxbench-expect:.* outcome=compile_error' \
    "$root"/tests/adversarial/*.cu)
  mapfile -t -O "${#files[@]}" files < "$work/generated.txt"
fi
failures="$(printf '%s\n' "${files[@]}" | xargs -P "$(nproc)" -I{} bash -c 'compile_one "$1"' _ {})"
echo "compile_all: ${#files[@]} submissions, $(grep -c '^FAILED' <<< "$failures") of them failed"
[[ -z "$failures" ]] || { echo "$failures"; exit 1; }
