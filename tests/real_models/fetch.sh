#!/usr/bin/env bash
# Installs ONNX Runtime (npm onnxruntime-node, benchmarks/models/ort) and the
# real models of models.json into DEST. Without the npm registry: exit 77
# (ctest's skip) with the reason.
# usage: fetch.sh SOURCE_DIR DEST
set -uo pipefail
SRC=$1
DEST=$2
if ! bash "$SRC/benchmarks/models/ort/install.sh" > "$DEST.ort-install.log" 2>&1; then
  echo "SKIP real models: ONNX Runtime could not be installed from npm ($(tail -n 1 "$DEST.ort-install.log"))"
  exit 77
fi
exec /usr/bin/python3 "$SRC/tests/real_models/fetch.py" "$DEST"
