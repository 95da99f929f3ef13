#!/usr/bin/env bash
# Runs that only a run budget ends, through the command line: `kiln run` and
# the AOT runner with --timeout SECONDS and --max-iterations N.
# tests/models/control (control_flow_models.py loop_budget_models):
# loop_counted has a run-time trip count (2^62 runs for ever, 7 runs to the
# NumPy reference); loop_until is a while loop whose condition never ends it
# for one bound and does for another. The fuzzer's endless loop
# (tests/malformed/modules/endless_loop.kiln) is refused at load by `kiln run`
# and `kiln aot`. Every command runs under `timeout 120`, so a budget that
# fails to stop a run fails the test instead of hanging it; nothing asserts
# how long a run took.
# usage: run_budget_test.sh KILN SOURCE_DIR WORK_DIR
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/check_counter.sh"
C="$SRC/tests/models/control"
R="$SRC/tests/malformed/modules/endless_loop"

# same A B: max|A - B| <= 1e-6 (float32 multiply-adds as NumPy does them).
same() {
  "$PY" -c "import numpy as np, sys; a, b = np.load(sys.argv[1]), np.load(sys.argv[2]); \
sys.exit(0 if a.shape == b.shape and np.abs(a - b).max() <= 1e-6 else 1)" "$1" "$2"
}

# expect NAME PATTERN COMMAND...: the command exits 1..125 and prints PATTERN.
expect() {
  local name=$1 pattern=$2
  shift 2
  timeout 120 "$@" > "$WORK/$name.log" 2>&1
  local code=$?
  if [ "$code" -ge 1 ] && [ "$code" -le 123 ] && grep -qF -- "$pattern" "$WORK/$name.log"; then
    ok "$name: $(grep -F -- "$pattern" "$WORK/$name.log" | head -n 1)"
  else
    fail "$name: exit code $code, want 1 and: $pattern"; cat "$WORK/$name.log"
  fi
}

# matches NAME REFERENCE COMMAND... (writing $WORK/out.npy): runs and matches.
matches() {
  local name=$1 reference=$2
  shift 2
  rm -f "$WORK/out.npy"
  if timeout 120 "$@" --output "$WORK/out.npy" > "$WORK/$name.log" 2>&1 &&
     same "$WORK/out.npy" "$reference"; then
    ok "$name matches the reference"
  else
    fail "$name"; cat "$WORK/$name.log"
  fi
}

refusal="function 'main' +78: LOOP's trip count is 144115188243628032 (constant 4 'trip')"
expect endless_run "$refusal" "$KILN" run "$R.kiln" --input "$R.input.npy" --output "$WORK/y.npy"
expect endless_run_budget "$refusal" "$KILN" run "$R.kiln" --input "$R.input.npy" \
  --output "$WORK/y.npy" --timeout 1
expect endless_aot "$refusal" "$KILN" aot "$R.kiln" -o "$WORK/endless"

for m in loop_counted loop_until; do
  "$KILN" compile "$C/$m.onnx" -o "$WORK/$m.kiln" || { fail "cannot compile $m"; finish; exit 1; }
done
counted=(--input "$C/loop_counted.s0.npy")
huge=(--input "$C/loop_counted.trip_huge.npy" "${counted[@]}" --output "$WORK/y.npy")
seven=(--input "$C/loop_counted.trip7.npy" "${counted[@]}")
never=(--input "$C/loop_until.v0.npy" --input "$C/loop_until.bound_never.npy" --output "$WORK/y.npy")
ends=(--input "$C/loop_until.v0.npy" --input "$C/loop_until.bound_ends.npy")

# The VM: the stop code's message names where the run stopped.
vm=("$KILN" run "$WORK/loop_counted.kiln")
expect vm_deadline "the run passed its deadline (a timeout of 0.05 s)" "${vm[@]}" "${huge[@]}" \
  --timeout 0.05
expect vm_iterations "(LOOP): the run reached its limit of loop iterations (6)" "${vm[@]}" \
  "${seven[@]}" --output "$WORK/y.npy" --max-iterations 6
matches vm_seven_iterations "$C/loop_counted.output7.npy" "${vm[@]}" "${seven[@]}" \
  --max-iterations 7 --timeout 600
expect vm_while_profiled "the run passed its deadline" "$KILN" run "$WORK/loop_until.kiln" \
  "${never[@]}" --timeout 0.05 --profile --threads 2
matches vm_while_ends "$C/loop_until.output_ends.npy" "$KILN" run "$WORK/loop_until.kiln" \
  "${ends[@]}" --timeout 600
for bad in "--timeout 0" "--timeout -1" "--timeout soon" "--max-iterations 0" "--max-iterations -3"; do
  # shellcheck disable=SC2086
  expect "vm_bad_${bad// /_}" "${bad%% *} must be" "${vm[@]}" "${seven[@]}" \
    --output "$WORK/y.npy" $bad
done

# The AOT runner: NAME_run_with_host's should_stop hook, the code printed.
build() {  # build MODEL NAME
  if ! "$KILN" aot "$WORK/$1.kiln" -o "$WORK/$2" --name "$2" --no-size-report > "$WORK/$2.aot.log" 2>&1 ||
     ! make -s -C "$WORK/$2" -j2 CFLAGS="-O2 -Wall -Wextra -Werror" > "$WORK/$2.make.log" 2>&1; then
    fail "building the $1 bundle"; tail -n 20 "$WORK/$2.aot.log" "$WORK/$2.make.log"
    return 1
  fi
}
if build loop_counted counted; then
  aot=("$WORK/counted/counted_run")
  expect aot_deadline "counted_run failed with code 9: the run passed its deadline" "${aot[@]}" \
    "${huge[@]}" --timeout 0.05
  expect aot_iterations "counted_run failed with code 10: the run reached its limit of loop iterations" \
    "${aot[@]}" "${seven[@]}" --output "$WORK/y.npy" --max-iterations 6
  matches aot_seven_iterations "$C/loop_counted.output7.npy" "${aot[@]}" "${seven[@]}" \
    --max-iterations 7 --timeout 600
  for bad in "--timeout 0" "--timeout soon" "--max-iterations 0" "--max-iterations -3"; do
    # shellcheck disable=SC2086
    expect "aot_bad_${bad// /_}" "${bad%% *} must be" "${aot[@]}" "${seven[@]}" \
      --output "$WORK/y.npy" $bad
  done
fi
if build loop_until until; then
  expect aot_while "until_run failed with code 9" "$WORK/until/until_run" "${never[@]}" --timeout 0.05
  matches aot_while_ends "$C/loop_until.output_ends.npy" "$WORK/until/until_run" "${ends[@]}"
fi

finish
