# Sourced by call2.sh and call3.sh once `bin` and `out` are set: writes the GPU to OUT/gpu.txt and,
# on an H200, runs the acceptance evaluations of callH200.sh
# (bench/results/2026-12-05g-h100-session/next), its time gate H200_GATE seconds (default 500),
# into OUT/H1 and exits the calling script; on another GPU it returns.
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > "$out/gpu.txt"
cat "$out/gpu.txt"
if grep -q H200 "$out/gpu.txt"; then
  sed "s/-gt 540/-gt ${H200_GATE:-500}/" bench/results/2026-12-05g-h100-session/next/callH200.sh \
    > /tmp/callH200.sh
  timeout 585 bash /tmp/callH200.sh "$bin" "$out/H1"
  exit
fi
