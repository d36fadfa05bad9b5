#!/usr/bin/env bash
# Generates the cheats of tests/adversarial/evidence/, timing/, fp8/, llm/, grouped/, attention/,
# varlen/ and paged/ as complete submissions ("evidence_NAME.cu", "timing_NAME.cu", ...);
# an evidence or timing cheat is the prelude (a SIMT GEMM), the one-tile-per-CTA wgmma GEMM of
# evidence/tile_gemm_base.inc (the cp.async expert until 2026-12-05) with its kernel diverting to
# the SIMT path when the cheat's divert_to_simt() says so and its entry points renamed
# expert_plan/expert_run, then the cheat itself (its own ptxb_plan/ptxb_run). The cheat's
# "// ptxbench-expect:" line goes first. A folder cheat may embed a module it loads at run time
# ("// ptxbench-embed-cubin(NAME): FILE.ptx" and "-fatbin", below).
# NOTE: generated rather than committed whole, so that every cheat runs a real, correct wgmma GEMM
# (and the other folders' cheats their expert's).
# Usage: tests/adversarial/make_cheats.sh OUT_DIR   (prints the generated files)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="$1"; mkdir -p "$out"
tile_base="$root/tests/adversarial/evidence/tile_gemm_base.inc"
[[ "$(grep -c '^  const int k_blocks = (K + kBlockK - 1) / kBlockK;$' "$tile_base")" == 1 ]] ||
  { echo "make_cheats: the base needs the line the diversion follows exactly once" >&2; exit 1; }
for cheat in "$root"/tests/adversarial/evidence/*.cu "$root"/tests/adversarial/timing/*.cu; do
  name="$(basename "$(dirname "$cheat")")_$(basename "$cheat" .cu)"
  {
    grep -m1 '^// ptxbench-expect:' "$cheat"
    cat "$root/tests/adversarial/evidence/prelude.inc"
    sed -e 's|^  const int k_blocks = (K + kBlockK - 1) / kBlockK;$|&\n  if (divert_to_simt()) { simt::tile(a, b, c, M, N, K, m0, n0); return; }|' \
        -e 's|extern "C" int ptxb_plan(|extern "C" int expert_plan(|' \
        -e 's|extern "C" int ptxb_run(|extern "C" int expert_run(|' "$tile_base"
    grep -v '^// ptxbench-expect:' "$cheat"
  } > "$out/$name.cu"
  echo "$out/$name.cu"
done
# The fp8, production-shape, grouped and attention cheats: an expert (the fp8 one for fp8/, the
# bf16-llm one for llm/, the grouped one for grouped/, the attention backward one for attention/,
# the variable-length attention one for varlen/, the paged decode one for paged/, or the file a
# "// ptxbench-base: PATH" line names) with its entry points renamed and the edits
# of the cheat's "// ptxbench-sed(N): EXPR" lines applied, then the cheat. N is the number of
# the base's lines EXPR changes, checked here: when an expert is reformatted (a call split over
# lines, a line moved into a helper), a cheat whose edit now misses one of its lines stops the
# generation instead of compiling into a different cheat than the one its expectation was for.

# lines_changed EXPR FILE: how many of FILE's lines the sed command EXPR changes (`t` branches
# only after a substitution on the current line; `=` prints that line's number once).
lines_changed() {
  local n
  n="$(sed -n -e "$1" -e 't changed' -e 'd' -e ':changed' -e '=' "$2" | wc -l)"
  echo $((n))
}
sed_line='^// ptxbench-sed\(([1-9][0-9]*)\): (.+)$'  # the count, then the sed command

# embed_device_code CHEAT: for each "// ptxbench-embed-cubin(NAME): FILE.ptx" line of CHEAT, FILE
# (beside CHEAT) assembled by ptxas for sm_90a and written as `static const unsigned char NAME[]`:
# a module the cheat loads at run time (cuModuleLoadData), whose code no static listing of the
# submission shows and which needs no JIT compiler (a library mapped at run time is a violation).
# "// ptxbench-embed-fatbin(NAME): FILE.ptx" the same as a fat binary (nvcc --fatbin, sm_90a), for a
# cheat that hands it to the runtime's own registration functions instead;
# "// ptxbench-embed-fatbin(NAME, HIDDEN): FILE.ptx" also writes its ELF image into the .nv_fatbin
# section where cuobjdump does not list it (embed_image.py).
ptxas="${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
embed_line='^// ptxbench-embed-(cubin|fatbin)\(([A-Za-z_][A-Za-z0-9_]*)(, ([A-Za-z_][A-Za-z0-9_]*))?\): (.+)$'
embed_device_code() {
  local line image ptx
  while IFS= read -r line; do
    [[ "$line" =~ $embed_line ]] ||
      { echo "make_cheats: $1: '$line' is not '// ptxbench-embed-cubin|fatbin(NAME[, HIDDEN]): FILE'" >&2
        exit 1; }
    [[ "${BASH_REMATCH[1]}" == fatbin || -z "${BASH_REMATCH[4]}" ]] ||
      { echo "make_cheats: $1: a hidden copy is made of fat binaries only" >&2; exit 1; }
    image="$(mktemp)" ptx="$(dirname "$1")/${BASH_REMATCH[5]}"
    if [[ "${BASH_REMATCH[1]}" == cubin ]]; then
      "$ptxas" -arch=sm_90a "$ptx" -o "$image"
    else
      "$nvcc" --fatbin -gencode arch=compute_90a,code=sm_90a "$ptx" -o "$image"
    fi || { echo "make_cheats: $1: assembling ${BASH_REMATCH[5]} failed" >&2; rm -f "$image"; exit 1; }
    python3 "$root/tests/adversarial/embed_image.py" "$image" "${BASH_REMATCH[2]}" \
      ${BASH_REMATCH[4]:+"${BASH_REMATCH[4]}"} || { rm -f "$image"; exit 1; }
    rm -f "$image"
  done < <(grep -E '^// ptxbench-embed-(cubin|fatbin)' "$1" || true)
}

declare -A default_base=([fp8]=kernels/reference/sm90_gemm_fp8_e4m3.cu
  [llm]=kernels/reference/sm90_gemm_bf16_llm.cu
  [grouped]=kernels/reference/sm90_gemm_bf16_grouped.cu
  [attention]=kernels/reference/sm90_attention_bwd_bf16.cu
  [varlen]=kernels/reference/sm90_attention_fwd_varlen.cu
  [paged]=kernels/reference/sm90_attention_decode_paged.cu)
for folder in fp8 llm grouped attention varlen paged; do
  for cheat in "$root"/tests/adversarial/"$folder"/*.cu; do
    name="${folder}_$(basename "$cheat" .cu)"
    base="$(sed -n 's|^// ptxbench-base: \(.*\)$|\1|p' "$cheat")"
    base="$root/${base:-${default_base[$folder]}}"
    # "// ptxbench-sed(N): EXPR" lines edit the expert's source; each must change N of its lines.
    edits=(-e 's|extern "C" int ptxb_plan(|extern "C" int expert_plan(|'
           -e 's|extern "C" int ptxb_run(|extern "C" int expert_run(|')
    while IFS= read -r line; do
      [[ "$line" =~ $sed_line ]] ||
        { echo "make_cheats: $cheat: '$line' is not '// ptxbench-sed(N): EXPR'" >&2; exit 1; }
      expected="${BASH_REMATCH[1]}"; expr="${BASH_REMATCH[2]}"
      changed="$(lines_changed "$expr" "$base")"
      [[ "$changed" == "$expected" ]] ||
        { echo "make_cheats: $cheat: '$expr' changes $changed lines of $base, not $expected" >&2
          exit 1; }
      edits+=(-e "$expr")
    done < <(grep '^// ptxbench-sed' "$cheat" || true)
    {
      grep -m1 '^// ptxbench-expect:' "$cheat"
      sed "${edits[@]}" "$base"
      embed_device_code "$cheat"
      grep -v '^// ptxbench-expect:' "$cheat"
    } > "$out/$name.cu"
    echo "$out/$name.cu"
  done
done
