#!/usr/bin/env bash
# Run-time shape-like and parameter inputs (tests/models/MODEL, written by
# generate_runtime_shape.py / generate_runtime_params.py): with the right
# values the model runs (models_test.cc checks its numbers against NumPy in
# the VM and AOT); with input 1 replaced by tests/models/bad/MODEL.input1.wrong.npy
# (a value meaning another shape), `kiln run` and the AOT runner must fail —
# the VM naming NODE — instead of returning data of the wrong shape.
# usage: runtime_values_test.sh KILN SOURCE_DIR WORK_DIR MODEL NODE
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/check_counter.sh"
MODEL=$4
NODE=$5
M="$SRC/tests/models"

"$KILN" compile "$M/$MODEL.onnx" -o "$WORK/m.kiln" || { echo "cannot compile $MODEL"; exit 1; }
inputs=()
outputs=()
for ((i = 0; i < 64; ++i)); do
  [ -f "$M/$MODEL.input$i.npy" ] && inputs+=(--input "$M/$MODEL.input$i.npy")
  [ -f "$M/$MODEL.output$i.npy" ] && outputs+=(--output "$WORK/out$i.npy")
done
bad=("${inputs[@]}")
bad[3]="$M/bad/$MODEL.input1.wrong.npy"  # input 1: --input FILE is words 2 and 3

# The right values run (their numbers are checked by models_test.cc).
if "$KILN" run "$WORK/m.kiln" "${inputs[@]}" "${outputs[@]}" > "$WORK/good.log" 2>&1; then
  ok vm_right_values
else
  fail vm_right_values; cat "$WORK/good.log"
fi

"$KILN" run "$WORK/m.kiln" "${bad[@]}" "${outputs[@]}" > "$WORK/bad.log" 2>&1
code=$?
if [ "$code" -ne 1 ] && [ "$code" -ne 2 ]; then
  fail "vm_wrong_values: exit code $code (want 1 or 2)"; cat "$WORK/bad.log"
elif ! grep -Eq "does not give the output shape the model declares.*$NODE" "$WORK/bad.log"; then
  fail "vm_wrong_values: message does not name node $NODE"; cat "$WORK/bad.log"
else
  ok "vm_wrong_values: $(head -n 1 "$WORK/bad.log")"
fi

if ! "$KILN" aot "$WORK/m.kiln" -o "$WORK/aot" --name rts --no-size-report > "$WORK/aot.log" 2>&1 ||
   ! make -s -C "$WORK/aot" -j2 CFLAGS="-O2 -Wall -Wextra -Werror" > "$WORK/make.log" 2>&1; then
  fail "building the AOT bundle"; tail -n 20 "$WORK/aot.log" "$WORK/make.log"
else
  if "$WORK/aot/rts_run" "${inputs[@]}" "${outputs[@]}" > "$WORK/aot_good.log" 2>&1; then
    ok aot_right_values
  else
    fail aot_right_values; cat "$WORK/aot_good.log"
  fi
  "$WORK/aot/rts_run" "${bad[@]}" "${outputs[@]}" > "$WORK/aot_bad.log" 2>&1
  code=$?
  if [ "$code" -eq 0 ] || [ "$code" -gt 125 ]; then
    fail "aot_wrong_values: exit code $code (want a refusal)"; cat "$WORK/aot_bad.log"
  elif ! grep -q "rts_run failed with code 5: a run-time shape or parameter input" \
       "$WORK/aot_bad.log"; then
    fail "aot_wrong_values: no kernel error reported"; cat "$WORK/aot_bad.log"
  else
    ok "aot_wrong_values: $(head -n 1 "$WORK/aot_bad.log")"
  fi
fi

finish
