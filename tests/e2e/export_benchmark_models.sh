#!/usr/bin/env bash
# Exports the benchmark models once for every test that uses them (the ctest
# fixture of the per-path benchmark-model tests, run before them).
# usage: export_benchmark_models.sh SOURCE_DIR MODELS_DIR
set -euo pipefail
source "$(dirname "$0")/benchmark_models_lib.sh"
mkdir -p "$2"
export_missing_models "$1" "$2"
for model in $BENCHMARK_MODELS; do
  [ -f "$2/$model.onnx" ] && [ -f "$2/$model.output.npy" ] || { echo "FAILED: $model not exported"; exit 1; }
done
echo "benchmark models in $2: $BENCHMARK_MODELS"
