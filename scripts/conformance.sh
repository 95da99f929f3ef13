#!/usr/bin/env bash
# The ONNX backend conformance suite (Debian's libonnx-testdata): builds the
# runner, runs all four suites in the VM and as AOT C, checks them against
# tests/conformance/expectations.txt and regenerates docs/conformance.md.
# usage: scripts/conformance.sh [--update] [BUILD_DIR]
#   --update  rewrite expectations.txt from the results instead of checking
# Then the same suites with the models' declared value_info and output shapes
# removed (--strip-declared-shapes: what shape inference finds by itself),
# against expectations_stripped.txt.
# The kernels run on the widest SIMD path this CPU has, or the one KILN_ISA
# names (portable, avx2, avx512, neon), in the VM and in the AOT bundles.
set -euo pipefail
cd "$(dirname "$0")/.."
UPDATE=()
if [ "${1:-}" = "--update" ]; then UPDATE=(--update-expectations); shift; fi
BUILD=${1:-build/release}
bash scripts/install_deps.sh
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$BUILD" -j2 --target conformance_runner
"$BUILD/tests/conformance/conformance_runner" \
  --work-dir "$BUILD/tests/conformance/work" \
  --expectations tests/conformance/expectations.txt \
  --runtime-dir "$BUILD/runtime" \
  --write-report docs/conformance.md --jobs 2 "${UPDATE[@]}"
"$BUILD/tests/conformance/conformance_runner" \
  --work-dir "$BUILD/tests/conformance/work_stripped" \
  --expectations tests/conformance/expectations_stripped.txt \
  --runtime-dir "$BUILD/runtime" --strip-declared-shapes --jobs 2 "${UPDATE[@]}"
