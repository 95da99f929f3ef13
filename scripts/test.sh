#!/usr/bin/env bash
# All tests: install what is missing, build (release preset), run ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
cmake --preset release > /dev/null
cmake --build --preset release
ctest --preset release -j2 "$@"
