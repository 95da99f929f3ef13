#!/usr/bin/env bash
# scripts/compare_npy.py, which most e2e tests use to judge outputs: a pair
# within its bound passes, one outside fails the run, each option holds for
# the pairs after it (so one run can check pairs with different bounds), and
# bad arguments are refused. Arrays are made here with NumPy.
# usage: compare_npy_test.sh KILN SOURCE_DIR WORK_DIR
set -uo pipefail
SRC=$2
WORK=$3
PY=/usr/bin/python3
CMP="$SRC/scripts/compare_npy.py"
mkdir -p "$WORK" && cd "$WORK" || exit 1
"$PY" -c "
import numpy as np
a = np.array([1.0, -2.0, 3.0], np.float32)
np.save('a.npy', a)
np.save('a_copy.npy', a.copy())
np.save('a_1e-6.npy', a + np.float32(3e-6))   # 1e-6 * max|a| = 3e-6: inside 1e-5, outside 1e-7
np.save('a_far.npy', a + np.float32(0.1))
np.save('a_long.npy', np.append(a, 0))
" || exit 1

failed=0
expect() {  # expect 0|1 DESCRIPTION ARGS...: compare_npy.py's exit status
  local want=$1 what=$2
  shift 2
  "$PY" "$CMP" "$@" > out.log 2>&1
  local rc=$?
  if { [ "$want" = 0 ] && [ "$rc" = 0 ]; } || { [ "$want" != 0 ] && [ "$rc" != 0 ]; }; then
    echo "ok   $what"
  else
    echo "FAIL $what: exit $rc, wanted $want"
    cat out.log
    failed=$((failed + 1))
  fi
}
expect 0 "equal arrays" a.npy a_copy.npy
expect 0 "within the default 1e-4" a.npy a_1e-6.npy
expect 1 "outside the default" a.npy a_far.npy
expect 1 "outside --tol 1e-7" --tol 1e-7 a.npy a_1e-6.npy
expect 1 "not bitwise" --bitwise a.npy a_1e-6.npy
expect 0 "bitwise" --bitwise a.npy a_copy.npy
expect 1 "shape differs" a.npy a_long.npy
expect 1 "a later pair fails" a.npy a_copy.npy a.npy a_far.npy
expect 0 "each pair its own bound" --tol 1e-5 a.npy a_1e-6.npy --bitwise a.npy a_copy.npy
expect 1 "a bound holds for the pairs after it" --tol 1e-7 a.npy a_copy.npy a.npy a_1e-6.npy
expect 1 "--tol after --bitwise replaces it, and fails its pair" \
  --bitwise a.npy a_copy.npy --tol 1e-7 a.npy a_1e-6.npy
expect 1 "odd file count" a.npy a_copy.npy a.npy
expect 1 "no files" --tol 1e-3
expect 1 "unknown option" --rtol 1e-3 a.npy a_copy.npy
expect 1 "missing file" a.npy missing.npy
"$PY" "$CMP" --label "first: " a.npy a_copy.npy --label "second: " --tol 1e-5 a.npy a_1e-6.npy > labels.log 2>&1
if grep -q "^first: .*bound=0.0003 .* ok$" labels.log && grep -q "^second: .*bound=3e-05 .* ok$" labels.log; then
  echo "ok   labels and bounds per pair"
else
  echo "FAIL labels and bounds per pair:"
  cat labels.log
  failed=$((failed + 1))
fi
[ "$failed" -eq 0 ]
