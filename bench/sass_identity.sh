#!/usr/bin/env bash
# Compares the SASS of every expert solution, hostile submission, generated cheat and the evidence
# controls between two commits: a refactor of kernel sources (e.g. moving PTX wrappers into
# kernels/ptx/) that claims "no change in what runs" must print "identical" for every file.
# Compiled by the current build's ptxbench (the judge's own flags; no GPU needed), anonymous
# namespace hashes normalised. Usage: bench/sass_identity.sh OLD_COMMIT [NEW_COMMIT=HEAD]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
old="$1"; new="${2:-HEAD}"
bin="$root/build/release/ptxbench"
work="$(mktemp -d)"; trap 'git -C "$root" worktree remove --force "$work/old" >/dev/null 2>&1 || true;
  git -C "$root" worktree remove --force "$work/new" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git -C "$root" worktree add -q --detach "$work/old" "$old"
git -C "$root" worktree add -q --detach "$work/new" "$new"
cuobjdump="$root/.tools/bin/cuobjdump"

sass_of() {  # FILE TASK -> normalised SASS on stdout
  "$bin" eval "$1" --task "$2" --no-timing --no-evidence --json-out "$work/v.json" >/dev/null 2>&1 || true
  local dir
  dir="$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['compile']['artefacts'])" "$work/v.json")"
  sed -E 's/_GLOBAL__N__[0-9a-f]+_[0-9]+_cand_cu_[0-9a-f]*/ANON/g' "$dir/sass.txt"
}
task_of() { grep -o 'task=[^ ]*' "$1" | head -1 | cut -d= -f2; }
expert_task() {  # kernels/reference/sm90_gemm_bf16_wgmma_tma.cu -> sm90/gemm/bf16-wgmma-tma
  "$bin" tasks --json | python3 -c "
import json, sys
name = sys.argv[1]
for t in json.load(sys.stdin):
    if t['id'].replace('/', '_').replace('-', '_') == name: print(t['id'])" "$(basename "$1" .cu)"
}
compare() {  # LABEL OLD_TEXT_FILE NEW_TEXT_FILE
  if [ ! -s "$2" ] || [ ! -s "$3" ]; then echo "| $1 | no SASS |"; bad=1
  elif cmp -s "$2" "$3"; then echo "| $1 | identical ($(grep -c '/\*[0-9a-f]\{4\}\*/' "$3") instructions) |"
  else echo "| $1 | DIFFERENT |"; bad=1; fi
}
bad=0
echo "| file | SASS $old -> $new |"
echo "|---|---|"
for f in "$work/new"/kernels/reference/*.cu; do
  rel="kernels/reference/$(basename "$f")"; t="$(expert_task "$f")"
  sass_of "$work/old/$rel" "$t" > "$work/a.sass"; sass_of "$f" "$t" > "$work/b.sass"
  compare "$rel" "$work/a.sass" "$work/b.sass"
done
for f in "$work/new"/tests/adversarial/*.cu; do
  rel="tests/adversarial/$(basename "$f")"; t="$(task_of "$f")"
  sass_of "$work/old/$rel" "$t" > "$work/a.sass"; sass_of "$f" "$t" > "$work/b.sass"
  compare "$rel" "$work/a.sass" "$work/b.sass"
done
"$work/old/tests/adversarial/make_cheats.sh" "$work/cheats_old" >/dev/null
"$work/new/tests/adversarial/make_cheats.sh" "$work/cheats_new" >/dev/null
for f in "$work"/cheats_new/*.cu; do
  t="$(task_of "$f")"
  sass_of "$work/cheats_old/$(basename "$f")" "$t" > "$work/a.sass"; sass_of "$f" "$t" > "$work/b.sass"
  compare "generated cheat $(basename "$f")" "$work/a.sass" "$work/b.sass"
done
for side in old new; do
  nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a -I"$work/$side/src" \
    -I"$work/$side/kernels" -c "$work/$side/src/controls/evidence_controls.cu" -o "$work/$side.o"
  "$cuobjdump" -sass "$work/$side.o" > "$work/$side.controls.sass"
done
compare "src/controls/evidence_controls.cu" "$work/old.controls.sass" "$work/new.controls.sass"
exit "$bad"
