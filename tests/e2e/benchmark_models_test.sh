#!/usr/bin/env bash
# The benchmark models (MLP, ResNet-18, MobileNetV2, GoogLeNet, EfficientNet-B0, a DS-CNN,
# a BERT-style encoder at opsets 13 and 17, a GRU and an LSTM) exported by
# benchmarks/models/export.py, compiled, run in the VM and as an AOT bundle,
# and compared with PyTorch: max|diff| <= 1e-4 * max(1, max|ref|) for both,
# and VM vs AOT within 1e-5 * max(1, max|ref|).
# usage: benchmark_models_test.sh KILN SOURCE_DIR WORK_DIR
set -euo pipefail
KILN=$1
SRC=$2
WORK=$3
PY=/usr/bin/python3
mkdir -p "$WORK"

MODELS="mlp resnet18 mobilenet_v2 googlenet efficientnet_b0 ds_cnn bert bert_op17 gru lstm"
# Exporting is deterministic; reuse files from an earlier run of this build
# and export only the models that are missing or older than the exporter.
missing=""
for model in $MODELS; do
  out="$WORK/models/$model.output.npy"
  [ "$out" -nt "$SRC/benchmarks/models/export.py" ] &&
    [ "$out" -nt "$SRC/benchmarks/models/seq_models.py" ] || missing="$missing,$model"
done
if [ -n "$missing" ]; then
  "$PY" "$SRC/benchmarks/models/export.py" --out "$WORK/models" --models "${missing#,}"
fi

passed=0
failed=0
for model in $MODELS; do
  m="$WORK/models/$model"
  # One input: NAME.input.npy; several: NAME.input0.npy, NAME.input1.npy, ...
  # in signature order.
  inputs=()
  if [ -f "$m.input.npy" ]; then
    inputs=(--input "$m.input.npy")
  else
    for ((i = 0; i < 10; ++i)); do
      [ -f "$m.input$i.npy" ] || break
      inputs+=(--input "$m.input$i.npy")
    done
  fi
  if [ "${#inputs[@]}" -gt 0 ] &&
     "$KILN" compile "$m.onnx" -o "$WORK/$model.kiln" &&
     "$KILN" run "$WORK/$model.kiln" "${inputs[@]}" --output "$WORK/$model.vm.npy" &&
     "$KILN" aot "$WORK/$model.kiln" -o "$WORK/$model.aot" --name "$model" &&
     make -s -C "$WORK/$model.aot" -j2 > "$WORK/$model.make.log" 2>&1 &&
     "$WORK/$model.aot/${model}_run" "${inputs[@]}" --output "$WORK/$model.aot.npy" &&
     "$PY" "$SRC/scripts/compare_npy.py" --label "$model vm:  " "$m.output.npy" "$WORK/$model.vm.npy" &&
     "$PY" "$SRC/scripts/compare_npy.py" --label "$model aot: " "$m.output.npy" "$WORK/$model.aot.npy" &&
     "$PY" "$SRC/scripts/compare_npy.py" --tol 1e-5 --label "$model vm-vs-aot: " \
       "$WORK/$model.vm.npy" "$WORK/$model.aot.npy"; then
    passed=$((passed + 1))
  else
    echo "FAILED: $model"
    failed=$((failed + 1))
  fi
done
# The ResNet-18 arena must be well below the sum of its intermediates
# (at most half of it) and equal to the liveness lower bound within 10%.
if "$KILN" inspect "$WORK/resnet18.kiln" | tee "$WORK/resnet18.inspect" | grep -A1 arena_bytes &&
   awk '/arena_bytes/ { arena = $2 } /unshared_bytes/ { bound = $2; unshared = $6 }
        END { exit !(arena > 0 && arena <= unshared / 2 && arena <= bound * 1.1) }' \
       "$WORK/resnet18.inspect"; then
  passed=$((passed + 1))
else
  echo "FAILED: resnet18 arena budget"
  failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
