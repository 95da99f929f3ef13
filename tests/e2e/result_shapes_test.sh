#!/usr/bin/env bash
# Outputs whose length is known only after the run: tests/models/result/
# nonzero_after_run.onnx returns NonZero with no declared shape. One module
# runs three inputs (2, 9 and 0 non-zeros); `kiln run` and the AOT runner
# must each write the .npy with the real shape [2, n] and numpy.nonzero's
# indices, and `kiln inspect` must show the bound.
# usage: result_shapes_test.sh KILN SOURCE_DIR WORK_DIR
set -uo pipefail
KILN=$1
SRC=$2
WORK=$3
PY=/usr/bin/python3
rm -rf "$WORK"
mkdir -p "$WORK"
M="$SRC/tests/models/result/nonzero_after_run"
passed=0
failed=0
ok() { echo "ok   $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; failed=$((failed + 1)); }

"$KILN" compile "$M.onnx" -o "$WORK/m.kiln" || { echo "cannot compile"; exit 1; }
if "$KILN" inspect "$WORK/m.kiln" | grep -q "output\[0\] y .*int64\[2,y.length<=12\]"; then
  ok "inspect shows the bound"
else
  fail "inspect"; "$KILN" inspect "$WORK/m.kiln" | head -12
fi

# check BACKEND RUNNER...: every input's output equals numpy.nonzero exactly.
check() {
  local backend=$1
  shift
  for k in 0 1 2; do
    local out="$WORK/$backend$k.npy"
    if "$@" --input "$M.in$k.npy" --output "$out" --output "$WORK/relu.npy" > "$WORK/$backend$k.log" 2>&1 &&
       "$PY" -c "import numpy as np, sys; a, b = np.load(sys.argv[1]), np.load(sys.argv[2]); \
sys.exit(0 if a.dtype == b.dtype and a.shape == b.shape and (a == b).all() else 1)" "$out" "$M.ref$k.npy"; then
      ok "$backend: input $k gives $("$PY" -c "import numpy as np, sys; print(np.load(sys.argv[1]).shape)" "$out")"
    else
      fail "$backend: input $k"; cat "$WORK/$backend$k.log"
    fi
  done
}

check vm "$KILN" run "$WORK/m.kiln"
if ! "$KILN" aot "$WORK/m.kiln" -o "$WORK/aot" --name nz --no-size-report > "$WORK/aot.log" 2>&1 ||
   ! make -s -C "$WORK/aot" -j2 CFLAGS="-O2 -Wall -Wextra -Werror" > "$WORK/make.log" 2>&1; then
  fail "building the AOT bundle"; tail -n 20 "$WORK/aot.log" "$WORK/make.log"
else
  check aot "$WORK/aot/nz_run"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
