#!/usr/bin/env bash
# All tests: install what is missing, build, run ctest.
# usage: scripts/test.sh [PRESET [CTEST ARGS...]]   (PRESET: release (default), debug, asan)
set -euo pipefail
cd "$(dirname "$0")/.."
PRESET=${1:-release}
shift || true
bash scripts/install_deps.sh
cmake --preset "$PRESET" > /dev/null
cmake --build --preset "$PRESET"
ctest --preset "$PRESET" -j2 "$@"
