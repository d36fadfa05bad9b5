#!/usr/bin/env bash
# Call E: main's regression on the H200: the GPU tests and the 32 committed adversarial
# submissions against main's judging binaries (built at ad50de9; src/ unchanged since).
set -uo pipefail
PTXB_COMMIT=44ee5e5 bench/device_call.sh .carry/bin-ad50de9 "$OUT" reg 500 gputests adversarial
