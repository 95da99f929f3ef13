#!/usr/bin/env bash
# A kernel path this machine cannot run is skipped (exit 77, saying why),
# never passed: kernel_path_flags, the per-path benchmark-model test and the
# conformance runner, asked for the AArch64 NEON path on an x86-64 host. A
# misspelt path is an error (exit 2). And the flags of a path that runs.
# usage: path_skip_test.sh KILN SOURCE_DIR WORK_DIR FLAGS_TOOL CONFORMANCE_RUNNER
set -uo pipefail
KILN=$1
SRC=$2
WORK=$3
FLAGS_TOOL=$4
RUNNER=$5
mkdir -p "$WORK"
failed=0
# expect NAME RC PATTERN COMMAND...: COMMAND exits RC and prints PATTERN.
expect() {
  local name=$1 rc=$2 pattern=$3
  shift 3
  local out got
  out=$("$@" 2>&1)
  got=$?
  if [ "$got" -eq "$rc" ] && grep -q -- "$pattern" <<< "$out"; then
    echo "ok: $name (exit $got)"
  else
    echo "FAILED: $name: exit $got (want $rc), output: $out"
    failed=1
  fi
}
expect "flags of portable" 0 "^-DKILN_PORTABLE_ONLY=1$" "$FLAGS_TOOL" portable
expect "flags of neon on x86-64" 77 "skipped: kernel path 'neon' is not built into this VM" \
  "$FLAGS_TOOL" neon
expect "misspelt path" 2 "unknown path 'avx3'" "$FLAGS_TOOL" avx3
expect "no path" 2 "usage: kernel_path_flags" "$FLAGS_TOOL"
expect "benchmark models on neon" 77 "skipped: kernel path 'neon'" \
  bash "$SRC/tests/e2e/benchmark_models_test.sh" "$KILN" "$SRC" "$WORK/bm" "$WORK/models" neon \
  "$FLAGS_TOOL"
expect "conformance on neon" 77 "skipped: kernel path 'neon' (from the KILN_ISA" \
  env KILN_ISA=neon "$RUNNER" --suite simple --work-dir "$WORK/conformance" --no-aot
[ "$failed" -eq 0 ]
