#!/usr/bin/env bash
# What does the evidence run (Nsight Compute) spend its seconds on? Judges experts without the
# timing stage (`--no-timing`: correctness, then the ncu run) with PTXBENCH_NCU pointing at a
# wrapper that collects one group of the evidence metrics per variant, so the seconds of each
# group (and of ncu's fixed per-kernel cost: the `duration` variant) show apart. Variants other
# than `full` leave the verdict's evidence unavailable on purpose: only their seconds count here.
#   full          the evidence run as judged (every metric below)
#   opcode        sass__inst_executed_per_opcode_with_modifier_all (instrumented) + duration
#   flops         the nine thread-level _pred_on classes (instrumented) + duration
#   opcode_flops  both instrumented groups + duration
#   hw            the catalog's hardware counters + duration
#   duration      gpu__time_duration.sum alone
#   full_nocache  every metric, `--cache-control none`
#   full_text     every metric, ncu's text report (its log names each kernel's passes)
#   nomarker      every metric, the marker kernel left out (--kernel-name)
#   opcode_nomod  sass__inst_executed_per_opcode (no modifiers) + duration
#   source        the SourceCounters section (per-instruction executions) + duration
#   tensor_ops    every metric, plus the hardware counters of tensor-path math ops
#                 (sm__ops_path_tensor_*) and of the TMA unit (instructions, requests, bytes
#                 loaded and stored): bench/probes/tensor_ops_summary.py compares them with the
#                 FLOPs of the GMMA opcodes counted beside them, kernel by kernel
# VARIANTS (environment) picks and orders them; default: the first seven, then full again.
# Prints per task and variant: evidence seconds, the worker's control and call phases, ncu's
# wall seconds. Usage (GPU machine): bench/probes/ncu_cost_probe.sh BIN_DIR OUT_DIR [NAMES]
# NAMES: comma-separated from tma, fwd, bwd, fp8, fp8b, wgmma (default tma,bwd).
set -uo pipefail
bin="$(cd "$1" && pwd)"; out="$2"; names="${3:-tma,bwd}"
mkdir -p "$out/csv"; out="$(cd "$out" && pwd)"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export PTXBENCH_HOME="$root" PTXBENCH_TASKS_DIR="$root/tasks" PTXBENCH_CACHE_DIR="$out/cache"
real_ncu="$(command -v ncu || echo /usr/local/cuda/bin/ncu)"
variant_file="$out/variant"
wrapper="$out/ncu-wrap.sh"
cat > "$wrapper" <<EOF
#!/usr/bin/env bash
# Runs ncu with one variant's metrics (read from $variant_file); --version passes through.
args=("\$@")
[[ "\${args[0]:-}" == --version ]] && exec "$real_ncu" --version
variant="\$(cat "$variant_file")"
opcode=sass__inst_executed_per_opcode_with_modifier_all
duration=gpu__time_duration.sum
hw=sm__inst_executed_pipe_tensor_op_gmma.sum,sm__inst_executed_pipe_tensor_op_hmma.sum,sm__inst_executed_pipe_fma.sum,sm__inst_executed_pipe_fp64.sum
flops=""
for c in ffma fmul fadd hfma hmul hadd dfma dmul dadd; do
  flops="\$flops,smsp__sass_thread_inst_executed_op_\${c}_pred_on.sum"
done
flops="\${flops#,}"
extra=()
for i in "\${!args[@]}"; do
  [[ "\${args[\$i]}" == --metrics ]] && m=\$((i + 1))
  [[ "\${args[\$i]}" == --log-file ]] && l=\$((i + 1))
done
case "\$variant" in
  full) ;;
  opcode) args[\$m]="\$opcode,\$duration" ;;
  flops) args[\$m]="\$flops,\$duration" ;;
  opcode_flops) args[\$m]="\$opcode,\$flops,\$duration" ;;
  hw) args[\$m]="\$hw,\$duration" ;;
  duration) args[\$m]="\$duration" ;;
  full_nocache) extra=(--cache-control none) ;;
  full_text)
    kept=()
    for a in "\${args[@]}"; do [[ "\$a" != --csv ]] && kept+=("\$a"); done
    args=("\${kept[@]}") ;;
  nomarker) extra=(--kernel-name "regex:^(?!ptxb_evidence_marker).*") ;;
  opcode_nomod) args[\$m]="sass__inst_executed_per_opcode,\$duration" ;;
  source) args[\$m]="\$duration"; extra=(--section SourceCounters) ;;
  tensor_ops)
    ops=sm__ops_path_tensor_src_bf16_dst_fp32.sum,sm__ops_path_tensor_src_fp8.sum
    ops="\$ops,sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum,sm__ops_path_tensor_src_fp16.sum"
    ops="\$ops,sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32.sum,sm__inst_executed_pipe_tma.sum"
    ops="\$ops,l1tex__tmain_requests.sum,l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum"
    ops="\$ops,l1tex__m_l1tex2xbar_write_bytes_mem_global_op_tma_st.sum"
    args[\$m]="\${args[\$m]},\$ops" ;;
esac
t0=\$(date +%s.%N)
"$real_ncu" "\${extra[@]}" "\${args[@]}"
rc=\$?
echo -e "\$variant\t\$(awk "BEGIN { print \$(date +%s.%N) - \$t0 }")\t\$rc" >> "$out/ncu_times.tsv"
n=\$(ls "$out/csv" | wc -l)
cp "\${args[\$l]}" "$out/csv/\$n.\$variant.csv" 2>/dev/null
exit \$rc
EOF
chmod +x "$wrapper"
export PTXBENCH_NCU="$wrapper"
declare -A sources=(
  [tma]="kernels/reference/sm90_gemm_bf16_wgmma_tma.cu sm90/gemm/bf16-wgmma-tma"
  [fwd]="kernels/reference/sm90_attention_fwd_bf16.cu sm90/attention/fwd-bf16"
  [bwd]="kernels/reference/sm90_attention_bwd_bf16.cu sm90/attention/bwd-bf16"
  [fp8]="kernels/reference/sm90_gemm_fp8_e4m3.cu sm90/gemm/fp8-e4m3"
  [fp8b]="kernels/reference/sm90_gemm_fp8_blockwise.cu sm90/gemm/fp8-blockwise"
  [wgmma]="kernels/reference/sm90_gemm_bf16_wgmma.cu sm90/gemm/bf16-wgmma")
variants="${VARIANTS:-full opcode flops opcode_flops hw duration full_nocache full}"
: > "$out/ncu_times.tsv"
echo -e "name\tvariant\tjson" > "$out/runs.tsv"
for name in ${names//,/ }; do
  read -r src task <<< "${sources[$name]}"
  "$bin/ptxbench" eval "$src" --task "$task" --no-timing --no-evidence > /dev/null 2>&1  # compile
  k=0
  for v in $variants; do
    k=$((k + 1))
    echo "$v" > "$variant_file"
    "$bin/ptxbench" eval "$src" --task "$task" --no-timing --json-out "$out/${name}_$k.json" \
      > "$out/${name}_$k.txt" 2>&1
    echo -e "$name\t$v\t${name}_$k.json" >> "$out/runs.tsv"
  done
done
python3 - "$out" <<'EOF'
import json, sys
out = sys.argv[1]
ncu = [l.rstrip("\n").split("\t") for l in open(f"{out}/ncu_times.tsv")]
print("| task | variant | outcome | evidence s | ncu s | worker controls s | worker calls s | worker cuda s |")
print("|---|---|---|---|---|---|---|---|")
runs = [l.rstrip("\n").split("\t") for l in open(f"{out}/runs.tsv")][1:]
for i, (name, variant, path) in enumerate(runs):
    try:
        v = json.load(open(f"{out}/{path}"))
    except Exception as e:
        print(f"| {name} | {variant} | no verdict ({e}) | | | | | |")
        continue
    e = v.get("evidence", {})
    p = e.get("worker_phases", {})
    wall = ncu[i][1] if i < len(ncu) else "-"
    print(f"| {name} | {variant} | {v.get('outcome')} | {e.get('seconds', 0):.2f} | {wall} | "
          f"{p.get('setup.evidence_controls', 0):.2f} | {p.get('evidence', 0):.2f} | "
          f"{p.get('setup.cuda', 0):.2f} |")
EOF
