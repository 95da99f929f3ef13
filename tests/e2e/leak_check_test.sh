#!/usr/bin/env bash
# `kiln run` leaks nothing: good runs with every developer flag, and runs that
# fail on bad input (their early-return paths are where leaks hide). In the
# asan preset kiln is built with AddressSanitizer, and LeakSanitizer reports
# any leak at exit (exit code 23 and a "LeakSanitizer" line); in other
# presets the same runs check only the exit codes.
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
echo "leak check: $failed failed"
[ "$failed" -eq 0 ]
