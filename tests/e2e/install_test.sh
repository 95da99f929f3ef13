#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, then examples/embed_vm built out
# of tree with find_package(Kiln), run on tiny_cnn (module compiled by the
# installed kiln) and compared with the PyTorch reference (max|diff| <= 1e-4).
# usage: install_test.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
BUILD=$1
SRC=$2
WORK=$3
PY=/usr/bin/python3
rm -rf "$WORK"
mkdir -p "$WORK"
cmake --install "$BUILD" --prefix "$WORK/prefix" > "$WORK/install.log"
for f in include/kiln/vm.h include/kiln/vm.hpp bin/kiln lib/cmake/Kiln/KilnConfig.cmake; do
  [ -e "$WORK/prefix/$f" ] || { echo "FAILED: $f not installed"; exit 1; }
done
# Same compiler flags as the build (the asan preset's libkilnvm needs the
# sanitizer runtime linked into the program too).
cache_value() { sed -n "s/^$1:[A-Z]*=//p" "$BUILD/CMakeCache.txt"; }
cmake -S "$SRC/examples/embed_vm" -B "$WORK/build" -DCMAKE_PREFIX_PATH="$WORK/prefix" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS="$(cache_value CMAKE_C_FLAGS)" \
  -DCMAKE_EXE_LINKER_FLAGS="$(cache_value CMAKE_EXE_LINKER_FLAGS)" > "$WORK/configure.log"
cmake --build "$WORK/build" > "$WORK/build.log"
"$WORK/prefix/bin/kiln" compile "$SRC/examples/models/tiny_cnn.onnx" -o "$WORK/tiny_cnn.kiln"
"$PY" -c "import numpy as np, sys; np.load(sys.argv[1]).astype('<f4').tofile(sys.argv[2])" \
  "$SRC/examples/models/tiny_cnn.input.npy" "$WORK/input.raw"
"$WORK/build/embed_vm" "$WORK/tiny_cnn.kiln" "$WORK/input.raw" "$WORK/output.raw"
"$PY" - "$SRC/examples/models/tiny_cnn.output.npy" "$WORK/output.raw" <<'PYEOF'
import sys
import numpy as np
ref = np.load(sys.argv[1]).astype(np.float32).ravel()
got = np.fromfile(sys.argv[2], dtype="<f4")
assert got.shape == ref.shape, (got.shape, ref.shape)
diff = float(np.abs(got - ref).max())
print(f"embed_vm vs pytorch: max_abs_diff={diff:.3g}")
assert diff <= 1e-4, diff
PYEOF
# Bad input: a file that is not a module gets a message and a non-zero exit.
echo "not a module" > "$WORK/bad.kiln"
if "$WORK/build/embed_vm" "$WORK/bad.kiln" "$WORK/input.raw" "$WORK/out2.raw" 2> "$WORK/bad.err"; then
  echo "FAILED: a bad module was accepted"; exit 1
fi
grep -q "bad.kiln" "$WORK/bad.err" || { echo "FAILED: error does not name the file"; cat "$WORK/bad.err"; exit 1; }
# The Python package (when the build has it): importable from the prefix.
site=$(echo "$WORK"/prefix/lib/python3*/dist-packages)
if [ -f "$site/kiln/__init__.py" ]; then
  preload=()
  if cache_value CMAKE_CXX_FLAGS | grep -q fsanitize=address; then
    # The uninstrumented interpreter loads the ASan runtime first (with
    # libstdc++, whose __cxa_throw ASan wraps); python/CMakeLists.txt explains.
    preload=(env "LD_PRELOAD=$(c++ -print-file-name=libasan.so) $(c++ -print-file-name=libstdc++.so.6)"
             ASAN_OPTIONS=detect_leaks=0)
  fi
  (cd "$WORK" && "${preload[@]}" env PYTHONPATH="$site" "$PY" - "$SRC/examples/models/tiny_cnn" "$site" <<'PYEOF'
import sys
import numpy as np
import kiln
model, site = sys.argv[1], sys.argv[2]
assert kiln.__file__.startswith(site), (kiln.__file__, site)
result = kiln.compare(kiln.compile(model + ".onnx"), [np.load(model + ".output.npy")],
                      [np.load(model + ".input.npy")])
print(f"installed kiln package vs pytorch: {result}")
assert result.ok
PYEOF
  )
elif ls "$BUILD"/python/kiln/_kiln*.so > /dev/null 2>&1; then
  echo "FAILED: the Python package was built but not installed"; exit 1
fi
echo "install + out-of-tree find_package(Kiln) example: ok"
