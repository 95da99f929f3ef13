#!/usr/bin/env bash
# Outputs whose length is known only after the run (tests/models/result):
# NonZero, Compress (a run-time condition), Unique (without an axis: Y,
# indices and counts share one length beside the static inverse; along axis
# 1: Y [3, n], indices, inverse) and NonMaxSuppression (constant or run-time
# max_output_boxes_per_class), none with a declared output shape; then
# models where such a length carries on into the ops reading the result
# (generate_carried.py: a PyTorch-exported x[x > 0] * 2, boxes picked by
# NMS, Unique's values times counts, Compress then MatMul and Softmax, and a
# NonZero's columns of an input with a symbolic batch N; an If whose
# branches give [4,2] and [4,5], Exp and a row sum after it); and lengths
# found inside If and Loop bodies (generate_bodies.py). Each module runs
# three data sets giving different lengths; `kiln run` and the AOT runner
# must each write every checked .npy with the real shape and the reference
# values (numpy.nonzero / compress / unique / boolean indexing, a NumPy NMS;
# integers exact, floats within rtol 1e-5, atol 1e-6), and `kiln inspect`
# must show the bounds.
# usage: result_shapes_test.sh KILN SOURCE_DIR WORK_DIR
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/check_counter.sh"
R="$SRC/tests/models/result"

# Per model: its inputs (files MODEL.NAME<k>.npy), its outputs in order
# (reference MODEL.NAME<k>.npy; "-" is written but not checked) and what
# `kiln inspect` shows for its outputs (regular expressions, one a line,
# each matching some line: Unique's outputs share one result symbol).
declare -A INPUTS OUTPUTS INSPECT
INPUTS[nonzero_after_run]="in"
OUTPUTS[nonzero_after_run]="ref -"
INSPECT[nonzero_after_run]='output\[0\] y .*int64\[2,y\.length<=12\]'
INPUTS[compress_after_run]="x cond"
OUTPUTS[compress_after_run]="ref"
INSPECT[compress_after_run]='output\[0\] y .*float32\[3,y\.length<=4\]'
INPUTS[unique_after_run]="x"
OUTPUTS[unique_after_run]="y indices inverse counts"
INSPECT[unique_after_run]='output\[0\] y .*float32\[y\.length<=8\]
output\[1\] indices .*int64\[y\.length<=8\]
output\[2\] inverse .*int64\[8\]
output\[3\] counts .*int64\[y\.length<=8\]
results y\.length \(at most 8, arena \+[0-9]+\)  '
INPUTS[unique_axis_after_run]="x"
OUTPUTS[unique_axis_after_run]="y indices inverse"
INSPECT[unique_axis_after_run]='output\[0\] y .*int64\[3,y\.length<=5\]
output\[1\] indices .*int64\[y\.length<=5\]
output\[2\] inverse .*int64\[5\]'
INPUTS[nms_after_run]="boxes scores score_threshold"
OUTPUTS[nms_after_run]="selected"
INSPECT[nms_after_run]='output\[0\] selected .*int64\[selected\.length<=12,3\]'
INPUTS[nms_max_after_run]="boxes scores max_out"
OUTPUTS[nms_max_after_run]="selected"
INSPECT[nms_max_after_run]='output\[0\] selected .*int64\[selected\.length<=18,3\]'
INPUTS[mask_select]="x"
OUTPUTS[mask_select]="y"
INSPECT[mask_select]='output\[0\] y .*float32\[/NonZero_output_0\.length<=12\]'
INPUTS[nms_boxes]="boxes scores score_threshold"
OUTPUTS[nms_boxes]="selected picked"
INSPECT[nms_boxes]='output\[0\] selected .*int64\[selected\.length<=6,3\]
output\[1\] picked .*float32\[selected\.length<=6,4\]'
INPUTS[unique_scaled]="x"
OUTPUTS[unique_scaled]="z"
INSPECT[unique_scaled]='output\[0\] z .*float32\[y\.length<=8\]'
INPUTS[compress_rows]="x cond"
OUTPUTS[compress_rows]="p"
INSPECT[compress_rows]='output\[0\] p .*float32\[rows\.length<=5,3\]'
INPUTS[nonzero_batch]="x m"
OUTPUTS[nonzero_batch]="y"
INSPECT[nonzero_batch]='output\[0\] y .*float32\[N,where\.length<=5\]'
INPUTS[nonzero_requirement]="m"
OUTPUTS[nonzero_requirement]="y"
INSPECT[nonzero_requirement]='output\[0\] y .*float32\[3\]
results where\.length \(at most 5'
INPUTS[if_lengths]="x"
OUTPUTS[if_lengths]="y z"
INSPECT[if_lengths]='output\[0\] y .*float32\[4,y\.length<=5\]
output\[1\] z .*float32\[4\]'
# Lengths found inside If and Loop bodies (generate_bodies.py): the called
# function loads its own on every call, or one its caller found.
INPUTS[loop_compress]="x start"
OUTPUTS[loop_compress]="acc counts"
INSPECT[loop_compress]='output\[1\] counts .*float32\[4,1\]
results rows\.body/pos\.length \(at most 5, arena \+[0-9]+\)'
INPUTS[if_nonzero]="x"
OUTPUTS[if_nonzero]="y"
INSPECT[if_nonzero]='results choose\.then_branch/where\.length \(at most 6'
INPUTS[loop_caller_length]="x"
OUTPUTS[loop_caller_length]="acc"
INSPECT[loop_caller_length]='results pos\.length \(at most 7'
INPUTS[loop_if_lengths]="x c"
OUTPUTS[loop_if_lengths]="acc"
INSPECT[loop_if_lengths]='results steps\.body/part\.length \(at most 5'
INPUTS[loop_requirement]="x"
OUTPUTS[loop_requirement]="rows"
INSPECT[loop_requirement]='output\[0\] rows .*float32\[2,3\]
results rows\.body/pos\.length \(at most 5'
INPUTS[loop_twin_names]="x"
OUTPUTS[loop_twin_names]="kept dropped"
INSPECT[loop_twin_names]='results rows@kept\.body/pos\.length \(at most 5, arena \+[0-9]+\), rows@dropped\.body/pos\.length'
INPUTS[loop_rows_dynbatch]="x"
OUTPUTS[loop_rows_dynbatch]="acc"
INSPECT[loop_rows_dynbatch]='input\[0\] +x .*float32\[N,5\]
results rows\.body/pos\.length \(at most 5, arena \+0\)'
INPUTS[loop_signs_dynbatch]="x"
OUTPUTS[loop_signs_dynbatch]="acc"
INSPECT[loop_signs_dynbatch]='results rows\.body/pos\.length \(at most 5, arena \+0\), rows\.body/neg\.length \(at most 5, arena \+16\)'
INPUTS[loop_then_if]="x"
OUTPUTS[loop_then_if]="acc y"
INSPECT[loop_then_if]='results rows\.body/pos\.length \(at most 5'
MODELS="nonzero_after_run compress_after_run unique_after_run unique_axis_after_run nms_after_run
nms_max_after_run mask_select nms_boxes unique_scaled compress_rows nonzero_batch nonzero_requirement
if_lengths loop_compress if_nonzero loop_caller_length loop_if_lengths loop_requirement
loop_twin_names loop_rows_dynbatch loop_signs_dynbatch loop_then_if"

# check MODEL BACKEND RUNNER...: every data set's outputs equal the references.
check() {
  local model=$1 backend=$2
  shift 2
  for k in 0 1 2; do
    local args=() refs=() shapes=() name i=0
    for name in ${INPUTS[$model]}; do args+=(--input "$R/$model.$name$k.npy"); done
    for name in ${OUTPUTS[$model]}; do
      local out="$WORK/$model.$backend$k.out$i.npy"
      args+=(--output "$out")
      [ "$name" != - ] && refs+=("$out" "$R/$model.$name$k.npy")
      i=$((i + 1))
    done
    if "$@" "${args[@]}" > "$WORK/$model.$backend$k.log" 2>&1 &&
       shapes=$("$PY" -c "import numpy as np, sys
shapes = []
for out, ref in zip(sys.argv[1::2], sys.argv[2::2]):
    a, b = np.load(out), np.load(ref)
    same = np.allclose(a, b, rtol=1e-5, atol=1e-6) if a.dtype.kind == 'f' else (a == b).all()
    if a.dtype != b.dtype or a.shape != b.shape or not same:
        sys.exit(f'{out}: {a.dtype}{a.shape} {a.tolist()} but {ref}: {b.dtype}{b.shape} {b.tolist()}')
    shapes.append(str(a.shape))
print(' '.join(shapes))" "${refs[@]}" 2>> "$WORK/$model.$backend$k.log"); then
      ok "$model $backend: data $k gives $shapes"
    else
      fail "$model $backend: data $k"; cat "$WORK/$model.$backend$k.log"
    fi
  done
}

for model in $MODELS; do
  m="$WORK/$model.kiln"
  "$KILN" compile "$R/$model.onnx" -o "$m" || { fail "$model: cannot compile"; continue; }
  listing=$("$KILN" inspect "$m") shown=1
  while IFS= read -r pattern; do
    grep -Eq "$pattern" <<< "$listing" || { shown=0; echo "inspect lacks: $pattern"; }
  done <<< "${INSPECT[$model]}"
  if [ "$shown" = 1 ]; then
    ok "$model: inspect shows the bound"
  else
    fail "$model: inspect"; head -16 <<< "$listing"
  fi
  check "$model" vm "$KILN" run "$m"
  if ! "$KILN" aot "$m" -o "$WORK/aot_$model" --name rs --no-size-report > "$WORK/aot.log" 2>&1 ||
     ! make -s -C "$WORK/aot_$model" -j2 CFLAGS="-O2 -Wall -Wextra -Werror" > "$WORK/make.log" 2>&1; then
    fail "$model: building the AOT bundle"; tail -n 20 "$WORK/aot.log" "$WORK/make.log"
  else
    check "$model" aot "$WORK/aot_$model/rs_run"
  fi
done

# refuses_bad MODEL WHAT PATTERN: MODEL.bad.npy breaks a requirement on a
# length; both back ends stop the run, the VM with a message matching PATTERN.
refuses_bad() {
  local model=$1 what=$2 pattern=$3 msg
  if msg=$("$KILN" run "$WORK/$model.kiln" --input "$R/$model.bad.npy" --output "$WORK/bad.npy" 2>&1); then
    fail "$model vm: $what was accepted"
  elif grep -q "$pattern" <<< "$msg"; then
    ok "$model vm refuses $what: $msg"
  else
    fail "$model vm: unexpected message: $msg"
  fi
  if "$WORK/aot_$model/rs_run" --input "$R/$model.bad.npy" \
       --output "$WORK/bad_aot.npy" > "$WORK/bad_aot.log" 2>&1; then
    fail "$model aot: $what was accepted"
  else
    ok "$model aot refuses $what: $(tail -n 1 "$WORK/bad_aot.log")"
  fi
}
# A length the model requires to equal a static dim (broadcast against 3
# values): 2 non-zeros stop the run.
refuses_bad nonzero_requirement "2 non-zeros" \
  "this run (where.length = 2) breaks the model's requirement where.length == 3"
# The same inside a Loop body (every row's length must be 3): a row with 2;
# the VM names the body's length.
refuses_bad loop_requirement "a row with 2" "function 1 +[0-9]*: this run \
(rows.body/pos.length = 2) breaks the model's requirement rows.body/pos.length == 3"

# What bodies may not do yet: the compile is refused, naming why.
refused() {
  local model=$1 expect=$2 msg
  if msg=$("$KILN" compile "$R/$model.onnx" -o "$WORK/$model.kiln" 2>&1); then
    fail "$model: compiled, want a refusal"
  elif grep -qF "$expect" <<< "$msg"; then
    ok "$model refused: $msg"
  else
    fail "$model: unexpected message: $msg"
  fi
}
refused refuse_body_length_out "subgraph 'body' returns 'pos' with shape [rows.body/pos.length], \
sized by 'rows.body/pos.length', a length it computes during the run"

finish
