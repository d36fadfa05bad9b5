#!/usr/bin/env bash
# Session 2026-12-06 (twentieth), fifth device call (the session's last 390 s of device time):
# the dev harness's k1 times of the backward expert (kStatsEarly on) beside `bwd_stats_first`
# (the step's LSE and Delta read before its S^T and dP^T are issued), the S 4096 cases.
# Output: OUT/B.tar.gz. Usage (repository root of the GPU machine): call5.sh OUT
set -uo pipefail
out="$1"; start=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$out/gpu.txt"
timeout 230 bench/attention_dev/bwd_variants.sh /tmp/B bwd_stats_first --only S4096 > /tmp/B.log 2>&1
grep -E "^==|failed$|S4096|spill" /tmp/B.log | head -30
find /tmp/B \( -name '*.o' -o -name '*.so' -o -name bwd_dev \) -delete 2>/dev/null
cp /tmp/B.log /tmp/B/ 2>/dev/null; tar -C /tmp -czf "$out/B.tar.gz" B
echo "call5 done after $((SECONDS - start)) s"
