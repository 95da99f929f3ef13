#!/usr/bin/env bash
# The main job: install what is missing, build, compile the example model,
# run it in the VM and as AOT C, show that both agree with PyTorch and with
# each other, and how fast each is.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
REPEAT=${REPEAT:-100}

# Only what the demo needs (the test suite's packages come with test.sh),
# and only the `kiln` tool, in the release tree test.sh builds on.
bash scripts/install_deps.sh demo
cmake --preset demo > /dev/null
cmake --build --preset demo --target kiln

KILN=$ROOT/build/release/tools/kiln
OUT=$ROOT/build/demo
MODEL=$ROOT/examples/models/tiny_cnn
mkdir -p "$OUT"

echo "== compile  examples/models/tiny_cnn.onnx -> build/demo/tiny_cnn.kiln"
"$KILN" compile "$MODEL.onnx" -o "$OUT/tiny_cnn.kiln"
"$KILN" inspect "$OUT/tiny_cnn.kiln" | grep -E "arena_bytes|^executables|^constants"

echo "== run in the VM ($REPEAT runs)"
vm_line=$("$KILN" run "$OUT/tiny_cnn.kiln" --input "$MODEL.input.npy" --output "$OUT/vm.npy" --repeat "$REPEAT")
echo "vm  $vm_line"

echo "== transpile to C and build with make"
"$KILN" aot "$OUT/tiny_cnn.kiln" -o "$OUT/tiny_cnn_aot" --name tiny_cnn
# The VM picks SIMD paths from the CPU at run time; AOT takes them from the
# compile flags, so build for this machine to compare like with like.
make -s -C "$OUT/tiny_cnn_aot" -j2 CFLAGS="-O3 -march=native"
echo "== run the AOT binary ($REPEAT runs)"
aot_line=$("$OUT/tiny_cnn_aot/tiny_cnn_run" --input "$MODEL.input.npy" --output "$OUT/aot.npy" --repeat "$REPEAT")
echo "aot $aot_line"

echo "== compare (bound: 1e-4 * max(1, max|ref|) against PyTorch, 1e-5 between VM and AOT)"
python3_bin=/usr/bin/python3
"$python3_bin" scripts/compare_npy.py --label "vm  vs pytorch: " "$MODEL.output.npy" "$OUT/vm.npy"
"$python3_bin" scripts/compare_npy.py --label "aot vs pytorch: " "$MODEL.output.npy" "$OUT/aot.npy"
"$python3_bin" scripts/compare_npy.py --tol 1e-5 --label "vm  vs aot:     " "$OUT/vm.npy" "$OUT/aot.npy"

median() { sed -E 's/.*median=([0-9.]+).*/\1/' <<< "$1"; }
vm_ms=$(median "$vm_line")
aot_ms=$(median "$aot_line")
echo "== summary"
awk -v vm="$vm_ms" -v aot="$aot_ms" \
  'BEGIN { printf "VM and AOT agree. median latency: vm %s ms, aot %s ms, vm/aot %.2fx\n", vm, aot, vm / aot }'
