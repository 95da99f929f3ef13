#!/usr/bin/env bash
# Control flow whose iteration count is known only at run time:
# tests/models/control/loop_declared_length.onnx has a Loop whose trip count
# is an int64 input and whose scan output the model declares as 3 rows. With
# trip count 3 it runs and matches the NumPy reference (s0 + 3, rows s0 + 1 ..
# s0 + 3) in the VM and as AOT C; with 2 or 5 both back ends must refuse the
# run (the VM naming the loop) instead of writing too few or too many rows.
# (The float32 control-flow models' numbers are checked by models_test.cc.)
# usage: control_flow_test.sh KILN SOURCE_DIR WORK_DIR
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/check_counter.sh"
M="$SRC/tests/models/control/loop_declared_length"

# same A B: max|A - B| <= 1e-6 (the reference is exact in float32).
same() {
  "$PY" -c "import numpy as np, sys; a, b = np.load(sys.argv[1]), np.load(sys.argv[2]); \
sys.exit(0 if a.shape == b.shape and np.abs(a - b).max() <= 1e-6 else 1)" "$1" "$2"
}

"$KILN" compile "$M.onnx" -o "$WORK/m.kiln" || { echo "cannot compile"; exit 1; }
outs=(--output "$WORK/o0.npy" --output "$WORK/o1.npy")

# check BACKEND RUNNER...: 3 iterations match; 2 and 5 are refused (the VM
# exits 1 naming the loop; the AOT runner with KILN_ERR_SHAPE_MISMATCH, 5).
check() {
  local backend=$1
  shift
  rm -f "$WORK"/o*.npy
  if "$@" --input "$M.trip3.npy" --input "$M.s0.npy" "${outs[@]}" > "$WORK/${backend}3.log" 2>&1 &&
     same "$WORK/o0.npy" "$M.output0.npy" && same "$WORK/o1.npy" "$M.output1.npy"; then
    ok "$backend: 3 iterations match the reference"
  else
    fail "$backend: 3 iterations"; cat "$WORK/${backend}3.log"
  fi
  for trips in 2 5; do
    local log="$WORK/$backend$trips.log"
    "$@" --input "$M.trip$trips.npy" --input "$M.s0.npy" "${outs[@]}" > "$log" 2>&1
    local code=$?
    if [ "$code" -eq 0 ] || [ "$code" -gt 125 ]; then
      fail "$backend: $trips iterations: exit code $code (want a refusal)"; cat "$log"
    elif [ "$backend" = vm ] &&
         ! grep -q "LOOP of 'Loop_0.body': the iteration count differs" "$log"; then
      fail "vm: $trips iterations: the message does not name the loop"; cat "$log"
    elif [ "$backend" = aot ] && ! grep -q "loop_run failed with code 5: " "$log"; then
      fail "aot: $trips iterations: not refused as a shape mismatch"; cat "$log"
    else
      ok "$backend: $trips iterations refused: $(head -n 1 "$log")"
    fi
  done
}

check vm "$KILN" run "$WORK/m.kiln"
if ! "$KILN" aot "$WORK/m.kiln" -o "$WORK/aot" --name loop --no-size-report > "$WORK/aot.log" 2>&1 ||
   ! make -s -C "$WORK/aot" -j2 CFLAGS="-O2 -Wall -Wextra -Werror" > "$WORK/make.log" 2>&1; then
  fail "building the AOT bundle"; tail -n 20 "$WORK/aot.log" "$WORK/make.log"
else
  check aot "$WORK/aot/loop_run"
fi

finish
