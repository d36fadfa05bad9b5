#!/usr/bin/env bash
# Variants of the TMA GEMM expert (kernels/reference/sm90_gemm_bf16_wgmma_tma.cu) made by changing
# its constexpr knobs, judged by `ptxbench eval` side by side with the expert, interleaved, N
# rounds; prints the cold speedups per timed shape. A variant that beats the expert on every shape
# in every round is a candidate for the expert (change the knob in kernels/gemm/, re-amalgamate).
# Usage (GPU machine, repository root): bench/gemm_dev/variants.sh BIN_DIR OUT [N] [VARIANTS]
#   VARIANTS: comma-separated names of the table below (default: all)
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" rounds="${3:-2}" only="${4:-}"
mkdir -p "$out/src"; out="$(cd "$out" && pwd)"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$PWD/tasks" PTXBENCH_CACHE_DIR="$out/cache"
expert=kernels/reference/sm90_gemm_bf16_wgmma_tma.cu
task=sm90/gemm/bf16-wgmma-tma
# name -> sed program over the expert's source (each must change at least one line)
declare -A variants=(
  [persistent]='s/^constexpr bool kPersistent = false;/constexpr bool kPersistent = true;/'
  [persistent_groupm8]='s/^constexpr bool kPersistent = false;/constexpr bool kPersistent = true;/; s/^constexpr int kGroupM = 16;/constexpr int kGroupM = 8;/'
  [groupm8]='s/^constexpr int kGroupM = 16;/constexpr int kGroupM = 8;/'
)
names=(expert)
cp "$expert" "$out/src/expert.cu"
for name in "${!variants[@]}"; do
  [[ -n "$only" && ",$only," != *",$name,"* ]] && continue
  sed -e "${variants[$name]}" "$expert" > "$out/src/$name.cu"
  if cmp -s "$expert" "$out/src/$name.cu"; then echo "variant $name changes nothing" >&2; exit 2; fi
  names+=("$name")
done
for r in $(seq 1 "$rounds"); do
  for name in "${names[@]}"; do
    "$bin/ptxbench" eval "$out/src/$name.cu" --task "$task" --json-out "$out/${name}_$r.json" \
      > "$out/${name}_$r.txt" 2>&1
  done
done
python3 - "$out" "${names[@]}" <<'PY'
import glob, json, os, sys
out, names = sys.argv[1], sys.argv[2:]
for name in names:
    for f in sorted(glob.glob(os.path.join(out, f"{name}_*.json"))):
        try:
            v = json.load(open(f))
        except Exception as e:
            print(f"{os.path.basename(f):28s} unreadable: {e}"); continue
        sp = " / ".join(f"{t['speedup']['median']:.3f}" for t in v.get("timing", []))
        print(f"{os.path.basename(f):28s} {v['outcome']:14s} {sp}")
PY
