#!/usr/bin/env bash
# Prepared in session 2026-12-07e: the whole adversarial suite on the H200, in parts that fit a
# device call: `top` every tests/adversarial/*.cu (tests/adversarial/run.sh's default set), `gen1`
# .. `gen3` a third each of the generated cheats (tests/adversarial/make_cheats.sh, by name),
# timing shortened for the generated ones as bench/evidence_session.sh's `cheats` does. Each part
# runs between run.sh's two controls; its table lands in OUT/PART_summary.tsv, its verdicts and
# logs in OUT/PART.tar.xz, and every row not as expected is printed.
# Usage (repository root of the GPU machine): adversarial.sh BIN OUT PART [LIMIT_S=270]
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" part="$3" limit="${4:-270}"; mkdir -p "$out"
out="$(cd "$out" && pwd)" work="/tmp/adv-$part"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
case "$part" in
  top) timeout "$limit" bash tests/adversarial/run.sh "$bin" "$work" > "$out/$part.txt" 2>&1 ;;
  gen1 | gen2 | gen3)
    tests/adversarial/make_cheats.sh /tmp/adv-src > /dev/null
    mapfile -t all < <(ls /tmp/adv-src/*.cu | sort)
    third=$(((${#all[@]} + 2) / 3)) k="${part#gen}"
    PTXBENCH_TIMING_SAMPLES=10 PTXBENCH_TIMING_MIN_MS=0 PTXBENCH_TIMING_WARMUP=2 \
      timeout "$limit" bash tests/adversarial/run.sh "$bin" "$work" \
      "${all[@]:$(((k - 1) * third)):$third}" > "$out/$part.txt" 2>&1 ;;
  *) echo "adversarial.sh: PART is top, gen1, gen2 or gen3" >&2; exit 2 ;;
esac
echo "$part: run.sh rc $?"
cp "$work/summary.tsv" "$out/${part}_summary.tsv" 2>/dev/null
tar -cJf "$out/$part.tar.xz" -C "$work" . 2>/dev/null
awk -F'\t' 'NR>1{n++; if ($6=="yes") ok++} END{print n " rows, " ok " as expected"}' \
  "$out/${part}_summary.tsv" 2>/dev/null
awk -F'\t' 'NR>1 && $6!="yes"{print "UNEXPECTED", $1, $4, $5, $7}' "$out/${part}_summary.tsv" 2>/dev/null
