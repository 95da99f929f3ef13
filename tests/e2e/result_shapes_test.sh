#!/usr/bin/env bash
# Outputs whose length is known only after the run (tests/models/result):
# nonzero_after_run.onnx returns NonZero and compress_after_run.onnx returns
# Compress (a run-time condition) with no declared shape. Each module runs
# three inputs; `kiln run` and the AOT runner must each write the .npy with
# the real shape and numpy's values (numpy.nonzero / numpy.compress, exact),
# and `kiln inspect` must show the bound.
# usage: result_shapes_test.sh KILN SOURCE_DIR WORK_DIR
set -uo pipefail
KILN=$1
SRC=$2
WORK=$3
PY=/usr/bin/python3
rm -rf "$WORK"
mkdir -p "$WORK"
R="$SRC/tests/models/result"
passed=0
failed=0
ok() { echo "ok   $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; failed=$((failed + 1)); }

# inputs MODEL K: the --input arguments of data set K.
inputs() {
  if [ "$1" = nonzero_after_run ]; then
    echo --input "$R/$1.in$2.npy"
  else
    echo --input "$R/$1.x$2.npy" --input "$R/$1.cond$2.npy"
  fi
}

# check MODEL BACKEND RUNNER...: every data set's output 0 equals the reference.
check() {
  local model=$1 backend=$2
  shift 2
  for k in 0 1 2; do
    local out="$WORK/$model.$backend$k.npy" extra=()
    [ "$model" = nonzero_after_run ] && extra=(--output "$WORK/relu.npy")
    # shellcheck disable=SC2046
    if "$@" $(inputs "$model" "$k") --output "$out" "${extra[@]}" > "$WORK/$model.$backend$k.log" 2>&1 &&
       "$PY" -c "import numpy as np, sys; a, b = np.load(sys.argv[1]), np.load(sys.argv[2]); \
sys.exit(0 if a.dtype == b.dtype and a.shape == b.shape and (a == b).all() else 1)" "$out" "$R/$model.ref$k.npy"; then
      ok "$model $backend: data $k gives $("$PY" -c "import numpy as np, sys; print(np.load(sys.argv[1]).shape)" "$out")"
    else
      fail "$model $backend: data $k"; cat "$WORK/$model.$backend$k.log"
    fi
  done
}

for model in nonzero_after_run compress_after_run; do
  m="$WORK/$model.kiln"
  "$KILN" compile "$R/$model.onnx" -o "$m" || { fail "$model: cannot compile"; continue; }
  if "$KILN" inspect "$m" | grep -Eq "output\[0\] y .*\[.*y.length<=(12|4)\]"; then
    ok "$model: inspect shows the bound"
  else
    fail "$model: inspect"; "$KILN" inspect "$m" | head -12
  fi
  check "$model" vm "$KILN" run "$m"
  if ! "$KILN" aot "$m" -o "$WORK/aot_$model" --name rs --no-size-report > "$WORK/aot.log" 2>&1 ||
     ! make -s -C "$WORK/aot_$model" -j2 CFLAGS="-O2 -Wall -Wextra -Werror" > "$WORK/make.log" 2>&1; then
    fail "$model: building the AOT bundle"; tail -n 20 "$WORK/aot.log" "$WORK/make.log"
  else
    check "$model" aot "$WORK/aot_$model/rs_run"
  fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
