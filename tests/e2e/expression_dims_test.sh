#!/usr/bin/env bash
# Output dims that are expressions of the symbols (tests/models/dynamic/
# generate_kvcache.py): an attention step with a key/value cache returns
# present_k and present_v of P + S rows. One module, compiled once, runs at
# every (P, S) in the VM and as AOT C; `kiln run` and the AOT runner
# (NAME_output_dims) must size and write each output with its real shape and
# match the NumPy float64 reference within rtol 1e-4, atol 1e-5 (float32
# attention); `kiln inspect` spells the expression and the AOT header marks
# the dim -2 in _DIM_SYMBOLS.
# usage: expression_dims_test.sh KILN SOURCE_DIR WORK_DIR
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/check_counter.sh"
D="$SRC/tests/models/dynamic"
M="$WORK/kvcache.kiln"

"$KILN" compile "$D/kvcache_dynseq.onnx" -o "$M" || { fail "kvcache_dynseq: cannot compile"; finish; exit; }
"$KILN" inspect "$M" > "$WORK/inspect.txt"
if grep -Eq 'output\[1\] present_k +float32\[(P \+ S|S \+ P),8\]' "$WORK/inspect.txt"; then
  ok "inspect spells present_k's rows as an expression of P and S"
else
  fail "inspect"; head -12 "$WORK/inspect.txt"
fi
if "$KILN" aot "$M" -o "$WORK/aot" --name kv --no-size-report > "$WORK/aot.log" 2>&1 &&
   make -s -C "$WORK/aot" -j2 CFLAGS="-O2 -Wall -Wextra -Werror" > "$WORK/make.log" 2>&1; then
  aot=1
  if grep -q 'define KV_OUTPUT1_DIM_SYMBOLS {-2, -1}' "$WORK/aot/kv.h"; then
    ok "the AOT header marks the expression dim"
  else
    fail "KV_OUTPUT1_DIM_SYMBOLS"; grep DIM_SYMBOLS "$WORK/aot/kv.h"
  fi
else
  aot=0
  fail "building the AOT bundle"; tail -n 20 "$WORK/aot.log" "$WORK/make.log"
fi

for case in 1_1 3_2 7_5 2_9; do
  base="$D/kvcache_dynseq.$case"
  runners=("vm")
  [ "$aot" = 1 ] && runners+=("aot")
  for backend in "${runners[@]}"; do
    out="$WORK/$backend.$case"
    args=(--input "$base.x.npy" --input "$base.past_k.npy" --input "$base.past_v.npy"
          --output "$out.y.npy" --output "$out.present_k.npy" --output "$out.present_v.npy")
    if [ "$backend" = vm ]; then
      "$KILN" run "$M" "${args[@]}" > "$out.log" 2>&1
    else
      "$WORK/aot/kv_run" "${args[@]}" > "$out.log" 2>&1
    fi
    if [ $? -eq 0 ] && "$PY" -c "
import numpy as np, sys
out, ref = sys.argv[1], sys.argv[2]
for name in ('y', 'present_k', 'present_v'):
    a, b = np.load(f'{out}.{name}.npy'), np.load(f'{ref}.{name}.npy')
    if a.shape != b.shape or not np.allclose(a, b, rtol=1e-4, atol=1e-5):
        sys.exit(f'{name}: {a.shape} vs {b.shape}, max diff {np.abs(a - b).max() if a.shape == b.shape else None}')
" "$out" "$base" >> "$out.log" 2>&1; then
      ok "$backend P_S=$case: outputs match with present_* of P + S rows"
    else
      fail "$backend P_S=$case"; cat "$out.log"
    fi
  done
done

finish
