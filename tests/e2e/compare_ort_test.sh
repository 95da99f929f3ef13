#!/usr/bin/env bash
# `kiln compare A.kiln MODEL.onnx --reference ort`: a module against ONNX
# Runtime running the ONNX model with every intermediate exposed.
#  - tiny_cnn and MobileNetV2 (values stored channels last, compared in ONNX
#    order) agree with ORT at the ORT defaults (atol 1e-4, rtol 1e-3);
#  - a module of tiny_cnn against ORT running a copy with one weight scaled:
#    the first value named is the one that weight feeds;
#  - an input bound at compile time (--input-value) is given to ORT;
#  - bad input (unknown reference, a command that fails, a missing model) gets
#    a message and a non-zero exit.
# Skipped (77) when ONNX Runtime is not installed (benchmarks/models/ort/install.sh).
# usage: compare_ort_test.sh KILN SOURCE_DIR WORK_DIR MODELS_DIR
set -euo pipefail
KILN=$(realpath "$1")
SRC=$(realpath "$2")
WORK=$3
MODELS=$(realpath -m "$4")
PY=/usr/bin/python3
if [ ! -f "$SRC/benchmarks/models/ort/node_modules/onnxruntime-node/package.json" ]; then
  echo "SKIP: ONNX Runtime is not installed (bash benchmarks/models/ort/install.sh)"
  exit 77
fi
mkdir -p "$WORK"
cd "$WORK"
fail() { echo "FAILED: $*"; exit 1; }
ORT_CMD="node $SRC/benchmarks/models/ort/ort_run.js"

# --- agreement ---------------------------------------------------------------
TINY=$SRC/examples/models/tiny_cnn
"$KILN" compile "$TINY.onnx" -o tiny.kiln
"$KILN" compare tiny.kiln "$TINY.onnx" --reference ort --ort-cmd "$ORT_CMD" \
  --input "$TINY.input.npy" > tiny.txt || { cat tiny.txt; fail "tiny_cnn differs from ORT"; }
grep -q "no value differs beyond atol=0.0001 rtol=0.001" tiny.txt || fail "tiny_cnn report"
grep -Eq "^compared (9|[1-9][0-9]+) values" tiny.txt || { cat tiny.txt; fail "tiny_cnn compared too few"; }

"$KILN" compile "$MODELS/mobilenet_v2.onnx" -o mobilenet_v2.kiln
"$KILN" inspect mobilenet_v2.kiln > mb.inspect
grep -q NHWC mb.inspect || fail "MobileNetV2 has no NHWC value to check"
"$KILN" compare mobilenet_v2.kiln "$MODELS/mobilenet_v2.onnx" --reference ort --ort-cmd "$ORT_CMD" \
  --input "$MODELS/mobilenet_v2.input.npy" > mb.txt || { cat mb.txt; fail "MobileNetV2 differs from ORT"; }
grep -Eq "^compared ([5-9][0-9]|[1-9][0-9]{2,}) values" mb.txt || { cat mb.txt; fail "MobileNetV2 compared too few"; }

# --- a difference: ORT runs a copy with one weight scaled ----------------------
"$PY" "$SRC/tests/e2e/perturb_initializer.py" "$TINY.onnx" tiny_c.onnx dw.0.weight 1.01
if "$KILN" compare tiny.kiln tiny_c.onnx --reference ort --ort-cmd "$ORT_CMD" \
     --input "$TINY.input.npy" > diff.txt; then
  fail "compare missed a changed weight"
fi
grep -q "first difference: value '/dw/dw.2/Relu_output_0'" diff.txt || { cat diff.txt; fail "first value"; }
grep -q "ORT: ONNX Runtime, node '/dw/dw.2/Relu' (Relu)" diff.txt || { cat diff.txt; fail "ORT node"; }

# --- a bound input: y = x * scale, compiled with --input-value scale=3 ----------
"$PY" - <<'PYEOF'
import numpy as np
import onnx
from onnx import TensorProto, helper
nodes = [helper.make_node("Cast", ["scale"], ["scale_f"], to=TensorProto.FLOAT),
         helper.make_node("Mul", ["x", "scale_f"], ["scaled"]),
         helper.make_node("Relu", ["scaled"], ["y"])]
graph = helper.make_graph(nodes, "bound", [
    helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 5]),
    helper.make_tensor_value_info("scale", TensorProto.INT64, [])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 5])])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), "bound.onnx")
np.save("bound_x.npy", np.random.default_rng(3).standard_normal((2, 5)).astype(np.float32))
PYEOF
"$KILN" compile bound.onnx --input-value scale=3 -o bound.kiln
"$KILN" compare bound.kiln bound.onnx --reference ort --ort-cmd "$ORT_CMD" \
  --input x=bound_x.npy > bound.txt || { cat bound.txt; fail "bound input"; }
# (ORT refuses a run without 'scale': agreeing means the bound 3 reached it.)
grep -Eq "^compared [1-9][0-9]* values" bound.txt || { cat bound.txt; fail "bound input: compared"; }

# --- bad input -----------------------------------------------------------------
expect_error() {  # expect_error PATTERN CMD...
  local pattern=$1; shift
  if "$@" > bad.out 2> bad.err; then fail "accepted: $*"; fi
  grep -q -- "$pattern" bad.err || { cat bad.err; fail "message for: $*"; }
}
expect_error "--reference must be kiln" "$KILN" compare tiny.kiln "$TINY.onnx" --reference onnx
expect_error "ONNX Runtime did not run" "$KILN" compare tiny.kiln "$TINY.onnx" --reference ort \
  --ort-cmd false --input "$TINY.input.npy"
expect_error "no_such.onnx' does not exist" "$KILN" compare tiny.kiln no_such.onnx --reference ort \
  --ort-cmd "$ORT_CMD" --input "$TINY.input.npy"
echo "compare --reference ort: all checks passed"
