#!/usr/bin/env bash
# Call 4: the committed hostile submissions (tests/adversarial/*.cu) judged by commit 4509b09's
# binaries; the command as run through the device tool (OUT = its output folder).
export PTXB_COMMIT="$(cat .carry/n/COMMIT)"
timeout -k 5 290 bench/evidence_session.sh .carry/n "$OUT/c4" adversarial > /tmp/c4.log 2>&1
echo "exit $?"
tail -42 "$OUT/c4/adversarial.log"
rm -rf "$OUT/c4/cache"
tar -C "$OUT" -czf /tmp/c4.tar.gz c4 && mv /tmp/c4.tar.gz "$OUT/"
