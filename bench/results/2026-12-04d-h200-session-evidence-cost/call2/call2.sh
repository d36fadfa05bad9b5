#!/usr/bin/env bash
# Call 2: the evidence run's cost, second look: ncu's passes per kernel (text report), the marker
# kernels left out, the per-opcode metric without modifiers, the SourceCounters section; and the
# hardware metrics the H200's ncu offers for tensor work (ncu --query-metrics).
# Usage (repository root, GPU machine): call2/call2.sh BIN_DIR OUT
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2"
mkdir -p "$out"; out="$(cd "$out" && pwd)"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > "$out/gpu.txt"
ncu --version >> "$out/gpu.txt" 2>&1
ncu --query-metrics --chip gh100 > "$out/metrics.txt" 2>&1
ncu --query-metrics --query-metrics-mode suffix --chip gh100 > "$out/metrics_suffix.txt" 2>&1
VARIANTS="full full_text nomarker opcode_nomod source" timeout -k 5 300 \
  bench/probes/ncu_cost_probe.sh "$bin" "$out/ncu" tma,bwd > "$out/ncu.log" 2>&1
echo "ncu probe exit $?"
rm -rf "$out/ncu/cache"
tar -C "$out" -czf "$out/call2.tar.gz" --exclude=call2.tar.gz .
tail -14 "$out/ncu.log"
grep -h "passes" "$out"/ncu/csv/*full_text* | sed 's/^.*Profiling/Profiling/' | head -30
grep -iE "tensor|gmma|ops_path" "$out/metrics.txt" | head -60
