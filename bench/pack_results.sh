#!/usr/bin/env bash
# Recompresses a results folder's gzip files with xz before they are committed (bench/README.md:
# the working tree that travels to the GPU machine has a size limit). The GPU machine's scripts
# write gzip (its image need not have xz); this runs here: NAME.gz -> NAME.xz, NAME.tgz ->
# NAME.txz, each checked to decompress to the same bytes, the .gz removed. Rename references in
# the folder's README by hand.
# Usage: bench/pack_results.sh DIR
set -euo pipefail
dir="$1"
find "$dir" -type f \( -name '*.gz' -o -name '*.tgz' \) -print0 | while IFS= read -r -d '' f; do
  case "$f" in
    *.tgz) new="${f%.tgz}.txz" ;;
    *) new="${f%.gz}.xz" ;;
  esac
  gzip -dc "$f" | xz -6 -T2 -c > "$new.tmp"
  cmp -s <(gzip -dc "$f") <(xz -dc "$new.tmp") || { echo "pack_results: $f: round trip differs" >&2; exit 1; }
  mv "$new.tmp" "$new" && rm "$f"
  echo "$f -> $new"
done
