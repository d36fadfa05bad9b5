#!/usr/bin/env bash
# One call on a rented GPU machine whose results must come back through a few files: runs
# bench/evidence_session.sh BIN_DIR /tmp/NAME PARTS... under a time limit, then packs whatever it
# produced (also when the limit cut it short) into OUT_DIR/NAME.tar.gz and prints the session's
# tables. Usage: bench/device_call.sh BIN_DIR OUT_DIR NAME LIMIT_S PART...
#   e.g. bench/device_call.sh .carry/bin "$OUT" s1 560 gputests experts tma,fp8 1 cheats 1
# PTXB_COMMIT (the commit the binaries were built from) goes into environment.txt.
set -uo pipefail
bin="$1" out="$2" name="$3" limit="$4"; shift 4
work="/tmp/$name"
timeout -k 5 "$limit" "$(dirname "${BASH_SOURCE[0]}")/evidence_session.sh" "$bin" "$work" "$@" \
  > "/tmp/$name.session.log" 2>&1
echo "session exit $?"
cp "/tmp/$name.session.log" "$work/" 2>/dev/null
tar -C "$work" --exclude=cache --exclude=cache-old --exclude=cheats-src --exclude=repeat-src \
  -czf "$out/$name.tar.gz" .
tail -60 "/tmp/$name.session.log"
