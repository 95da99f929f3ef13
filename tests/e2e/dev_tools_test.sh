#!/usr/bin/env bash
# The developer tools on real models:
#  - `kiln run --trace` on ResNet-18: valid JSON, one complete event per dispatch;
#  - `kiln run --dump` on MobileNetV2: inner values match PyTorch (dump_reference_check.py),
#    one of them stored channels last (NHWC) and written back in ONNX order;
#  - `kiln compile --layout`: a DS-CNN with NHWC regions gives the outputs and
#    the dumped values of its all-NCHW build;
#  - `kiln run --profile`, `--check-nan`, `kiln inspect --json`;
#  - `kiln compare`: equal modules agree, a perturbed weight is found at its conv;
#  - `kiln bench` on ResNet-18 (table, Markdown, JSON, SVG parsed as XML) and
#    `--per-dispatch` on tiny_cnn;
#  - bad input to each gets a message and a non-zero exit.
# usage: dev_tools_test.sh KILN SOURCE_DIR WORK_DIR [MODELS_DIR]
set -euo pipefail
KILN=$1
SRC=$2
WORK=$3
MODELS=${4:-$WORK/models}
PY=/usr/bin/python3
mkdir -p "$WORK"
KILN=$(realpath "$KILN"); SRC=$(realpath "$SRC"); WORK=$(realpath "$WORK")
MODELS=$(realpath -m "$MODELS")
cd "$WORK"
# Exported models count if written (reference last) after export.py last changed.
fresh() { [ "$1/mobilenet_v2.output.npy" -nt "$SRC/benchmarks/models/export.py" ] &&
          [ "$1/resnet18.output.npy" -nt "$SRC/benchmarks/models/export.py" ]; }
if ! fresh "$MODELS"; then
  MODELS=$WORK/models
  fresh "$MODELS" ||
    "$PY" "$SRC/benchmarks/models/export.py" --out "$MODELS" --models resnet18,mobilenet_v2
fi
fail() { echo "FAILED: $*"; exit 1; }

# --- trace: ResNet-18 -------------------------------------------------------
"$KILN" compile "$MODELS/resnet18.onnx" -o resnet18.kiln
"$KILN" inspect resnet18.kiln --json > resnet18.inspect.json
"$KILN" run resnet18.kiln --input "$MODELS/resnet18.input.npy" --output r18.npy --trace r18.trace.json
"$PY" - <<'PYEOF'
import json
trace = json.load(open("r18.trace.json"))
module = json.load(open("resnet18.inspect.json"))
events = [e for e in trace["traceEvents"] if e.get("cat") == "dispatch"]
dispatches = module["dispatches"]
assert len(dispatches) > 10, len(dispatches)
assert len(events) == len(dispatches), (len(events), len(dispatches))
assert [e["args"]["dispatch"] for e in events] == list(range(len(dispatches)))
for e, d in zip(events, dispatches):
    assert e["ph"] == "X" and e["dur"] >= 0 and e["ts"] >= 0, e
    assert e["args"]["kernel"] == d["kernel"] and e["args"]["nodes"] == d["nodes"], e
    assert d["nodes"] and all(n in e["name"] for n in d["nodes"]), e["name"]
    assert all("shape" in v and v["bytes"] > 0 for v in e["args"]["values"]), e
# Events do not overlap and lie inside the run.
run = [e for e in trace["traceEvents"] if e.get("cat") == "run"][0]
for a, b in zip(events, events[1:]):
    assert a["ts"] + a["dur"] <= b["ts"] + 1e-3, (a, b)
assert run["ts"] <= events[0]["ts"] and events[-1]["ts"] + events[-1]["dur"] <= run["ts"] + run["dur"] + 1e-3
# inspect --json: arena tensors have lifetimes inside the dispatch range.
for t in module["memory"]["tensors"]:
    assert 0 <= t["first_dispatch"] <= t["last_dispatch"] < len(dispatches), t
    assert t["offset"] + t["bytes"] <= module["memory"]["arena_bytes"], t
print(f"trace: {len(events)} dispatch events = {len(dispatches)} dispatches")
PYEOF

# --- dump: MobileNetV2 against PyTorch ---------------------------------------
"$KILN" compile "$MODELS/mobilenet_v2.onnx" -o mobilenet_v2.kiln
rm -rf mb.dump
"$KILN" run mobilenet_v2.kiln --input "$MODELS/mobilenet_v2.input.npy" --output mb.npy --dump mb.dump
"$PY" "$SRC/tests/e2e/dump_reference_check.py" "$SRC" mb.dump "$MODELS/mobilenet_v2.input.npy"
# The 14x14 depthwise output the check reads is stored NHWC. (Listings go
# to files first: grep -q stops reading early, and under pipefail the
# writer's SIGPIPE would fail the pipe.)
"$KILN" inspect mobilenet_v2.kiln > mb.inspect
grep -q "features.10/conv/conv.1/conv.1.2/Clip_output_0\[1,384,14,14\] NHWC" mb.inspect ||
  fail "features.10 depthwise output is not channels last"

# --- layouts: NHWC regions against the all-NCHW build ---------------------------
DS=$SRC/tests/models/layout_ds_cnn
"$KILN" compile "$DS.onnx" -o ds_auto.kiln
"$KILN" compile "$DS.onnx" -o ds_nchw.kiln --layout nchw
"$KILN" inspect ds_auto.kiln > ds_auto.inspect
"$KILN" inspect ds_nchw.kiln > ds_nchw.inspect
[ "$(grep -c "DISPATCH.* NHWC$" ds_auto.inspect)" -ge 5 ] || fail "no NHWC region"
! grep -q NHWC ds_nchw.inspect || fail "--layout nchw stored NHWC"
rm -rf ds_auto.dump ds_nchw.dump
"$KILN" run ds_auto.kiln --input "$DS.input0.npy" --output ds_auto.npy --dump ds_auto.dump
"$KILN" run ds_nchw.kiln --input "$DS.input0.npy" --output ds_nchw.npy --dump ds_nchw.dump
"$PY" - <<'PYEOF'
import json
import numpy as np
auto = {e["value"]: e for e in json.load(open("ds_auto.dump/values.json"))}
nchw = {e["value"]: e for e in json.load(open("ds_nchw.dump/values.json"))}
assert auto.keys() == nchw.keys(), (auto.keys(), nchw.keys())
for name, e in auto.items():
    a, b = np.load("ds_auto.dump/" + e["file"]), np.load("ds_nchw.dump/" + nchw[name]["file"])
    assert a.shape == b.shape and list(a.shape) == e["shape"], (name, a.shape, b.shape)
    # Different kernels sum in different orders: float32 rounding only.
    tol = 1e-5 * max(1.0, float(np.abs(b).max()))
    assert np.abs(a - b).max() <= tol, (name, float(np.abs(a - b).max()))
print(f"layouts: {len(auto)} dumped values of the NHWC build match the NCHW build")
PYEOF
"$PY" "$SRC/scripts/compare_npy.py" --tol 1e-5 --label "ds_cnn auto vs nchw: " ds_nchw.npy ds_auto.npy

# --- profile and check-nan ---------------------------------------------------
"$KILN" run mobilenet_v2.kiln --input "$MODELS/mobilenet_v2.input.npy" --output mb.npy \
  --profile --repeat 3 --check-nan > mb.profile 2> mb.stderr
grep -q "^latency_ms median=.* runs=3$" mb.profile || fail "no latency line"
grep -q "per op type" mb.profile || fail "no per-op table"
grep -Eq "^Conv +[0-9]+ +[0-9]+ .* [0-9.]+$" mb.profile || fail "no Conv GFLOP/s"
grep -q "values in .* dispatches are finite" mb.stderr || fail "check-nan did not report"
# --- compare -----------------------------------------------------------------
TINY=$SRC/examples/models/tiny_cnn
"$KILN" compile "$TINY.onnx" -o tiny_a.kiln
"$KILN" compile "$TINY.onnx" -o tiny_b.kiln
"$KILN" compare tiny_a.kiln tiny_b.kiln --input "$TINY.input.npy" > same.txt || fail "equal modules differ"
grep -q "no value differs" same.txt || fail "compare same"
"$PY" "$SRC/tests/e2e/perturb_initializer.py" "$TINY.onnx" tiny_c.onnx dw.0.weight 1.01
"$KILN" compile tiny_c.onnx -o tiny_c.kiln
if "$KILN" compare tiny_a.kiln tiny_c.kiln --input "$TINY.input.npy" > diff.txt; then
  fail "compare missed a changed weight"
fi
grep -q "first difference: value '/dw/dw.2/Relu_output_0'" diff.txt || { cat diff.txt; fail "compare first value"; }

# --- check-nan: a NaN weight in the classifier is found at its Gemm ---------------
"$PY" "$SRC/tests/e2e/perturb_initializer.py" "$TINY.onnx" tiny_nan.onnx head.weight nan
"$KILN" compile tiny_nan.onnx -o tiny_nan.kiln
if "$KILN" run tiny_nan.kiln --input "$TINY.input.npy" --output nan.npy --check-nan 2> nan.err; then
  fail "--check-nan accepted a NaN"
fi
grep -q "dispatch [0-9]* .*/head/Gemm:Gemm.*value '/head/Gemm_output_0' \[1,10\] has 10 NaN" nan.err ||
  { cat nan.err; fail "--check-nan message"; }

# --- bench ---------------------------------------------------------------------
rm -rf bench.r18
"$KILN" bench "$MODELS/resnet18.onnx" --input "$MODELS/resnet18.input.npy" --repeat 3 --warmup 1 \
  --out bench.r18 --plot r18.svg --baseline-cmd "$PWD/bench.r18/aot/resnet18_run" | tee bench.txt
grep -q "^kiln vm " bench.txt && grep -q "^kiln aot " bench.txt || fail "bench table"
"$PY" - <<'PYEOF'
import json
import xml.etree.ElementTree as ET
svg = ET.parse("r18.svg").getroot()
assert svg.tag.endswith("svg"), svg.tag
ns = "{http://www.w3.org/2000/svg}"
texts = " ".join(t.text or "" for t in svg.iter(ns + "text"))
assert "kiln vm" in texts and "kiln aot" in texts and "baseline" in texts, texts
bars = [r for r in svg.iter(ns + "rect") if r.get("fill") != "white"]
assert len(bars) == 3, len(bars)
report = json.load(open("bench.r18/bench.json"))
names = [r["name"] for r in report["runners"]]
assert names == ["kiln vm", "kiln aot", "baseline"], names
assert all(r["ok"] and r["median_ms"] > 0 for r in report["runners"]), report["runners"]
assert report["runners"][1]["max_abs_diff_vs_vm"] <= 1e-4, report["runners"][1]
assert report["arena_bytes"] > 0 and report["module_bytes"] > 40e6 and report["aot_data_bytes"] > 40e6
assert open("bench.r18/bench.md").read().startswith("# kiln bench")
print("bench: table, bench.md, bench.json and r18.svg ok")
PYEOF
rm -rf bench.tiny
"$KILN" bench "$TINY.onnx" --repeat 3 --out bench.tiny --per-dispatch > bench.tiny.txt
"$PY" - <<'PYEOF'
import json
report = json.load(open("bench.tiny/bench.json"))
rows = report["per_dispatch"]
assert len(rows) == report["dispatches"] > 5, len(rows)
assert all(r["vm_us"] > 0 and r["aot_us"] > 0 for r in rows), rows
print("bench --per-dispatch: VM and AOT times for every dispatch")
PYEOF

# --- bad input -------------------------------------------------------------------
expect_error() {  # expect_error PATTERN CMD...
  local pattern=$1; shift
  if "$@" > bad.out 2> bad.err; then fail "accepted: $*"; fi
  grep -q -- "$pattern" bad.err || { cat bad.err; fail "message for: $*"; }
}
expect_error "does not exist" "$KILN" bench no_such_model.onnx --out bench.bad
expect_error "no_such.kiln" "$KILN" compare no_such.kiln tiny_a.kiln
expect_error "cannot create directory" "$KILN" run tiny_a.kiln --input "$TINY.input.npy" --dump /proc/kiln_dump
expect_error "needs a value" "$KILN" run tiny_a.kiln --input "$TINY.input.npy" --trace
echo "garbage" > bad.kiln
expect_error "bad.kiln" "$KILN" inspect bad.kiln --json
expect_error "--layout must be auto or nchw" "$KILN" compile "$DS.onnx" -o bad_layout.kiln --layout nhwc
echo "dev tools: all ok"
