#!/usr/bin/env bash
# The ResNet-18 arena must be well below the sum of its intermediates (at most
# half of it) and equal to the liveness lower bound within 10%.
# usage: arena_budget_test.sh KILN SOURCE_DIR WORK_DIR MODELS_DIR
set -euo pipefail
KILN=$1
WORK=$3
MODELS=$4
mkdir -p "$WORK"
"$KILN" compile "$MODELS/resnet18.onnx" -o "$WORK/resnet18.kiln"
"$KILN" inspect "$WORK/resnet18.kiln" | tee "$WORK/resnet18.inspect" | grep -A1 arena_bytes
if awk '/arena_bytes/ { arena = $2 } /unshared_bytes/ { bound = $2; unshared = $6 }
        END { exit !(arena > 0 && arena <= unshared / 2 && arena <= bound * 1.1) }' \
       "$WORK/resnet18.inspect"; then
  echo "resnet18 arena budget: ok"
else
  echo "FAILED: resnet18 arena budget"
  exit 1
fi
