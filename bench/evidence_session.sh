#!/usr/bin/env bash
# GPU session of the evidence-integrity work (docs/evidence.md): the experts judged by the new
# checks (repeats, self-timing), the evidence cheats of tests/adversarial/evidence, the library's
# non-target arithmetic under ncu, and the same experts judged by the previous commit's binaries.
# Usage (GPU machine): bench/evidence_session.sh BIN_DIR OUT_DIR PART...   PARTs:
#   gputests         the GPU test binary (ptxbench_gpu_tests in BIN_DIR)
#   experts LIST N   the experts in LIST (comma-separated: tma,wgmma,gelu,fwd,bwd,gqa,fp8,fp8b,
#                    llm,grouped,varlen,paged,fwd96,fwd256,bwd96; gqa: the backward expert on
#                    bwd-bf16-gqa, fwd96/fwd256/bwd96: the attention experts on the head-dim
#                    tasks) N times
#                    each
#   self             the TMA GEMM expert timed against itself (--self-baseline)
#   old LIST N DIR   the experts in LIST N times each with DIR/bin/ptxbench and DIR/tasks
#   cheats [K]     every generated cheat (evidence, timing) once, random_half K times in all,
#                  timing shortened
#   repeat NAMES N every generated cheat in NAMES (comma-separated, e.g. timing_copy_library_output)
#                  N more times, copies named NAME_runI, through one run.sh call (one control
#                  pair), timing shortened as in `cheats`
#   adversarial    every hostile submission of tests/adversarial/*.cu (tests/adversarial/run.sh)
#   library        ptxbench-library-profile under ncu for every sm90 task
#   fixture        one expert evaluation with its worker folder kept (ncu.csv, messages)
set -uo pipefail
bin="$(cd "$1" && pwd)"; out="$2"; shift 2; mkdir -p "$out"; out="$(cd "$out" && pwd)"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export PTXBENCH_HOME="$root" PTXBENCH_TASKS_DIR="$root/tasks" PTXBENCH_CACHE_DIR="$out/cache"
ncu="$(command -v ncu || echo /usr/local/cuda/bin/ncu)"
{
  date -u +"date %Y-%m-%dT%H:%M:%SZ"; echo "commit ${PTXB_COMMIT:-unknown}"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv
} >> "$out/environment.txt"
summary="$out/summary.tsv"
[[ -f "$summary" ]] || echo -e "label\toutcome\tseconds\treason" > "$summary"

eval_one() {  # label ptxbench file task [flags]
  local label="$1" exe="$2" file="$3" task="$4"; shift 4
  local base="$label" k=2  # a part given twice (to interleave old and new) adds a suffix
  while [[ -e "$out/$label.json" || -e "$out/$label.txt" ]]; do label="${base}_r$k"; k=$((k + 1)); done
  local start=$SECONDS
  "$exe" eval "$file" --task "$task" --json-out "$out/$label.json" "$@" > "$out/$label.txt" 2>&1
  local outcome
  outcome="$(python3 -c "import json;v=json.load(open('$out/$label.json'));print(v['outcome']+'\t'+str($SECONDS-$start)+'\t'+v['reason'][:160])" 2>/dev/null || echo "no-verdict")"
  echo -e "$label\t$outcome" >> "$summary"
}

gemm_tma=kernels/reference/sm90_gemm_bf16_wgmma_tma.cu
gemm_wg=kernels/reference/sm90_gemm_bf16_wgmma.cu
gelu=kernels/reference/sm90_gemm_bias_gelu_bf16_wgmma_tma.cu
fwd=kernels/reference/sm90_attention_fwd_bf16.cu
bwd=kernels/reference/sm90_attention_bwd_bf16.cu
fp8=kernels/reference/sm90_gemm_fp8_e4m3.cu
fp8b=kernels/reference/sm90_gemm_fp8_blockwise.cu
llm=kernels/reference/sm90_gemm_bf16_llm.cu
grouped=kernels/reference/sm90_gemm_bf16_grouped.cu
varlen=kernels/reference/sm90_attention_fwd_varlen.cu
paged=kernels/reference/sm90_attention_decode_paged.cu
declare -A expert_file=([tma]="$gemm_tma" [wgmma]="$gemm_wg" [gelu]="$gelu" [fwd]="$fwd"
  [bwd]="$bwd" [gqa]="$bwd" [fp8]="$fp8" [fp8b]="$fp8b" [llm]="$llm" [grouped]="$grouped"
  [varlen]="$varlen" [paged]="$paged" [fwd96]="$fwd" [fwd256]="$fwd" [bwd96]="$bwd")
declare -A expert_task=([tma]=sm90/gemm/bf16-wgmma-tma [wgmma]=sm90/gemm/bf16-wgmma
  [gelu]=sm90/gemm_bias_gelu/bf16-wgmma-tma [fwd]=sm90/attention/fwd-bf16
  [bwd]=sm90/attention/bwd-bf16 [gqa]=sm90/attention/bwd-bf16-gqa [fp8]=sm90/gemm/fp8-e4m3
  [fp8b]=sm90/gemm/fp8-blockwise
  [llm]=sm90/gemm/bf16-llm [grouped]=sm90/gemm/bf16-grouped [varlen]=sm90/attention/fwd-varlen
  [paged]=sm90/attention/decode-paged [fwd96]=sm90/attention/fwd-bf16-d96
  [fwd256]=sm90/attention/fwd-bf16-d256 [bwd96]=sm90/attention/bwd-bf16-d96)
while [[ $# -gt 0 ]]; do
  part="$1"; shift
  case "$part" in
    gputests)
      "$bin/ptxbench_gpu_tests" > "$out/gpu_tests.log" 2>&1
      echo -e "gpu_tests\t$(grep -E '^\[  (PASSED|FAILED)  \]' "$out/gpu_tests.log" | tr '\n' ' ')" \
        >> "$summary"
      ;;
    repeat)
      names="$1" n="$2"; shift 2
      tests/adversarial/make_cheats.sh "$out/cheats-src" > /dev/null
      mkdir -p "$out/repeat-src"
      copies=()
      for c in ${names//,/ }; do
        for i in $(seq 2 $((n + 1))); do
          cp "$out/cheats-src/$c.cu" "$out/repeat-src/${c}_run$i.cu"
          copies+=("$out/repeat-src/${c}_run$i.cu")
        done
      done
      PTXBENCH_TIMING_SAMPLES=10 PTXBENCH_TIMING_MIN_MS=0 PTXBENCH_TIMING_WARMUP=2 \
        tests/adversarial/run.sh "$bin" "$out/repeat" "${copies[@]}" > "$out/repeat.log" 2>&1
      echo -e "repeat\texit $?\t$(tail -1 "$out/repeat.log")" >> "$summary"
      ;;
    adversarial)
      tests/adversarial/run.sh "$bin" "$out/adversarial" > "$out/adversarial.log" 2>&1
      echo -e "adversarial\texit $?\t$(tail -1 "$out/adversarial.log")" >> "$summary"
      ;;
    experts)
      list="$1" n="$2"; shift 2
      for i in $(seq 1 "$n"); do
        for e in ${list//,/ }; do
          eval_one "new_${e}_$i" "$bin/ptxbench" "${expert_file[$e]}" "${expert_task[$e]}"
        done
      done
      ;;
    self)
      eval_one new_tma_self "$bin/ptxbench" "$gemm_tma" sm90/gemm/bf16-wgmma-tma --self-baseline
      ;;
    old)
      list="$1" n="$2" old="$(cd "$3" && pwd)"; shift 3
      for i in $(seq 1 "$n"); do
        for e in ${list//,/ }; do
          PTXBENCH_TASKS_DIR="$old/tasks" PTXBENCH_CACHE_DIR="$out/cache-old" \
            eval_one "old_${e}_$i" "$old/bin/ptxbench" "${expert_file[$e]}" "${expert_task[$e]}"
        done
      done
      ;;
    cheats)
      k="${1:-1}"; [[ "${1:-}" =~ ^[0-9]+$ ]] && shift
      tests/adversarial/make_cheats.sh "$out/cheats-src" > /dev/null
      PTXBENCH_TIMING_SAMPLES=10 PTXBENCH_TIMING_MIN_MS=0 PTXBENCH_TIMING_WARMUP=2 \
        tests/adversarial/run.sh "$bin" "$out/cheats" "$out"/cheats-src/*.cu > "$out/cheats.log" 2>&1
      for i in $(seq 2 "$k"); do
        eval_one "random_half_$i" "$bin/ptxbench" "$out/cheats-src/evidence_random_half.cu" \
          sm90/gemm/bf16-wgmma --no-timing
      done
      ;;
    library)
      for task in sm90/gemm/bf16-wgmma-tma sm90/attention/fwd-bf16 sm90/attention/bwd-bf16; do
        name="library_${task//\//_}"
        metrics="$("$bin/ptxbench-library-profile" metrics "$task")"
        timeout 300 "$ncu" --clock-control none --profile-from-start off --metrics "$metrics" \
          --print-metric-instances details --csv --log-file "$out/$name.csv" \
          "$bin/ptxbench-library-profile" run "$task" > "$out/$name.log" 2>&1
        "$bin/ptxbench-library-profile" judge "$task" "$out/$name.csv" > "$out/$name.json" 2>> "$out/$name.log"
      done
      ;;
    fixture)
      rm -rf /tmp/ptxbench-worker* /tmp/ptxbench-evidence*
      PTXBENCH_KEEP_TEMP=1 eval_one fixture_tma "$bin/ptxbench" "$gemm_tma" sm90/gemm/bf16-wgmma-tma --no-timing
      w="$(ls -d /tmp/ptxbench-evidence* | head -1)"  # the evidence run's own folder
      mkdir -p "$out/fixture" && cp "$w/ncu.csv" "$w/evidence-messages.jsonl" "$out/fixture/" 2>/dev/null
      ;;
    *) echo "unknown part $part" >&2; exit 2 ;;
  esac
done
python3 bench/summarize_evidence_session.py "$out" > "$out/table.md" 2>&1
tar -C "$out" --exclude=cache --exclude=cache-old --exclude=cheats-src --exclude=repeat-src \
  -czf "$out.tar.gz" .
cat "$out/table.md"
tail -14 "$out/cheats.log" 2>/dev/null
python3 -c "import sys;[print('  '.join(c.ljust(22) for c in l.rstrip('\n').split('\t'))) for l in open(sys.argv[1])]" "$summary" | cut -c1-230
