#!/usr/bin/env bash
# Models with a symbolic dimension (tests/models/dynamic): each compiled ONCE,
# then run at every listed size in the VM (`kiln run`) and as an AOT bundle
# (its runner built with the bundle's Makefile), compared with the PyTorch
# reference (max|diff| <= 1e-4 * max(1, max|ref|)) and VM against AOT
# (<= 1e-5 * max(1, max|vm|)).
#  - cnn_dynbatch, mlp_dynbatch: committed;
#  - resnet18_dynbatch: generated into WORK with PyTorch (the test fails
#    when torch is missing);
#  - attention_dynseq, transformer_dynseq (the transformer generated like
#    resnet18). REQUIRED=no in run_model reports a model kiln compile refuses
#    as "not yet compiling" instead of failing (for models still in progress).
# Negative cases: the AOT runner given an input whose static dim or rank is
# wrong, a symbol out of range or too little data exits non-zero with a clear
# message; a
# C driver (dynamic_workspace_check.c) checks NAME_workspace_size/NAME_run
# error codes, including a too-small workspace that must not be written.
# usage: dynamic_models_test.sh KILN SOURCE_DIR WORK_DIR
set -uo pipefail
KILN=$1
SRC=$2
WORK=$3
PY=/usr/bin/python3
DYN="$SRC/tests/models/dynamic"
CFLAGS_STRICT="-std=c11 -O2 -Wall -Wextra -Werror"
mkdir -p "$WORK" && cd "$WORK" || exit 1

failed=0
fail() {
  echo "FAIL $*"
  failed=$((failed + 1))
}

# Generated models: kept between runs of this build (generation is deterministic).
GEN="$WORK/models"
if "$PY" -c "import torch" 2> /dev/null; then
  missing=""
  for model in resnet18_dynbatch transformer_dynseq; do
    [ -f "$GEN/$model.onnx" ] || missing="$missing,$model"
  done
  if [ -n "$missing" ] &&
     ! "$PY" "$DYN/generate.py" --out "$GEN" --only "${missing#,}" > "$WORK/generate.log" 2>&1; then
    fail "generating ${missing#,} (log: $WORK/generate.log)"
    tail -n 20 "$WORK/generate.log"
  fi
  if [ ! -f "$GEN/lraspp_dynhw.onnx" ] &&
     ! "$PY" "$DYN/generate_spatial.py" --torchvision --out "$GEN" > "$WORK/generate_lraspp.log" 2>&1; then
    fail "generating lraspp_dynhw (log: $WORK/generate_lraspp.log)"
    tail -n 20 "$WORK/generate_lraspp.log"
  fi
  if [ ! -f "$GEN/bert_dynseq.onnx" ] &&
     ! "$PY" "$DYN/generate_bert.py" --out "$GEN" > "$WORK/generate_bert.log" 2>&1; then
    fail "generating bert_dynseq (log: $WORK/generate_bert.log)"
    tail -n 20 "$WORK/generate_bert.log"
  fi
else
  # scripts/install_deps.sh installs python3-torch: without it this is a broken
  # test machine, not a reason to pass.
  fail "resnet18_dynbatch, transformer_dynseq, bert_dynseq: torch is not importable by $PY"
fi

# run_model NAME DIR SIZES REQUIRED: compile once, then VM and AOT at each size.
run_model() {
  local model=$1 dir=$2 sizes=$3 required=$4
  local out="$WORK/$model"
  rm -rf "$out" && mkdir -p "$out"
  if [ ! -f "$dir/$model.onnx" ]; then
    if [ "$required" = yes ]; then fail "$model: $dir/$model.onnx is missing"; fi
    return
  fi
  if ! "$KILN" compile "$dir/$model.onnx" -o "$out/$model.kiln" > "$out/compile.log" 2>&1; then
    if [ "$required" = yes ]; then
      fail "$model: kiln compile (log: $out/compile.log)"
      tail -n 5 "$out/compile.log"
    else
      echo "not yet compiling: $model ($(tail -n 1 "$out/compile.log"))"
    fi
    return
  fi
  "$KILN" inspect "$out/$model.kiln" | grep -E "symbols|workspace_bytes" | sed "s/^/$model: /"
  if ! "$KILN" aot "$out/$model.kiln" -o "$out/aot" --name dyn --no-size-report > "$out/aot.log" 2>&1 ||
     ! make -s -C "$out/aot" -j2 CFLAGS="-O2 -Wall -Wextra -Werror" > "$out/make.log" 2>&1; then
    fail "$model: building the AOT bundle (logs: $out/aot.log, $out/make.log)"
    tail -n 20 "$out/aot.log" "$out/make.log"
    return
  fi
  # Every size's comparisons in one compare_npy.py run (NumPy starts once).
  local size cmp=()
  for size in $sizes; do
    local ref="$dir/$model.$size.output.npy" in=()
    # One input (NAME.S.input.npy) or several (NAME.S.input0.npy, ...).
    if [ -f "$dir/$model.$size.input.npy" ]; then
      in=(--input "$dir/$model.$size.input.npy")
    else
      local k=0
      while [ -f "$dir/$model.$size.input$k.npy" ]; do
        in+=(--input "$dir/$model.$size.input$k.npy")
        k=$((k + 1))
      done
    fi
    if "$KILN" run "$out/$model.kiln" "${in[@]}" --output "$out/vm.$size.npy" > "$out/vm.$size.log" 2>&1 &&
       "$out/aot/dyn_run" "${in[@]}" --output "$out/aot.$size.npy" > "$out/aot.$size.log" 2>&1; then
      cmp+=(--tol 1e-4 --label "$model@$size vm:  " "$ref" "$out/vm.$size.npy"
            --label "$model@$size aot: " "$ref" "$out/aot.$size.npy"
            --tol 1e-5 --label "$model@$size vm-vs-aot: " "$out/vm.$size.npy" "$out/aot.$size.npy")
    else
      fail "$model at size $size (logs: $out/vm.$size.log, $out/aot.$size.log)"
      tail -n 5 "$out/vm.$size.log" "$out/aot.$size.log"
    fi
  done
  if [ "${#cmp[@]}" -gt 0 ] && ! "$PY" "$SRC/scripts/compare_npy.py" "${cmp[@]}"; then
    fail "$model: an output differs (MISMATCH above)"
  fi
}

# expect_refused MODEL LABEL INPUT GREP WHY: the compiled MODEL (run_model)
# refuses INPUT in the VM and the AOT runner; both messages match GREP.
expect_refused() {
  local model=$1 label=$2 input=$3 pattern=$4 why=$5 runner cmd
  [ -x "$WORK/$model/aot/dyn_run" ] || return
  for runner in vm aot; do
    if [ $runner = vm ]; then cmd=("$KILN" run "$WORK/$model/$model.kiln");
    else cmd=("$WORK/$model/aot/dyn_run"); fi
    if "${cmd[@]}" --input "$input" --output "$WORK/$model.$label.npy" \
         > "$WORK/$model.$label.$runner.log" 2>&1; then
      fail "$model at $label, $why: $runner accepted it"
    else
      echo "ok   $model@$label refused by $runner: $(tail -n 1 "$WORK/$model.$label.$runner.log")"
    fi
  done
  for runner in vm aot; do
    grep -q "$pattern" "$WORK/$model.$label.$runner.log" ||
      fail "$model@$label: the $runner runner's message does not state the requirement"
  done
}

run_model cnn_dynbatch "$DYN" "1 2 5" yes
run_model mlp_dynbatch "$DYN" "1 4 9" yes
if [ -f "$GEN/resnet18_dynbatch.onnx" ]; then
  run_model resnet18_dynbatch "$GEN" "1 3 8" yes
fi
run_model attention_dynseq "$DYN" "1 3 10" yes
if [ -f "$GEN/transformer_dynseq.onnx" ]; then
  run_model transformer_dynseq "$GEN" "1 7 64 128" yes
fi
# A BERT-style encoder exported with a dynamic sequence axis: its Shape/Gather
# chains fold, the position ids are sliced to S, and broadcasting the word
# and position embeddings makes S == min(S, 64) a run-time requirement.
if [ -f "$GEN/bert_dynseq.onnx" ]; then
  run_model bert_dynseq "$GEN" "7 33 64" yes
  if [ -x "$WORK/bert_dynseq/aot/dyn_run" ]; then
    for runner in vm aot; do
      if [ $runner = vm ]; then cmd=("$KILN" run "$WORK/bert_dynseq/bert_dynseq.kiln");
      else cmd=("$WORK/bert_dynseq/aot/dyn_run"); fi
      if "${cmd[@]}" --input "$GEN/bert_dynseq.70.input0.npy" --input "$GEN/bert_dynseq.70.input1.npy" \
           --output "$WORK/bert70.npy" > "$WORK/bert70.$runner.log" 2>&1; then
        fail "bert_dynseq at S=70 (> 64 positions): $runner accepted it"
      else
        echo "ok   bert_dynseq@70 refused by $runner: $(tail -n 1 "$WORK/bert70.$runner.log")"
      fi
    done
    for runner in vm aot; do
      grep -q "these input shapes (S = 70) break the model's requirement S == min(S, 64)" \
          "$WORK/bert70.$runner.log" ||
        fail "bert_dynseq@70: the $runner runner's message does not state the requirement"
    done
    # To a file first: grep -q closing the pipe early would fail kiln (SIGPIPE).
    "$KILN" inspect "$WORK/bert_dynseq/bert_dynseq.kiln" > "$WORK/bert_inspect.txt"
    grep -q "requires S == min(S, 64)" "$WORK/bert_inspect.txt" ||
      fail "bert_dynseq: kiln inspect does not list the requirement"
  fi
fi

# One op family each on symbolic dims, NumPy references (generate_ops.py):
# Concat (S + T + 2 rows), Where/comparisons/logic/typed unary and binary,
# Expand (constant and Shape-computed shapes), Gather (symbolic data and
# index dims, negative indices), Slice (constant bounds clamped to S; S = 2
# leaves x[1:-1] empty).
run_model concat_dynseq "$DYN" "1 3 8" yes
run_model elementwise_dynseq "$DYN" "1 4 11" yes
run_model expand_dynseq "$DYN" "1 3 10" yes
run_model gather_dynseq "$DYN" "1 4 9" yes
run_model slice_dynseq "$DYN" "2 4 9" yes
# Slices read backwards over S (x[::-1], x[5:0:-2], x[-1::-3]) into an
# output of an expression of S rows.
run_model slice_back_dynseq "$DYN" "1 2 3 8" yes
# GatherND (symbolic tuple count and data dims; batch_dims 1 over S),
# Reduce* over a symbolic axis (empty at S <= 2 for x[1:-1]) and beside it,
# ArgMax/ArgMin with ties and select_last_index, CumSum, TopK with constant k.
run_model gathernd_dynseq "$DYN" "1 4 9" yes
run_model gathernd_batch_dynseq "$DYN" "1 3 8" yes
run_model reduce_dynseq "$DYN" "1 2 3 8" yes
run_model reduce_keep_dynseq "$DYN" "1 4 10" yes
run_model argmax_dynseq "$DYN" "1 5 9" yes
run_model cumsum_dynseq "$DYN" "1 4 11" yes
run_model topk_dynseq "$DYN" "1 5 12" yes
# TopK's k = min(S, 4) from a ReduceMin over a Concat of dims (torchvision's
# detection exports): the output dim is that expression.
run_model topk_min_dynseq "$DYN" "1 3 9" yes
# Detection post-processing (generate_detection.py): NonMaxSuppression over a
# length NonZero found, inside If(Size == 0); the If's output is its branch's
# length (0 in the empty branch, NMS's count in the other).
run_model nms_filter_dynlen "$DYN" "none some all" yes
# An output sized n1 + n2 (two NonZero counts concatenated): the module
# reports it as a length of its own.
run_model nonzero_concat_dynlen "$DYN" "none some all" yes
# Tile (the class token tiled by [B,1,1] from Shape(x); constant repeats of
# a symbolic input), constant and reflect/edge Pad, Resize over a symbolic
# batch and over symbolic H/W (nearest + linear, scales 2 and 0.5/1.5), a
# batched Einsum (generate_ops3.py).
run_model tile_cls_dynseq "$DYN" "1 3 7" yes
run_model tile_dynseq "$DYN" "1 4 9" yes
run_model pad_dynseq "$DYN" "1 4 9" yes
run_model pad_reflect_dynhw "$DYN" "3 5 8" yes
run_model resize_dynbatch "$DYN" "1 2 5" yes
run_model resize_dynhw "$DYN" "1 4 9" yes
run_model resize_frac_dynhw "$DYN" "2 5 9" yes
run_model einsum_dynseq "$DYN" "1 3 8" yes

# Symbolic spatial dims (generate_spatial.py, PyTorch references): a CNN
# over [N,3,H,W] (strided, packed-size, depthwise and 1x1 Convs, MaxPool
# ceil_mode, padded AvgPool, Upsample, a Shape-sliced residual), Convs and a
# MaxPool with auto_pad SAME_UPPER/SAME_LOWER/VALID over [1,4,H,W], and an
# audio front end over [N,L] (Conv1d framing, mel MatMul, Conv1d, MaxPool1d).
run_model cnn_dynhw "$DYN" "1x20x20 1x9x31 2x33x14" yes
run_model conv_autopad_dynhw "$DYN" "8x8 13x6 21x30" yes
run_model audio_frontend_dynlen "$DYN" "1x400 2x1000 1x97" yes
run_model conv3d_dynd "$DYN" "3 6 11" yes
run_model resize_sizes_dynhw "$DYN" "16x16 7x25 30x9" yes
# Patterns of published models (generate_published_patterns.py): an If whose
# Squeeze branch requires L == 1 run with L = 5 down the other branch (a
# branch's requirements are checked only when it runs), paddle2onnx's int32
# size arithmetic before a Reshape, a Concat of x with its down-up-sampled
# self (H == floor(H/2)*2 checked at run time), ConvTranspose and LSTM over
# symbolic sizes.
run_model if_squeeze_dynlen "$DYN" "2x5f 3x1t 1x7f" yes
run_model int32_shape_dynhw "$DYN" "1x6x9 3x4x4 2x11x5" yes
run_model concat_updown_dynhw "$DYN" "8x6 4x10 12x12" yes
run_model convtranspose_dynhw "$DYN" "5x7 8x8 3x11" yes
run_model lstm_dynseq "$DYN" "7x2 1x1 20x3" yes
expect_refused concat_updown_dynhw 7x6 "$DYN/concat_updown_dynhw.7x6.input.npy" \
  "break the model's requirement H == " "an odd height (H == floor(H/2)*2 broken)"
# Swin Transformer's window partition: pads of the sizes ((7 - W % 7) % 7),
# views whose element counts are run-time requirements; an odd N broken.
run_model window_partition_dynhw "$DYN" "10x12 7x7 15x4 1x22" yes
run_model pairs_dynlen "$DYN" "4 10" yes
if [ -x "$WORK/pairs_dynlen/aot/dyn_run" ]; then
  "$PY" -c "import numpy as np; np.save('$WORK/pairs_odd.npy', np.zeros((7, 3), np.float32))"
  expect_refused pairs_dynlen 7 "$WORK/pairs_odd.npy" "break the model's requirement" \
    "an odd N (x.view(N // 2, 2, 3))"
fi
# torchvision's LR-ASPP MobileNetV3 exported with dynamic N, H, W (generated).
if [ -f "$GEN/lraspp_dynhw.onnx" ]; then
  run_model lraspp_dynhw "$GEN" "1x96x96 1x64x136 2x57x75" yes
fi
# An input smaller than a VALID 4x4 window: refused by both, naming the requirement.
if [ -x "$WORK/conv_autopad_dynhw/aot/dyn_run" ]; then
  "$PY" -c "import numpy as np; np.save('$WORK/autopad_small.npy', np.zeros((1, 4, 2, 9), np.float32))"
  expect_refused conv_autopad_dynhw 2x9 "$WORK/autopad_small.npy" "requirement H == max(H, 4)" \
    "H=2 (below the 4x4 VALID window)"
fi

# Control flow over symbolic dims (generate_control.py): an If whose branches
# read x [N,4], a Loop carrying [N,4] with scan outputs [3,N,4], Scans over
# S steps (LOOP_DYN; one over axis 1 of [N,S,3], reversed), and a Loop whose
# trip count is Shape(x)[0].
run_model if_dynbatch "$DYN" "1 3 6" yes
run_model loop_dynbatch "$DYN" "1 2 5" yes
run_model scan_dynseq "$DYN" "1 4 9" yes
run_model scan_batch_dynseq "$DYN" "1 3 7" yes
run_model loop_trip_dynseq "$DYN" "1 3 8" yes
run_model scan_after_dynseq "$DYN" "1 4 9" yes
# If branches [N,4] and [N,2]: the width is a length known after the IF ran.
run_model if_widths_dynbatch "$DYN" "1 3 6" yes
# What PyTorch exports for sizes (generate_torch_patterns.py): Range to S and
# from P to P + S (arange kernel), ConstantOfShape of [S,S] and [B,4] (fill),
# Trilu and Where over [B,S,S].
run_model arange_dynseq "$DYN" "1 3 7" yes
run_model arange_past_dynseq "$DYN" "1 3 7" yes
run_model causal_dynseq "$DYN" "1 3 7" yes
run_model zeros_dynbatch "$DYN" "1 3 7" yes
# expand(B, -1, -1) of a class token and an arange(S) < 3 mask expanded to
# [B,S]: PyTorch replaces the -1s with Equal/Where on the size values.
run_model expand_cls_dynseq "$DYN" "1 3 7" yes
run_model length_mask_dynseq "$DYN" "1 3 7" yes
# Sizes read as tensor data: x.sum(1) / x.shape[1] + x.shape[0].
run_model size_mean_dynseq "$DYN" "1 3 7" yes
# A GPT-style decoder using all of them (arange positions, a causal mask).
run_model gpt_dynseq "$DYN" "1 5 13 64" yes

# expect_refused NAME NEEDLE RUNNER ARGS...: non-zero exit, message containing NEEDLE.
expect_refused() {
  local name=$1 needle=$2
  shift 2
  if "$@" > "$WORK/$name.log" 2>&1; then
    fail "$name: the runner accepted it"
  elif ! grep -q -- "$needle" "$WORK/$name.log"; then
    fail "$name: message lacks '$needle':"
    cat "$WORK/$name.log"
  else
    echo "ok   $name: $(cat "$WORK/$name.log")"
  fi
}

# GatherND indices are checked against the run's dims (S = 4: row 4 and -5
# are out of range, -4 is not; column 5 of 5 is out of range too): both
# back ends fail the run with KILN_ERR_OUT_OF_RANGE (code 2).
GND="$WORK/gathernd_dynseq"
if [ -x "$GND/aot/dyn_run" ]; then
  "$PY" -c "
import numpy as np
np.save('gnd_x.npy', np.zeros((4, 5, 3), np.float32))
np.save('gnd_ok.npy', np.array([[-4, 4]], np.int64))
np.save('gnd_row4.npy', np.array([[4, 0]], np.int64))
np.save('gnd_rowm5.npy', np.array([[-5, 0]], np.int64))
np.save('gnd_col5.npy', np.array([[0, 5]], np.int64))
np.save('gnd_one.npy', np.array([[0]], np.int64))
"
  for runner in vm aot; do
    if [ $runner = vm ]; then cmd=("$KILN" run "$GND/gathernd_dynseq.kiln");
    else cmd=("$GND/aot/dyn_run"); fi
    if ! "${cmd[@]}" --input gnd_x.npy --input gnd_ok.npy --input gnd_one.npy --output x.npy \
         > "gnd_ok.$runner.log" 2>&1; then
      fail "gathernd_dynseq: $runner refused in-range indices (log: $WORK/gnd_ok.$runner.log)"
    fi
    for bad in row4 rowm5 col5; do
      expect_refused "gathernd_${bad}_$runner" "failed with code 2" "${cmd[@]}" --input gnd_x.npy \
        --input "gnd_$bad.npy" --input gnd_one.npy --output x.npy
    done
  done
else
  fail "negative cases: no gathernd_dynseq runner"
fi

CNN="$WORK/cnn_dynbatch/aot"
if [ -x "$CNN/dyn_run" ]; then
  "$PY" -c "
import numpy as np
np.save('wrong_static_dim.npy', np.zeros((2, 4, 16, 16), np.float32))
np.save('wrong_rank.npy', np.zeros((2, 3, 16), np.float32))
np.save('zero_batch.npy', np.zeros((0, 3, 16, 16), np.float32))
np.save('short_data.npy', np.zeros((2, 3, 16, 16), np.float32))
"
  # The header says 2 rows; the file holds 1 row of data.
  "$PY" -c "
import numpy as np
data = open('short_data.npy', 'rb').read()
open('short_data.npy', 'wb').write(data[:len(data) - 3 * 16 * 16 * 4])
"
  if "$CNN/dyn_run" --input "$DYN/cnn_dynbatch.5.input.npy" --output repeat.npy --repeat 3 > repeat.log 2>&1 &&
     grep -q "^latency_ms median=.* runs=3$" repeat.log &&
     "$PY" "$SRC/scripts/compare_npy.py" --label "cnn_dynbatch@5 --repeat 3: " \
       "$DYN/cnn_dynbatch.5.output.npy" repeat.npy; then
    echo "ok   --repeat: $(cat repeat.log | head -n 1)"
  else
    fail "--repeat 3 (log: $WORK/repeat.log)"
  fi
  expect_refused wrong_static_dim "dim 1 is 4, expected 3" "$CNN/dyn_run" --input wrong_static_dim.npy --output x.npy
  expect_refused wrong_rank "rank 3, expected 4" "$CNN/dyn_run" --input wrong_rank.npy --output x.npy
  expect_refused zero_batch "symbol 'N' = 0, outside 1..2^40" "$CNN/dyn_run" --input zero_batch.npy --output x.npy
  expect_refused short_data "data size does not match" "$CNN/dyn_run" --input short_data.npy --output x.npy
  if make -s -C "$CNN" lib CFLAGS=-O2 > driver.log 2>&1 &&
     cc $CFLAGS_STRICT -I "$CNN" -I "$CNN/runtime/include" "$SRC/tests/e2e/dynamic_workspace_check.c" \
       "$CNN/libdyn.a" -lm -o dynamic_workspace_check >> driver.log 2>&1; then
    if ./dynamic_workspace_check; then echo "ok   workspace and error codes"; else fail "dynamic_workspace_check"; fi
  else
    fail "building dynamic_workspace_check (log: $WORK/driver.log)"
    tail -n 20 driver.log
  fi
else
  fail "negative cases: no cnn_dynbatch runner"
fi

# Control flow Kiln refuses, naming the node: If branches whose shapes
# differ in a symbolic dim ([N,4] against [N - 1,4]).
expect_refused refused_if_shapes "node 'branch' (If): the branches give output 0 as float32.N,4. and float32.max(" \
  "$KILN" compile "$DYN/refused_if_shapes.onnx" -o refused.kiln

if [ "$failed" -ne 0 ]; then
  echo "$failed check(s) failed"
  exit 1
fi
echo "all dynamic-shape checks passed"
