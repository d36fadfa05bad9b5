#!/usr/bin/env bash
# Session 2026-12-07d, call 3: every generated cheat (tests/adversarial/make_cheats.sh: evidence,
# timing, fp8, grouped, llm, paged, varlen, attention), timing shortened, on the code that judges
# with the library's cached plan choices (1525c06 and after), cut at LIMIT_S; verdicts and logs
# packed into OUT/cheats.tar.xz, run.sh's table into OUT/cheats_summary.tsv.
# Usage (repository root of the GPU machine): call3.sh BIN OUT [LIMIT_S=520]
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" limit="${3:-520}"; mkdir -p "$out"
timeout "$limit" bash bench/evidence_session.sh "$bin" /tmp/ev cheats
echo "evidence_session rc $?"
cp /tmp/ev/cheats/summary.tsv "$out/cheats_summary.tsv" 2>/dev/null
cp /tmp/ev/environment.txt "$out/" 2>/dev/null
tar -cJf "$out/cheats.tar.xz" --exclude=cache -C /tmp/ev . 2>/dev/null
awk -F'\t' 'NR>1{print $6}' "$out/cheats_summary.tsv" | sort | uniq -c
awk -F'\t' 'NR>1 && $6!="yes"{print $1, $4, $5, $7}' "$out/cheats_summary.tsv"
tail -3 /tmp/ev/cheats.log
