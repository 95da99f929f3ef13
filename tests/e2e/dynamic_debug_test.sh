#!/usr/bin/env bash
# kiln run --dump / --check-nan and kiln compare on modules with symbolic
# dims (tests/models/dynamic), each compiled ONCE and run at two or three
# sizes. The reference for every intermediate is the model's static twin at
# that size (fix_symbols.py fixes the symbols to the input shapes; its
# --dump is the trusted static path): compare_dumps.py wants every value of
# the static dump in the symbolic dump with the run-time shape and the same
# contents, and the dumped model output equal to the PyTorch/NumPy reference.
# kiln compare of the symbolic module against the static one must agree on
# every value; against a copy with one weight changed it must report the
# first differing value with its run-time shape. --check-nan passes finite
# runs and names a NaN's value with its run-time shape.
# usage: dynamic_debug_test.sh KILN SOURCE_DIR WORK_DIR
set -uo pipefail
source "$(dirname "$0")/check_counter.sh"
DYN="$SRC/tests/models/dynamic"
cd "$WORK" || exit 1

# input_files NAME SIZE: the model's inputs at SIZE (NAME.SIZE.input.npy or
# NAME.SIZE.input0.npy, input1.npy, ...) into FILES, as --input flags into ARGS.
input_files() {
  FILES=() ARGS=()
  if [ -f "$DYN/$1.$2.input.npy" ]; then
    FILES=("$DYN/$1.$2.input.npy")
  else
    local k=0
    while [ -f "$DYN/$1.$2.input$k.npy" ]; do
      FILES+=("$DYN/$1.$2.input$k.npy")
      k=$((k + 1))
    done
  fi
  local f
  for f in "${FILES[@]}"; do ARGS+=(--input "$f"); done
}

# check_model NAME OUTPUT_VALUE SIZES (OUTPUT_VALUE "-": no reference check)
check_model() {
  local model=$1 output=$2 sizes=$3
  local dir="$WORK/$model"
  mkdir -p "$dir"
  if ! "$KILN" compile "$DYN/$model.onnx" -o "$dir/dyn.kiln" > "$dir/compile.log" 2>&1; then
    fail "$model: kiln compile (log: $dir/compile.log)"
    return
  fi
  # The module must describe symbolic values (else the checks below would
  # pass on whatever static values remain).
  "$KILN" inspect "$dir/dyn.kiln" --json > "$dir/inspect.json"
  local symbolic
  symbolic=$(grep -o '"dim_registers"' "$dir/inspect.json" | wc -l)
  if [ "$symbolic" -gt 0 ]; then
    ok "$model: $symbolic debug values with symbolic dims"
  else
    fail "$model: no debug value with symbolic dims in kiln inspect --json"
  fi
  local size
  for size in $sizes; do
    local at="$model@$size" log="$dir/$size"
    input_files "$model" "$size"
    if ! "$PY" "$SRC/tests/e2e/fix_symbols.py" "$DYN/$model.onnx" "$dir/static.$size.onnx" \
           "${FILES[@]}" > "$log.fix.log" 2>&1 ||
       ! "$KILN" compile "$dir/static.$size.onnx" -o "$dir/static.$size.kiln" >> "$log.fix.log" 2>&1; then
      fail "$at: building the static twin (log: $log.fix.log)"
      continue
    fi
    if "$KILN" run "$dir/dyn.kiln" "${ARGS[@]}" --output "$log.out.npy" --check-nan \
         --dump "$dir/dump.$size" > "$log.run.log" 2>&1 &&
       grep -q "^check-nan: [1-9][0-9]* values in [0-9]* dispatches are finite" "$log.run.log"; then
      ok "$at: --check-nan: $(grep '^check-nan' "$log.run.log")"
    else
      fail "$at: kiln run --dump --check-nan (log: $log.run.log)"
      tail -n 5 "$log.run.log"
      continue
    fi
    if ! "$KILN" run "$dir/static.$size.kiln" "${ARGS[@]}" --output "$log.static.npy" \
           --dump "$dir/static_dump.$size" > "$log.static.log" 2>&1; then
      fail "$at: kiln run of the static twin (log: $log.static.log)"
      continue
    fi
    local ref=()
    [ "$output" != - ] && ref=(--ref "$output=$DYN/$model.$size.output.npy")
    if "$PY" "$SRC/tests/e2e/compare_dumps.py" "$dir/dump.$size" "$dir/static_dump.$size" \
         "${ref[@]}" > "$log.dumps.log" 2>&1; then
      ok "$at: --dump: $(tail -n 1 "$log.dumps.log")"
    else
      fail "$at: --dump against the static twin:"
      cat "$log.dumps.log"
    fi
    if "$KILN" compare "$dir/dyn.kiln" "$dir/static.$size.kiln" "${ARGS[@]}" > "$log.compare.log" 2>&1 &&
       grep -q "^compared [1-9][0-9]* values (.*, 0 only in B," "$log.compare.log"; then
      ok "$at: kiln compare symbolic vs static: $(head -n 1 "$log.compare.log")"
    else
      fail "$at: kiln compare symbolic vs static (log: $log.compare.log)"
      cat "$log.compare.log"
    fi
  done
}

check_model cnn_dynbatch output "2 5"
check_model attention_dynseq output "3 10"
check_model concat_dynseq y "3 8"
check_model slice_dynseq y "2 9"
# Values of Loop and Scan bodies over symbolic dims, dumped per iteration
# (NAME, NAME__2, ...) with their run-time shapes from the body's own
# integer registers; kiln compare pairs the k-th recordings. ("-": the scan
# outputs, assembled slice by slice across iterations, are no debug values;
# e2e_dynamic_models checks them against NumPy.)
check_model loop_dynbatch - "2 5"
check_model scan_batch_dynseq - "3 7"

# A NaN in the input: --check-nan stops at the first value holding one and
# gives its run-time shape (batch 5; the first Conv+Relu output).
"$PY" -c "
import numpy as np
x = np.load('$DYN/cnn_dynbatch.5.input.npy')
x[3, 1, 7, 9] = np.nan
np.save('nan5.npy', x)
"
if "$KILN" run "$WORK/cnn_dynbatch/dyn.kiln" --input nan5.npy --output nan.npy --check-nan > nan.log 2>&1; then
  fail "--check-nan accepted a NaN input"
elif grep -q "value '/2/Relu_output_0' \[5,8,16,16\] has [1-9][0-9]* NaN and 0 Inf of 10240 elements, first at \[3," nan.log; then
  ok "--check-nan names the value with its run-time shape: $(tail -n 1 nan.log)"
else
  fail "--check-nan message:"
  cat nan.log
fi

# kiln compare against a copy with one conv weight changed: exit 1, naming
# the first value that differs with its run-time shape (batch 2).
"$PY" -c "
import onnx
from onnx import numpy_helper
m = onnx.load('$DYN/cnn_dynbatch.onnx')
for k, t in enumerate(m.graph.initializer):
    w = numpy_helper.to_array(t).copy()
    if w.ndim == 4:
        w.flat[0] += 0.5
        m.graph.initializer[k].CopyFrom(numpy_helper.from_array(w, t.name))
        break
onnx.save(m, 'cnn_changed.onnx')
"
if ! "$KILN" compile cnn_changed.onnx -o cnn_changed.kiln > changed.log 2>&1; then
  fail "compiling cnn_changed (log: $WORK/changed.log)"
else
  "$KILN" compare "$WORK/cnn_dynbatch/dyn.kiln" cnn_changed.kiln \
    --input "$DYN/cnn_dynbatch.2.input.npy" > compare_changed.log 2>&1
  rc=$?
  if [ $rc -eq 1 ] && grep -q "first difference: value '[^']*' \[2,[0-9,]*\]$" compare_changed.log; then
    ok "kiln compare finds the changed weight: $(grep 'first difference' compare_changed.log)"
  else
    fail "kiln compare with a changed weight (exit $rc):"
    cat compare_changed.log
  fi
fi

finish
