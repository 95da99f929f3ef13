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
# Hundreds of tests build AOT bundles, and every bundle compiles its own copy of
# the same kernel sources with the same flags (ResNet-18's take 25 s at -O3):
# ccache's compiler links (/usr/lib/ccache) make the repeats cache hits. Its
# cache lives in the build tree, so a clean clone starts empty.
if [ -d /usr/lib/ccache ]; then
  export PATH="/usr/lib/ccache:$PATH" CCACHE_DIR="$PWD/build/$PRESET/bundle-ccache"
fi
ctest --preset "$PRESET" -j2 "$@"
