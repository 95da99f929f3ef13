#!/usr/bin/env bash
# Compile-time bindings (kiln compile --input-value, --dim), as a voice
# activity model uses them: If(sr == 16000) over a [batch, samples] input.
# Bound, the If folds away (one function left), `kiln inspect` shows the
# binding, the module runs without sr, accepts sr = the bound value and
# refuses any other; unbound, both branches stay and sr picks one. Outputs
# are compared with NumPy's. Bad bindings fail with a message naming them.
# usage: input_binding_test.sh KILN SOURCE_DIR WORK_DIR
set -euo pipefail
KILN=$1
SRC=$2
WORK=$3
PY=/usr/bin/python3
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK"

"$PY" - <<'PYEOF'
import numpy as np
import onnx
from onnx import TensorProto, helper

def branch(name, factor):
    return helper.make_graph(
        [helper.make_node("Mul", ["x", name + "_k"], [name + "_y"])], name, [],
        [helper.make_tensor_value_info(name + "_y", TensorProto.FLOAT, ["batch", "samples"])],
        [helper.make_tensor(name + "_k", TensorProto.FLOAT, [], [factor])])

nodes = [
    helper.make_node("Equal", ["sr", "rate16k"], ["is16k"]),
    helper.make_node("If", ["is16k"], ["y"], then_branch=branch("then", 2.0),
                     else_branch=branch("else", 3.0)),
]
graph = helper.make_graph(
    nodes, "vad_like",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "samples"]),
     helper.make_tensor_value_info("sr", TensorProto.INT64, [])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "samples"])],
    [helper.make_tensor("rate16k", TensorProto.INT64, [], [16000])])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), "vad_like.onnx")
# Branches of different rank (an older voice-activity export): only a bound
# condition makes this compile.
rank_then = helper.make_graph(
    [helper.make_node("Identity", ["x"], ["t_y"])], "rank_then", [],
    [helper.make_tensor_value_info("t_y", TensorProto.FLOAT, ["batch", "samples"])])
rank_else = helper.make_graph(
    [helper.make_node("Unsqueeze", ["x", "one"], ["e_y"])], "rank_else", [],
    [helper.make_tensor_value_info("e_y", TensorProto.FLOAT, ["batch", 1, "samples"])],
    [helper.make_tensor("one", TensorProto.INT64, [1], [1])])
graph = helper.make_graph(
    [helper.make_node("Equal", ["sr", "rate16k"], ["is16k"]),
     helper.make_node("If", ["is16k"], ["y"], then_branch=rank_then, else_branch=rank_else)],
    "rank_if",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "samples"]),
     helper.make_tensor_value_info("sr", TensorProto.INT64, [])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    [helper.make_tensor("rate16k", TensorProto.INT64, [], [16000])])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), "rank_if.onnx")
x = np.random.default_rng(7).standard_normal((2, 5)).astype(np.float32)
np.save("x.npy", x)
np.save("sr16000.npy", np.array(16000, np.int64))
np.save("sr8000.npy", np.array(8000, np.int64))
np.save("ref16000.npy", x * np.float32(2))
np.save("ref8000.npy", x * np.float32(3))
np.save("ref_rank8000.npy", x[:, None, :])
PYEOF

same() {  # same GOT REF: max |diff| <= 1e-6 (one float multiply)
  "$PY" "$SRC/scripts/compare_npy.py" --tol 1e-6 --label "$1 vs $2: " "$2" "$1"
}

echo "== bound: sr=16000 folds the If"
"$KILN" compile vad_like.onnx -o bound.kiln --input-value sr=16000
"$KILN" inspect bound.kiln > bound.txt
grep -q "bound     sr int64\[\] = 16000" bound.txt || { echo "FAIL: inspect shows no binding"; cat bound.txt; exit 1; }
grep -Eq "input\[1\]" bound.txt && { echo "FAIL: sr is still an input"; exit 1; }
"$KILN" inspect bound.kiln --json > bound.json
"$PY" -c "
import json, sys
m = json.load(open('bound.json'))
b = m['signature']['bound_inputs']
assert b == [{'name': 'sr', 'dtype': 'int64', 'shape': [], 'value': 'sr int64[] = 16000'}], b
assert len(m['functions']) == 1, 'the If was not folded: %d functions' % len(m['functions'])
"
"$KILN" run bound.kiln --input x.npy --output y.npy
same y.npy ref16000.npy
"$KILN" run bound.kiln --input x=x.npy --input sr=sr16000.npy --output y_named.npy
same y_named.npy ref16000.npy
if "$KILN" run bound.kiln --input x.npy --input sr=sr8000.npy --output y_bad.npy 2> wrong.err; then
  echo "FAIL: a run with sr=8000 was accepted by a module bound to 16000"; exit 1
fi
grep -q "input 'sr' was bound at compile time (--input-value) to sr int64\[\] = 16000; this run gives int64\[\] = 8000" wrong.err ||
  { echo "FAIL: unclear refusal:"; cat wrong.err; exit 1; }
echo "ok: $(cat wrong.err)"

echo "== unbound: sr picks the branch at run time"
"$KILN" compile vad_like.onnx -o free.kiln
"$KILN" run free.kiln --input x.npy --input sr16000.npy --output y16.npy
"$KILN" run free.kiln --input x.npy --input sr8000.npy --output y8.npy
same y16.npy ref16000.npy
same y8.npy ref8000.npy

echo "== branches of different rank: refused unbound, compiled bound"
if "$KILN" compile rank_if.onnx -o rank_free.kiln 2> rank_free.err; then
  echo "FAIL: an If whose branches differ in rank compiled unbound"; exit 1
fi
grep -q "the branches give output 0 as float32\[batch,samples\] and float32\[batch,1,samples\].*--input-value" rank_free.err || { echo "FAIL: unclear refusal:"; cat rank_free.err; exit 1; }
"$KILN" compile rank_if.onnx -o rank16.kiln --input-value sr=16000
"$KILN" compile rank_if.onnx -o rank8.kiln --input-value sr=8000
"$KILN" run rank16.kiln --input x.npy --output yr16.npy
"$KILN" run rank8.kiln --input x.npy --output yr8.npy
same yr16.npy x.npy
same yr8.npy ref_rank8000.npy

echo "== --dim fixes a symbolic dim by name"
"$KILN" compile vad_like.onnx -o dims.kiln --dim batch=2 --dim samples=5 --input-value sr=8000
"$KILN" inspect dims.kiln > dims.txt
grep -Eq "input\[0\] +x +float32\[2,5\]" dims.txt || { echo "FAIL: x is not [2,5]"; cat dims.txt; exit 1; }
grep -q "symbols" dims.txt && { echo "FAIL: symbols left"; exit 1; }
"$KILN" run dims.kiln --input x.npy --output yd.npy
same yd.npy ref8000.npy

echo "== bad bindings"
bad() {  # bad NAME REGEX ARGS...: kiln compile fails, stderr matches
  local name=$1 regex=$2
  shift 2
  if "$KILN" compile vad_like.onnx -o "$name.kiln" "$@" 2> "$name.err"; then
    echo "FAIL $name: compiled"; exit 1
  fi
  grep -Eq -- "$regex" "$name.err" || { echo "FAIL $name:"; cat "$name.err"; exit 1; }
  echo "ok   $name: $(head -n 1 "$name.err")"
}
bad not_a_number "input 'sr': 'abc' is not a int64 value" --input-value sr=abc
bad two_values "input 'sr' is int64\[\] \(1 element\); the value given, '1,2', has 2" --input-value sr=1,2
bad not_an_input "a value is given for 'rate', which is not an input of the model" --input-value rate=1
bad symbolic_shape "input 'x' has a symbolic shape; give it with --input-shape too" --input-value x=1
bad unknown_dim "a value is given for dim 'time', which no input of the model declares \(its symbolic dims: 'batch', 'samples'\)" --dim time=3
bad dim_zero "--dim 'batch=0': expected NAME=VALUE" --dim batch=0
bad value_spec "--input-value 'sr': expected NAME=V0,V1" --input-value sr
echo "input bindings: all passed"
