#!/usr/bin/env bash
# Runs one libFuzzer target (or all) for a bounded time.
# usage: scripts/fuzz.sh TARGET|all SECONDS [libFuzzer args...]
#   SECONDS = 0 runs every seed and every reproducer in tests/malformed once
#   (a deterministic regression check, what CI runs).
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
seed() {  # seed TARGET: add the test models the corpus lacks (new models join old corpora)
  local dir=$FUZZ/corpus/$1 out
  mkdir -p "$dir"
  case $1 in
    onnx)
      for f in "$ROOT"/tests/models/*.onnx "$ROOT"/tests/compiler/models/*.onnx \
               "$ROOT"/tests/malformed/*.onnx "$ROOT"/tests/models/control/*.onnx \
               "$ROOT"/tests/models/result/*.onnx "$ROOT"/tests/models/dynamic/*.onnx; do
        cp -n "$f" "$dir/$(basename "$(dirname "$f")")_$(basename "$f")"
      done ;;
    npy) cp -n "$ROOT"/tests/models/*.npy "$ROOT"/tests/models/bad/*.npy "$dir"/ ;;
    module|aot)
      for m in "$ROOT"/tests/models/*.onnx "$ROOT"/tests/models/dynamic/*.onnx \
               "$ROOT"/tests/models/control/*.onnx "$ROOT"/tests/models/result/*.onnx; do
        out="$dir/$(basename "$m" .onnx).kiln"
        [ -e "$out" ] || "$FUZZ/tools/kiln" compile "$m" -o "$out" 2> /dev/null || true
      done ;;
  esac
}

regress() {  # regress TARGET: every seed and reproducer once (SECONDS = 0)
  seed "$1"
  local inputs=("$FUZZ/corpus/$1")
  case $1 in
    onnx) inputs+=("$ROOT/tests/malformed") ;;
    module|aot) inputs+=("$ROOT/tests/malformed/modules") ;;
  esac
  echo "== fuzz $1: regression over seeds and reproducers"
  if ! "$FUZZ/tests/fuzz/$1_fuzzer" -runs=0 -timeout=20 "${inputs[@]}" > "$FUZZ/$1.log" 2>&1; then
    grep -E "ERROR|SUMMARY|runtime error" "$FUZZ/$1.log" || true
    echo "fuzz $1: FAILED"
    return 1
  fi
  if [ "$1" = aot ]; then compile_bundles 60 "${inputs[@]}" || { echo "fuzz aot: FAILED"; return 1; }; fi
  echo "fuzz $1: ok"
}

# compile_bundles LIMIT DIR...: the C that kiln aot writes for every module
# the verifier accepts must compile (the aot fuzzer itself only transpiles).
# Builds the bundles of the LIMIT newest modules of the DIRs that verify;
# refused modules are skipped.
compile_bundles() {
  local limit=$1 built=0 refused=0 m
  shift
  local work=$FUZZ/aot-compile
  while IFS= read -r m; do
    [ "$built" -ge "$limit" ] && break
    rm -rf "$work"
    if ! "$FUZZ/tools/kiln" aot "$m" -o "$work" --name fuzz --no-size-report > /dev/null 2>&1; then
      refused=$((refused + 1))
      continue
    fi
    if ! make -s -C "$work" -j2 fuzz_model.o CFLAGS=-O0 > "$FUZZ/aot-compile.log" 2>&1; then
      echo "fuzz aot: the bundle of $m does not compile:"
      tail -n 20 "$FUZZ/aot-compile.log"
      return 1
    fi
    built=$((built + 1))
  done < <(find "$@" -maxdepth 1 -type f -printf '%T@ %p\n' | sort -rn | cut -d' ' -f2-)
  echo "fuzz aot: $built bundles compiled, $refused modules refused"
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
  if [ "$1" = aot ]; then compile_bundles 100 "$FUZZ/corpus/aot" || { echo "fuzz aot: FAILED"; return 1; }; fi
  echo "fuzz $1: ok"
}

if [ "$TARGET" = all ]; then
  for t in module onnx npy aot; do run "$t"; done
else
  run "$TARGET"
fi
