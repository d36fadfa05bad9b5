# Sourced by the attention dev harness scripts (fwd_dev.sh, varlen_dev.sh, bwd_dev.sh): which
# kernel source a harness builds and times.
# choose_kernel VAR DEFAULT MACRO: sets `kernel` to the file the environment variable VAR names
# (a variant of the expert, e.g. from bench/gemm_dev/variants.sh with PTXB_SOURCES_ONLY=1) or to
# DEFAULT, and `source_define` to the nvcc flag that makes the harness #include that file
# (-DMACRO="/absolute/path"; empty for DEFAULT, which the harness #includes by itself). Exits 2
# when the file is missing.
choose_kernel() {
  local var="$1" fallback="$2" macro="$3"
  kernel="${!var:-$fallback}"
  [ -f "$kernel" ] || { echo "$kernel not found (run from the repository root)" >&2; exit 2; }
  source_define=()
  [ -n "${!var:-}" ] &&
    source_define=(-D"$macro"="\"$(cd "$(dirname "$kernel")" && pwd)/$(basename "$kernel")\"")
  return 0
}
