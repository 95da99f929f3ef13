#!/usr/bin/env bash
# Compiles every ONNX model the test suites and the benchmarks use with one
# `kiln` binary and prints, per model, the SHA-256 of the module it wrote (or
# the first line of its error). Two runs compared line by line show whether a
# refactoring changed what the compiler writes:
#
#   scripts/module_hashes.sh OLD/kiln > /tmp/before.txt
#   scripts/module_hashes.sh build/release/tools/kiln > /tmp/after.txt
#   diff /tmp/before.txt /tmp/after.txt && echo byte-identical
#
# Models: examples/ and tests/ in the tree, the ONNX conformance data
# (libonnx-testdata), the models the test suites generated into
# build/release (run the suite first to have them) and, if given as
# KILN_HASH_EXTRA (a directory), more (e.g. benchmarks/models/export.py's).
set -euo pipefail
kiln=${1:?usage: module_hashes.sh KILN_BINARY}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

{
  find "$root/examples" "$root/tests" -name '*.onnx'
  if [ -d /usr/share/libonnx-testdata/data ]; then
    find /usr/share/libonnx-testdata/data -name 'model.onnx'
  fi
  if [ -d "$root/build/release" ]; then find "$root/build/release" -name '*.onnx'; fi
  if [ -n "${KILN_HASH_EXTRA:-}" ]; then find "$KILN_HASH_EXTRA" -name '*.onnx'; fi
} | LC_ALL=C sort | while read -r model; do
  if "$kiln" compile "$model" -o "$work/m.kiln" > "$work/log" 2>&1; then
    echo "$(sha256sum < "$work/m.kiln" | cut -c1-64) $model"
  else
    echo "error: $(grep -m1 . "$work/log" | cut -c1-160) $model"
  fi
  rm -f "$work/m.kiln"
done
