#!/usr/bin/env bash
# Run-time shape-like inputs with no declared output shape (the dims the
# kernels report, docs/dynamic-shapes.md): one module of
# tests/models/opset/reshape18_runtime_shape_undeclared.onnx (x [2,3,4],
# shape a run-time int64[3]) and one of slice18_runtime_params_undeclared
# run with several values; `kiln run` must write each output with the shape
# and values NumPy's reshape / basic slicing give; `kiln inspect` shows the
# bounds and the Reshape's capacity; values the op refuses fail the run with
# the node named and a non-zero exit. Then Expand to run-time dims without a
# bound (tests/models/opset/unbounded), in kiln run and as AOT C, against
# NumPy's broadcasting.
# usage: reported_dims_test.sh KILN SOURCE_DIR WORK_DIR
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/check_counter.sh"
O="$SRC/tests/models/opset"

"$KILN" compile "$O/reshape18_runtime_shape_undeclared.onnx" -o "$WORK/reshape.kiln" \
  > "$WORK/compile.log" 2>&1 || fail "compile reshape: $(cat "$WORK/compile.log")"
"$KILN" compile "$O/slice18_runtime_params_undeclared.onnx" -o "$WORK/slice.kiln" \
  > "$WORK/compile.log" 2>&1 || fail "compile slice: $(cat "$WORK/compile.log")"

"$KILN" inspect "$WORK/reshape.kiln" > "$WORK/inspect.txt" 2>&1
if grep -Eq 'output\[0\] y +float32\[y\.dim0<=24,y\.dim1<=24,y\.dim2<=24\]  \(at most 96 bytes\)' \
  "$WORK/inspect.txt"; then
  ok "inspect shows the bounds and the capacity"
else
  fail "inspect: $(grep 'output\[0\]' "$WORK/inspect.txt")"
fi

# A value as ints, written as an int64 .npy.
ints() { $PY -c "import numpy as np, sys; np.save(sys.argv[1], np.array([$2], np.int64))" "$1"; }

X="$O/reshape18_runtime_shape_undeclared.input0.npy"
for shape in "4,-1,3" "0,12,1" "-1,1,2" "1,1,24"; do
  ints "$WORK/s.npy" "$shape"
  if ! "$KILN" run "$WORK/reshape.kiln" --input "x=$X" --input "s=$WORK/s.npy" \
      --output "$WORK/y.npy" > "$WORK/run.log" 2>&1; then
    fail "reshape to [$shape]: $(cat "$WORK/run.log")"
    continue
  fi
  # ONNX's 0 copies the input dim; NumPy's reshape takes that dim itself.
  if $PY - "$X" "$WORK/y.npy" "$shape" <<'EOF'
import sys
import numpy as np
x = np.load(sys.argv[1])
y = np.load(sys.argv[2])
want = [x.shape[i] if int(v) == 0 else int(v) for i, v in enumerate(sys.argv[3].split(","))]
ref = x.reshape(want)
sys.exit(0 if y.shape == ref.shape and np.array_equal(y, ref) else 1)
EOF
  then ok "reshape to [$shape]"; else fail "reshape to [$shape]: wrong shape or values"; fi
done

for shape in "5,-1,2" "-1,-1,24" "2,3,5"; do
  ints "$WORK/s.npy" "$shape"
  if "$KILN" run "$WORK/reshape.kiln" --input "x=$X" --input "s=$WORK/s.npy" \
      --output "$WORK/y.npy" > "$WORK/run.log" 2>&1; then
    fail "reshape to [$shape] ran"
  elif grep -q "Reshape" "$WORK/run.log"; then
    ok "reshape to [$shape] refused naming the node"
  else
    fail "reshape to [$shape]: $(cat "$WORK/run.log")"
  fi
done

X="$O/slice18_runtime_params_undeclared.input0.npy"
# starts ends axes steps over x [4,6,5]
for params in "0,0:4,6:0,1:1,1" "-1,1:-5,6:0,2:-2,2" "3,2:1,0:1,2:-1,-1" "1,9:2,9:0,1:1,1"; do
  IFS=: read -r s e a t <<< "$params"
  ints "$WORK/s.npy" "$s"; ints "$WORK/e.npy" "$e"; ints "$WORK/a.npy" "$a"; ints "$WORK/t.npy" "$t"
  if ! "$KILN" run "$WORK/slice.kiln" --input "x=$X" --input "s=$WORK/s.npy" \
      --input "e=$WORK/e.npy" --input "a=$WORK/a.npy" --input "t=$WORK/t.npy" \
      --output "$WORK/y.npy" > "$WORK/run.log" 2>&1; then
    fail "slice $params: $(cat "$WORK/run.log")"
    continue
  fi
  if $PY - "$X" "$WORK/y.npy" "$s" "$e" "$a" "$t" <<'EOF'
import sys
import numpy as np
x = np.load(sys.argv[1])
y = np.load(sys.argv[2])
s, e, a, t = ([int(v) for v in arg.split(",")] for arg in sys.argv[3:7])
index = [slice(None)] * x.ndim
for start, end, axis, step in zip(s, e, a, t):
    index[axis] = slice(start, end, step)
ref = x[tuple(index)]
sys.exit(0 if y.shape == ref.shape and np.array_equal(y, ref) else 1)
EOF
  then ok "slice $params"; else fail "slice $params: wrong shape or values"; fi
done

# Dims without a bound (tests/models/opset/unbounded): kiln run and the AOT
# bundle's runner grow the workspace and the output as the run asks, for
# each value.
U="$SRC/tests/models/opset/unbounded"
"$KILN" compile "$U/expand18_runtime_then_mul.onnx" -o "$WORK/expand.kiln" \
  > "$WORK/compile.log" 2>&1 || fail "compile expand: $(cat "$WORK/compile.log")"
"$KILN" inspect "$WORK/expand.kiln" > "$WORK/inspect.txt" 2>&1
if grep -q 'e.dim0 (no bound' "$WORK/inspect.txt"; then
  ok "inspect shows a length without a bound"
else
  fail "inspect: $(grep results "$WORK/inspect.txt")"
fi
rm -rf "$WORK/aot"
if "$KILN" aot "$WORK/expand.kiln" -o "$WORK/aot" --name expand > "$WORK/aot.log" 2>&1 &&
    make -s -C "$WORK/aot" > "$WORK/make.log" 2>&1; then
  ok "kiln aot builds a module with lengths without a bound"
else
  fail "kiln aot: $(cat "$WORK/aot.log" "$WORK/make.log" 2>/dev/null)"
fi
if grep -q '#define EXPAND_GROWS 1' "$WORK/aot/expand.h"; then
  ok "the header says the module grows"
else
  fail "no EXPAND_GROWS 1 in expand.h"
fi
X="$U/expand18_runtime_then_mul.input0.npy"  # x [3, 1]
for shape in "2,1,4" "1,1,1" "1,3,70" "5,3,1"; do
  ints "$WORK/s.npy" "$shape"
  for runner in "$KILN run $WORK/expand.kiln" "$WORK/aot/expand_run"; do
    what="${runner##*/}"
    if ! $runner --input "x=$X" --input "s=$WORK/s.npy" --output "$WORK/y.npy" --repeat 2 \
        > "$WORK/run.log" 2>&1; then
      fail "$what: expand to [$shape]: $(cat "$WORK/run.log")"
      continue
    fi
    if $PY - "$X" "$WORK/y.npy" "$shape" <<'EOF'
import sys
import numpy as np
x = np.load(sys.argv[1])
y = np.load(sys.argv[2])
ref = (x * np.ones([int(v) for v in sys.argv[3].split(",")], np.float32)) * np.float32(2)
sys.exit(0 if y.shape == ref.shape and np.array_equal(y, ref) else 1)
EOF
    then ok "$what: expand to [$shape]"; else fail "$what: expand to [$shape]: wrong shape or values"; fi
  done
done
ints "$WORK/s.npy" "2,2,4"  # 3 against 2: NumPy refuses to broadcast it too
if "$KILN" run "$WORK/expand.kiln" --input "x=$X" --input "s=$WORK/s.npy" \
    --output "$WORK/y.npy" > "$WORK/run.log" 2>&1; then
  fail "expand to [2,2,4] ran"
elif grep -q "Expand" "$WORK/run.log"; then
  ok "expand to [2,2,4] refused naming the node"
else
  fail "expand to [2,2,4]: $(cat "$WORK/run.log")"
fi
if "$WORK/aot/expand_run" --input "x=$X" --input "s=$WORK/s.npy" \
    --output "$WORK/y.npy" > "$WORK/run.log" 2>&1; then
  fail "AOT: expand to [2,2,4] ran"
elif grep -q "code 5" "$WORK/run.log"; then
  ok "AOT: expand to [2,2,4] refused (KILN_ERR_SHAPE_MISMATCH)"
else
  fail "AOT: expand to [2,2,4]: $(cat "$WORK/run.log")"
fi

finish
