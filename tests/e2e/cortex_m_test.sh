#!/usr/bin/env bash
# Cortex-M bundles: DS-CNN and the MLP (benchmarks/models/export.py) compiled,
# run in the VM, then `kiln aot --target cortex-m4|cortex-m7`, built with
# arm-none-eabi-gcc (`make`) and run on QEMU's MPS2 boards (`make qemu`).
# Passes when each firmware's output matches the VM within
# 1e-5 * max(1, max|vm|) and PyTorch's within 1e-4 * max(1, max|ref|), and a
# firmware that fails (missing input file) makes `make qemu` fail.
# Skipped (exit 77) when qemu-system-arm or the arm-none-eabi toolchain with
# newlib is not installed.
# usage: cortex_m_test.sh KILN SOURCE_DIR WORK_DIR
set -euo pipefail
KILN=$1
SRC=$2
WORK=$3
PY=/usr/bin/python3

for tool in qemu-system-arm arm-none-eabi-gcc arm-none-eabi-size; do
  if ! command -v "$tool" > /dev/null; then
    echo "SKIP: $tool not installed"
    exit 77
  fi
done
# gcc echoes the bare name when newlib's semihosting specs are missing.
if [ "$(arm-none-eabi-gcc -print-file-name=rdimon.specs)" = rdimon.specs ]; then
  echo "SKIP: newlib for arm-none-eabi (rdimon.specs) not installed"
  exit 77
fi

mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd) # QEMU opens files relative to the bundle: use absolute paths

MODELS="ds_cnn mlp"
missing=""
for model in $MODELS; do
  [ -f "$WORK/models/$model.output.npy" ] || missing="$missing,$model"
done
if [ -n "$missing" ]; then
  "$PY" "$SRC/benchmarks/models/export.py" --out "$WORK/models" --models "${missing#,}"
fi
for model in $MODELS; do
  "$KILN" compile "$WORK/models/$model.onnx" -o "$WORK/$model.kiln"
  "$KILN" run "$WORK/$model.kiln" --input "$WORK/models/$model.input.npy" \
    --output "$WORK/$model.vm.npy"
done

passed=0
failed=0
# MODEL:CPU[:external] — external: weights in NAME_weights.bin, which the
# firmware reads from the bundle directory through semihosting.
for run in ds_cnn:cortex-m4 mlp:cortex-m4 ds_cnn:cortex-m7 ds_cnn:cortex-m4:external; do
  model=${run%%:*}
  rest=${run#*:}
  cpu=${rest%%:*}
  weights=embedded
  [ "$rest" != "$cpu" ] && weights=${rest#*:}
  tag=$cpu
  [ "$weights" = external ] && tag=$cpu.external
  dir="$WORK/$model.$tag"
  out="$WORK/$model.$tag.npy"
  rm -rf "$dir" "$out"
  # stdin from /dev/null: QEMU must not wait on or grab the terminal.
  # kiln aot measures the model object it built with the cross compiler.
  if "$KILN" aot "$WORK/$model.kiln" -o "$dir" --name "$model" --target "$cpu" \
       --weights="$weights" > "$WORK/$model.$tag.aot.log" &&
     grep -E "^size target=$cpu text=[1-9][0-9]* rodata=[1-9][0-9]* data=[0-9]+ bss=[0-9]+ workspace=[0-9]+( weights=[1-9][0-9]*)?$" \
       "$WORK/$model.$tag.aot.log" &&
     make -s -C "$dir" -j2 > "$WORK/$model.$tag.make.log" 2>&1 &&
     make -s -C "$dir" qemu INPUT="$WORK/models/$model.input.npy" OUTPUT="$out" REPEAT=3 \
       < /dev/null > "$WORK/$model.$tag.qemu.log" 2>&1 &&
     "$PY" "$SRC/scripts/compare_npy.py" --tol 1e-5 --label "$model $tag vs vm: " \
       "$WORK/$model.vm.npy" "$out" &&
     "$PY" "$SRC/scripts/compare_npy.py" --label "$model $tag vs torch: " \
       "$WORK/models/$model.output.npy" "$out"; then
    arm-none-eabi-size "$dir/$model.elf" | tail -n 1
    # Virtual time under -icount shift=0: latency_ms x 1e6 ~ instructions.
    grep '^latency_ms' "$WORK/$model.$tag.qemu.log"
    passed=$((passed + 1))
  else
    echo "FAILED: $model on $cpu (logs: $WORK/$model.$tag.*.log)"
    cat "$WORK/$model.$tag.make.log" "$WORK/$model.$tag.qemu.log" 2> /dev/null | tail -n 20
    failed=$((failed + 1))
  fi
done

# A firmware error must reach make's exit status (through QEMU's).
if [ -f "$WORK/ds_cnn.cortex-m4/ds_cnn.elf" ]; then
  if make -s -C "$WORK/ds_cnn.cortex-m4" qemu INPUT="$WORK/no_such_input.npy" \
       OUTPUT="$WORK/unused.npy" < /dev/null > "$WORK/failing.qemu.log" 2>&1; then
    echo "FAILED: make qemu succeeded with a missing input file"
    failed=$((failed + 1))
  elif grep -q "cannot open input" "$WORK/failing.qemu.log"; then
    passed=$((passed + 1))
  else
    echo "FAILED: make qemu failed without the runner's error message:"
    cat "$WORK/failing.qemu.log"
    failed=$((failed + 1))
  fi
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
