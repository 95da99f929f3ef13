#!/usr/bin/env bash
# `kiln run` leaks nothing: good runs with every developer flag, and runs that
# fail on bad input (their early-return paths are where leaks hide). In the
# asan preset kiln is built with AddressSanitizer, and LeakSanitizer reports
# any leak at exit (exit code 23 and a "LeakSanitizer" line); in other
# presets the same runs check only the exit codes.
# An AOT bundle's runner (aot/templates/main.c) is held to the same in every
# preset: bundles of a fixed-shape and a symbolic-shape model are built with
# -fsanitize=address and run on good and refused inputs (skipped, and said
# so, where the C compiler cannot link AddressSanitizer).
# usage: leak_check_test.sh KILN SOURCE_DIR WORK_DIR
set -uo pipefail
KILN=$1
SRC=$2
WORK=$3
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
MODEL="$SRC/examples/models/tiny_cnn"
failed=0
# run NAME WANT_EXIT COMMAND...
run() {
  local name=$1 want=$2
  shift 2
  "$@" > "$name.out" 2> "$name.err"
  local code=$?
  if [ "$code" -ne "$want" ] || grep -q "LeakSanitizer" "$name.err"; then
    echo "FAIL $name: exit $code (want $want)"
    head -n 30 "$name.err"
    failed=$((failed + 1))
  else
    echo "ok   $name"
  fi
}
run compile 0 "$KILN" compile "$MODEL.onnx" -o m.kiln
run run_plain 0 "$KILN" run m.kiln --input "$MODEL.input.npy" --output y.npy --repeat 3
run run_debug 0 "$KILN" run m.kiln --input "$MODEL.input.npy" --output y.npy --threads 2 \
  --trace trace.json --profile --dump dump --check-nan
head -c 2000 m.kiln > truncated.kiln
run run_truncated 1 "$KILN" run truncated.kiln --input "$MODEL.input.npy"
run run_wrong_input 1 "$KILN" run m.kiln --input "$SRC/tests/models/tiny_mlp.input0.npy"
run run_missing_file 1 "$KILN" run m.kiln --input "$WORK/absent.npy"
run compile_bad 1 "$KILN" compile "$SRC/tests/malformed/cyclic.onnx" -o bad.kiln

# The AOT runners.
CC=${CC:-cc}
echo 'int main(void) { return 0; }' > probe.c
if ! "$CC" -fsanitize=address probe.c -o probe > /dev/null 2>&1; then
  echo "skip AOT runners: $CC cannot link -fsanitize=address"
else
  ASAN_CFLAGS="-O1 -g -fsanitize=address -fno-omit-frame-pointer"
  DYN="$SRC/tests/models/dynamic"
  run aot_fixed 0 "$KILN" aot m.kiln -o fixed
  run aot_fixed_build 0 make -s -C fixed CFLAGS="$ASAN_CFLAGS"
  run aot_symbolic_compile 0 "$KILN" compile "$DYN/pairs_dynlen.onnx" -o pairs.kiln
  run aot_symbolic 0 "$KILN" aot pairs.kiln -o symbolic
  run aot_symbolic_build 0 make -s -C symbolic CFLAGS="$ASAN_CFLAGS"
  FIXED=fixed/model_run
  SYMBOLIC=symbolic/model_run
  run aot_fixed_good 0 "$FIXED" --input "$MODEL.input.npy" --output y_aot.npy --repeat 2
  run aot_fixed_wrong_shape 1 "$FIXED" --input "$SRC/tests/models/tiny_mlp.input0.npy"
  run aot_fixed_missing_file 1 "$FIXED" --input "$WORK/absent.npy"
  run aot_fixed_unwritable_output 1 "$FIXED" --input "$MODEL.input.npy" \
    --output "$WORK/absent_dir/y.npy"
  run aot_symbolic_good 0 "$SYMBOLIC" --input "$DYN/pairs_dynlen.10.input.npy" --output p.npy
  # N = 7 breaks the model's requirement N == (N / 2)*2 after the input is read.
  # A float32 (7, 3) .npy of zeros, written here (format 1.0: the header
  # padded with spaces to 128 bytes in all, then the 84 data bytes).
  dict="{'descr': '<f4', 'fortran_order': False, 'shape': (7, 3), }"
  printf '\x93NUMPY\x01\x00\x76\x00%-117s\n' "$dict" > odd.npy
  head -c 84 /dev/zero >> odd.npy
  run aot_symbolic_refused 1 "$SYMBOLIC" --input odd.npy --output p.npy
  grep -q "break the model's requirement" aot_symbolic_refused.err ||
    { echo "FAIL aot_symbolic_refused: not refused for its requirement"; failed=$((failed + 1)); }
  run aot_symbolic_wrong_rank 1 "$SYMBOLIC" --input "$MODEL.input.npy"
  run aot_symbolic_missing_file 1 "$SYMBOLIC" --input "$WORK/absent.npy"
fi
echo "leak check: $failed failed"
[ "$failed" -eq 0 ]
