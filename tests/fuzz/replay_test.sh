#!/usr/bin/env bash
# A fuzz target's regression run without libFuzzer: every seed (the project's
# test models, scripts/fuzz_inputs.sh) and every past finding in
# tests/malformed, once through the target's entry point; for aot, the C of
# the newest 60 bundles must also compile. A crash, a sanitizer report or a
# hang (ctest's timeout) fails it.
# usage: replay_test.sh REPLAY KILN SOURCE_DIR WORK_DIR TARGET
set -euo pipefail
REPLAY=$1
KILN=$2
SRC=$3
WORK=$4
TARGET=$5
source "$SRC/scripts/fuzz_inputs.sh"
mkdir -p "$WORK"
fuzz_seed "$TARGET" "$SRC" "$WORK/corpus" "$KILN"
inputs=("$WORK/corpus")
repro=$(fuzz_reproducers "$TARGET" "$SRC")
[ -n "$repro" ] && inputs+=("$repro")
"$REPLAY" "${inputs[@]}"
if [ "$TARGET" = aot ]; then
  fuzz_compile_bundles "$KILN" "$WORK" 60 "${inputs[@]}"
fi
