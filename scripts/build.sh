#!/usr/bin/env bash
# Configures and builds the release preset (after bootstrap). Usage: scripts/build.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
"$root/scripts/bootstrap.sh"
# Configured every time: cheap, and it refreshes the commit recorded in verdicts (CMakeLists.txt).
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)"
