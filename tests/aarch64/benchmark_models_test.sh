#!/usr/bin/env bash
# The benchmark models (tests/e2e/benchmark_models_lib.sh) on an AArch64 path:
# compiled by kiln on this host, each AOT bundle cross-compiled with the
# path's flags (as a deployment on an AArch64 board builds it), run under
# the emulator, and compared with PyTorch: max|diff| <= 1e-4 * max(1, max|ref|).
# Each output is also compared with the x86-64 VM's on the portable path
# (the same tolerance; the line says whether they are bitwise equal).
# usage: benchmark_models_test.sh KILN SOURCE_DIR WORK_DIR MODELS_DIR PATH FLAGS CC RUN_PREFIX
#   e.g. ... neon "" aarch64-linux-gnu-gcc "qemu-aarch64 -L /usr/aarch64-linux-gnu"
set -euo pipefail
KILN=$1
SRC=$2
WORK=$3
MODELS=$4
KPATH=$5
FLAGS=$6
CROSS_CC=$7
read -r -a RUN_PREFIX <<< "$8"
# The same compiler through ccache's link when scripts/test.sh put it on PATH:
# the models share their kernel sources, and every bundle is named "bench" so
# that the kernels' symbol prefix (kiln/symbol_prefix.h) is the same too.
case $(command -v "${CROSS_CC##*/}") in
  */ccache/*) CROSS_CC=$(command -v "${CROSS_CC##*/}") ;;
esac
PY=/usr/bin/python3
source "$SRC/tests/e2e/benchmark_models_lib.sh"
mkdir -p "$WORK"
export_missing_models "$SRC" "$MODELS"
echo "aarch64 path $KPATH: bundles built with $CROSS_CC -O3 $FLAGS, run by ${RUN_PREFIX[*]}"

passed=0
failed=0
for model in $BENCHMARK_MODELS; do
  m="$MODELS/$model"
  model_inputs "$m"
  start=$SECONDS
  if [ "${#INPUTS[@]}" -gt 0 ] &&
     "$KILN" compile "$m.onnx" -o "$WORK/$model.kiln" &&
     "$KILN" aot "$WORK/$model.kiln" -o "$WORK/$model.aot" --name bench --no-size-report &&
     make -s -C "$WORK/$model.aot" -j2 CC="$CROSS_CC" CFLAGS="-O3 $FLAGS" \
       > "$WORK/$model.make.log" 2>&1 &&
     "${RUN_PREFIX[@]}" "$WORK/$model.aot/bench_run" "${INPUTS[@]}" \
       --output "$WORK/$model.aarch64.npy" &&
     "$KILN" run "$WORK/$model.kiln" --isa portable "${INPUTS[@]}" \
       --output "$WORK/$model.x86_portable.npy" &&
     "$PY" "$SRC/scripts/compare_npy.py" --label "$model aarch64 $KPATH vs PyTorch:      " \
       "$m.output.npy" "$WORK/$model.aarch64.npy" &&
     "$PY" "$SRC/scripts/compare_npy.py" --label "$model aarch64 $KPATH vs x86 portable: " \
       "$WORK/$model.x86_portable.npy" "$WORK/$model.aarch64.npy"; then
    passed=$((passed + 1))
  else
    echo "FAILED: $model on aarch64 $KPATH (logs in $WORK)"
    failed=$((failed + 1))
  fi
  echo "  ($model: $((SECONDS - start)) s)"
done
echo "aarch64 $KPATH: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
