#!/usr/bin/env bash
# The benchmark models (benchmark_models_lib.sh) on one SIMD kernel path:
# compiled, run in the VM on that path (kiln run --isa PATH) and as an AOT
# bundle built with that path's compile flags (so the bundle's own compiled
# kernels are what is tested), and compared with PyTorch:
# max|diff| <= 1e-4 * max(1, max|ref|) for both, and VM vs AOT bitwise equal
# (the same kernel sources, compiled with the same flags, no FMA contraction),
# and the VM on 3 threads bitwise equal to 1 (kernels split their work so
# that no result depends on the partition).
# A path this CPU lacks is skipped: exit 77, with FLAGS_TOOL's reason.
# usage: benchmark_models_test.sh KILN SOURCE_DIR WORK_DIR MODELS_DIR PATH FLAGS_TOOL
#   FLAGS_TOOL PATH prints the bundle flags of PATH (exit 77 if the CPU lacks it)
set -euo pipefail
KILN=$1
SRC=$2
WORK=$3
MODELS=$4
KPATH=$5
FLAGS_TOOL=$6
PY=/usr/bin/python3
source "$SRC/tests/e2e/benchmark_models_lib.sh"

set +e
FLAGS=$("$FLAGS_TOOL" "$KPATH")
rc=$?
set -e
if [ "$rc" -ne 0 ]; then
  echo "$FLAGS"
  exit "$rc"
fi
# The widest path this CPU runs takes every model; a narrower one a subset
# that still meets each kernel family (depthwise + SE/SiLU, pooling,
# attention + GELU, recurrent cells): every kernel of every path runs in
# runtime_tests_<path> and the conformance sample, and CI time is finite.
MODELS_HERE=$BENCHMARK_MODELS
if [ "$FLAGS" != "$("$FLAGS_TOOL" auto)" ]; then
  MODELS_HERE=$BENCHMARK_MODELS_NARROWER
fi
echo "path $KPATH: bundles built with CFLAGS='-O3 $FLAGS'; models: $MODELS_HERE"
mkdir -p "$WORK"
export_missing_models "$SRC" "$MODELS"

passed=0
failed=0
# Every bundle is named "bench": the kernels' symbol prefix
# (kiln/symbol_prefix.h) is then the same in each, so a compiler cache
# (scripts/test.sh) compiles each kernel source once per path, not per model.
for model in $MODELS_HERE; do
  m="$MODELS/$model"
  model_inputs "$m"
  if [ "${#INPUTS[@]}" -gt 0 ] &&
     "$KILN" compile "$m.onnx" -o "$WORK/$model.kiln" &&
     "$KILN" run "$WORK/$model.kiln" --isa "$KPATH" "${INPUTS[@]}" --output "$WORK/$model.vm.npy" &&
     "$KILN" run "$WORK/$model.kiln" --isa "$KPATH" --threads 3 "${INPUTS[@]}" --output "$WORK/$model.vm3.npy" &&
     "$KILN" aot "$WORK/$model.kiln" -o "$WORK/$model.aot" --name bench --no-size-report &&
     make -s -C "$WORK/$model.aot" -j2 CFLAGS="-O3 $FLAGS" > "$WORK/$model.make.log" 2>&1 &&
     "$WORK/$model.aot/bench_run" "${INPUTS[@]}" --output "$WORK/$model.aot.npy" &&
     "$PY" "$SRC/scripts/compare_npy.py" --label "$model $KPATH vm:  " "$m.output.npy" "$WORK/$model.vm.npy" &&
     "$PY" "$SRC/scripts/compare_npy.py" --label "$model $KPATH aot: " "$m.output.npy" "$WORK/$model.aot.npy" &&
     "$PY" "$SRC/scripts/compare_npy.py" --bitwise --label "$model $KPATH vm-vs-aot: " \
       "$WORK/$model.vm.npy" "$WORK/$model.aot.npy" &&
     "$PY" "$SRC/scripts/compare_npy.py" --bitwise --label "$model $KPATH vm 1 vs 3 threads: " \
       "$WORK/$model.vm.npy" "$WORK/$model.vm3.npy"; then
    passed=$((passed + 1))
  else
    echo "FAILED: $model on $KPATH"
    failed=$((failed + 1))
  fi
done
echo "$KPATH: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
