#!/usr/bin/env bash
# Runs one libFuzzer target (or all) for a bounded time.
# usage: scripts/fuzz.sh TARGET|all SECONDS [libFuzzer args...]
#   SECONDS = 0 runs every seed and every reproducer in tests/malformed once
#   (a deterministic regression check; CI runs the same replay without
#   libFuzzer as the ctests fuzz_replay_TARGET, tests/fuzz/replay_test.sh).
#   TARGET: module (load+verify+run), onnx (import+compile), npy, aot (transpile)
# The module target gives each run a 0.5 s deadline (the VM's run budget), so a
# verified module that loops for as long as its data says is stopped, and
# libFuzzer's -timeout=20 below reports only real hangs.
# Seeds come from the project's own test models; the corpus grows in
# build/fuzz/corpus/TARGET and crashes land in build/fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TARGET=${1:?usage: scripts/fuzz.sh TARGET|all SECONDS}
SECONDS_TO_RUN=${2:?usage: scripts/fuzz.sh TARGET|all SECONDS}
shift 2
EXTRA=("$@")  # passed on to libFuzzer

bash scripts/install_deps.sh
# libFuzzer ships in Debian's clang runtime package, not with clang itself.
for pkg in clang libclang-rt-14-dev; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends clang libclang-rt-14-dev > /dev/null
    break
  fi
done
cmake --preset fuzz > /dev/null
cmake --build --preset fuzz --target module_fuzzer onnx_fuzzer npy_fuzzer aot_fuzzer kiln > /dev/null

FUZZ=$ROOT/build/fuzz
mkdir -p "$FUZZ/artifacts"
source "$ROOT/scripts/fuzz_inputs.sh"
seed() { fuzz_seed "$1" "$ROOT" "$FUZZ/corpus/$1" "$FUZZ/tools/kiln"; }

regress() {  # regress TARGET: every seed and reproducer once (SECONDS = 0)
  seed "$1"
  local inputs=("$FUZZ/corpus/$1") repro
  repro=$(fuzz_reproducers "$1" "$ROOT")
  [ -n "$repro" ] && inputs+=("$repro")
  echo "== fuzz $1: regression over seeds and reproducers"
  if ! "$FUZZ/tests/fuzz/$1_fuzzer" -runs=0 -timeout=20 "${inputs[@]}" > "$FUZZ/$1.log" 2>&1; then
    grep -E "ERROR|SUMMARY|runtime error" "$FUZZ/$1.log" || true
    echo "fuzz $1: FAILED"
    return 1
  fi
  if [ "$1" = aot ]; then
    fuzz_compile_bundles "$FUZZ/tools/kiln" "$FUZZ" 60 "${inputs[@]}" || { echo "fuzz aot: FAILED"; return 1; }
  fi
  echo "fuzz $1: ok"
}

run() {  # run TARGET: the full log goes to build/fuzz/TARGET.log
  if [ "$SECONDS_TO_RUN" = 0 ]; then regress "$1"; return; fi
  seed "$1"
  echo "== fuzz $1 for ${SECONDS_TO_RUN}s (log: build/fuzz/$1.log)"
  local code=0
  ASAN_OPTIONS=detect_leaks=1 "$FUZZ/tests/fuzz/$1_fuzzer" "$FUZZ/corpus/$1" \
    -max_total_time="$SECONDS_TO_RUN" -max_len=65536 -timeout=20 -rss_limit_mb=4096 \
    -artifact_prefix="$FUZZ/artifacts/$1-" -print_final_stats=1 "${EXTRA[@]}" > "$FUZZ/$1.log" 2>&1 || code=$?
  grep -E "^Done [0-9]+ runs|stat::number_of_executed_units|cov: .*corp" "$FUZZ/$1.log" | tail -2 || true
  grep -E "ERROR|SUMMARY|runtime error|Test unit written" "$FUZZ/$1.log" || true
  if [ "$code" -ne 0 ]; then echo "fuzz $1: FAILED (exit $code)"; return "$code"; fi
  if [ "$1" = aot ]; then fuzz_compile_bundles "$FUZZ/tools/kiln" "$FUZZ" 100 "$FUZZ/corpus/aot" || { echo "fuzz aot: FAILED"; return 1; }; fi
  echo "fuzz $1: ok"
}

if [ "$TARGET" = all ]; then
  for t in module onnx npy aot; do run "$t"; done
else
  run "$TARGET"
fi
