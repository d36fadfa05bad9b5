#!/usr/bin/env bash
# One device call's dev work on attention backward forms (the shape of the session calls since
# 2026-12-06g, written once): every case of the dev harness for some forms, interleaved timing
# rounds of others, then `ptxbench eval` of variants beside their experts. Everything lands in
# one archive, OUT/dev.tar.gz, written after each part (a call cut short keeps what it did); the
# summaries are printed whole.
# Usage (repository root of the GPU machine):
#   bwd_dev_call.sh BIN OUT LIMIT_S FULL TIMED VARIANTS
#   BIN: ptxbench, ptxbench-worker and BIN/FORM/bwd_dev for every form named
#   FULL: FORM:SECONDS,... (every case, each within its seconds)
#   TIMED: FORM,... (timing rounds; the table gives each form's speed over the first's)
#   VARIANTS: bench/gemm_dev/variants.sh names for bench/gemm_dev/judge_variants.sh
# TIMING_ROUNDS (3) rounds, none started after TIMING_GATE_S (200) seconds; the judge runs only
# with more than 120 s left.
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" limit="$3" full="$4" timed="$5" variants="$6"
work=/tmp/bwd_dev_call; mkdir -p "$out" "$work/logs"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee "$work/gpu.txt"
pack() { tar -C "$work" -czf "$out/dev.tar.gz" .; }
for entry in ${full//,/ }; do
  h="${entry%:*}"
  timeout "${entry#*:}" "$bin/$h/bwd_dev" > "$work/logs/$h.full.log" 2>&1
  echo "== $h, every case: exit $? ($(grep -c PASS "$work/logs/$h.full.log") PASS lines)" |
    tee -a "$work/full.txt"
  sed -n '/==== SUMMARY/,$p' "$work/logs/$h.full.log" | grep -v PASS | cut -c1-220 |
    tee -a "$work/full.txt"
  pack
done
for r in $(seq 1 "${TIMING_ROUNDS:-3}"); do
  [ "$SECONDS" -gt "${TIMING_GATE_S:-200}" ] && break
  for h in ${timed//,/ }; do
    for c in "H32 S4096 D64" "H32 HKV4 S4096 D64" "B4 H16 S4096 D128" "S16384"; do
      f="$work/logs/$h.t$r.$(echo "$c" | tr -d ' ').log"
      timeout 40 "$bin/$h/bwd_dev" --only "$c" > "$f" 2>&1
      # each TIME line named by its case's shape (the "[NAME] reference" line before it)
      awk -v tag="$h.t$r" '/^  \[/ { name = $0; sub(/^  \[/, "", name); sub(/\].*/, "", name);
        gsub(/ /, "", name) } /TIME total/ { sub(/^ *TIME/, tag "." name); print substr($0, 1, 150) }' \
        "$f" >> "$work/timing.txt"
    done
  done
done
# shellcheck disable=SC2086  # the forms, one argument each
[ -s "$work/timing.txt" ] &&
  python3 bench/attention_dev/timing_table.py "$work/timing.txt" ${timed//,/ } |
  tee "$work/table.txt"
pack
left=$((limit - SECONDS))
echo "== judge, $left s left"
[ "$left" -gt 120 ] && bash bench/gemm_dev/judge_variants.sh "$bin" "$work/J" "$variants" "$left"
pack
