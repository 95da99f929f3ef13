#!/usr/bin/env bash
# Bad input through the kiln CLI: every case must exit non-zero (never by a
# signal) and print a message naming what is wrong and where.
# usage: cli_bad_input_test.sh KILN SOURCE_DIR WORK_DIR
set -uo pipefail
KILN=$1
SRC=$2
WORK=$3
rm -rf "$WORK"
mkdir -p "$WORK"
MODELS="$SRC/tests/models"
BAD="$MODELS/bad"

passed=0
failed=0
# expect_error NAME REGEX COMMAND...: the command fails with code 1 or 2 and
# its stderr matches REGEX (extended grep).
expect_error() {
  local name=$1 regex=$2
  shift 2
  "$@" > "$WORK/$name.out" 2> "$WORK/$name.err"
  local code=$?
  if [ "$code" -ne 1 ] && [ "$code" -ne 2 ]; then
    echo "FAIL $name: exit code $code (want 1 or 2)"; cat "$WORK/$name.err"
    failed=$((failed + 1))
  elif ! grep -Eq -- "$regex" "$WORK/$name.err"; then
    echo "FAIL $name: stderr does not match /$regex/:"; cat "$WORK/$name.err"
    failed=$((failed + 1))
  else
    echo "ok   $name: $(head -c 200 "$WORK/$name.err" | head -n 1)"
    passed=$((passed + 1))
  fi
}

# A good module to break and to feed bad tensors.
"$KILN" compile "$MODELS/tiny_mlp.onnx" -o "$WORK/good.kiln" || { echo "cannot compile tiny_mlp"; exit 1; }
size=$(stat -c %s "$WORK/good.kiln")
head -c $((size / 2)) "$WORK/good.kiln" > "$WORK/truncated.kiln"
cp "$BAD/random.bin" "$WORK/random.kiln"
# Same bytes with the identifier changed.
{ head -c 4 "$WORK/good.kiln"; printf 'XXXX'; tail -c +9 "$WORK/good.kiln"; } > "$WORK/wrong_id.kiln"

expect_error missing_onnx "no/such/model.onnx" "$KILN" compile "$WORK/no/such/model.onnx" -o "$WORK/x.kiln"
expect_error truncated_onnx "truncated.onnx" "$KILN" compile "$BAD/truncated.onnx" -o "$WORK/x.kiln"
expect_error unsupported_ops "random_unsupported.*sample_unsupported|sample_unsupported.*random_unsupported" \
  "$KILN" compile "$BAD/unsupported_ops.onnx" -o "$WORK/x.kiln"
expect_error unsupported_ops_types "RandomNormalLike.*Multinomial|Multinomial.*RandomNormalLike" \
  "$KILN" compile "$BAD/unsupported_ops.onnx" -o "$WORK/x.kiln"
expect_error missing_module "no/such/module.kiln" "$KILN" run "$WORK/no/such/module.kiln" --input x.npy
expect_error truncated_module "truncated.kiln.*(invalid|truncated|identifier)" \
  "$KILN" run "$WORK/truncated.kiln" --input "$MODELS/tiny_mlp.input0.npy"
expect_error random_module "random.kiln.*not a Kiln module" \
  "$KILN" run "$WORK/random.kiln" --input "$MODELS/tiny_mlp.input0.npy"
expect_error wrong_identifier "wrong_id.kiln.*not a Kiln module" "$KILN" inspect "$WORK/wrong_id.kiln"
expect_error aot_random_module "random.kiln.*not a Kiln module" "$KILN" aot "$WORK/random.kiln" -o "$WORK/bundle"
expect_error wrong_shape "wrong_shape.npy.*has shape \[.*\]; the module expects \[1,32\]" \
  "$KILN" run "$WORK/good.kiln" --input "$BAD/tiny_mlp.input0.wrong_shape.npy"
expect_error wrong_dtype "float64.npy.*dtype float64; the module expects float32" \
  "$KILN" run "$WORK/good.kiln" --input "$BAD/tiny_mlp.input0.float64.npy"
expect_error missing_input "missing --input for input 0" "$KILN" run "$WORK/good.kiln"
expect_error missing_npy "cannot open '.*nothere.npy'" "$KILN" run "$WORK/good.kiln" --input "$WORK/nothere.npy"
expect_error not_npy "is not a valid .npy file" "$KILN" run "$WORK/good.kiln" --input "$WORK/good.kiln"
expect_error too_many_inputs "too many --input files" \
  "$KILN" run "$WORK/good.kiln" --input "$MODELS/tiny_mlp.input0.npy" --input "$MODELS/tiny_mlp.input0.npy"
expect_error bad_aot_name "not a C identifier" "$KILN" aot "$WORK/good.kiln" -o "$WORK/b" --name "9lives"
expect_error bad_aot_target "unknown --target 'riscv'" "$KILN" aot "$WORK/good.kiln" -o "$WORK/b" --target riscv
expect_error bad_aot_emit "unknown --emit 'dll'" "$KILN" aot "$WORK/good.kiln" -o "$WORK/b" --emit=dll
expect_error bad_aot_weights "unknown --weights 'flash'" "$KILN" aot "$WORK/good.kiln" -o "$WORK/b" --weights=flash
expect_error ops_extra_argument "usage: kiln ops" "$KILN" ops Conv
expect_error ops_unknown_option "--json" "$KILN" ops --json
expect_error shared_for_mcu "--emit=shared needs a host target, not cortex-m4" \
  "$KILN" aot "$WORK/good.kiln" -o "$WORK/b" --emit=shared --target cortex-m4
mkdir -p "$WORK/precious" && echo keep > "$WORK/precious/notes.txt"
expect_error aot_refuses_foreign_dir "not a kiln bundle" "$KILN" aot "$WORK/good.kiln" -o "$WORK/precious"
expect_error unknown_command "unknown command 'frobnicate'" "$KILN" frobnicate
expect_error unknown_option "unknown option '--bogus'" "$KILN" run "$WORK/good.kiln" --bogus

# A failed compile must not clobber an existing module.
cp "$WORK/good.kiln" "$WORK/keep.kiln"
"$KILN" compile "$BAD/unsupported_ops.onnx" -o "$WORK/keep.kiln" 2>/dev/null
if cmp -s "$WORK/good.kiln" "$WORK/keep.kiln" && [ -f "$WORK/precious/notes.txt" ]; then
  echo "ok   failed_writes_keep_files"; passed=$((passed + 1))
else
  echo "FAIL failed_writes_keep_files"; failed=$((failed + 1))
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
