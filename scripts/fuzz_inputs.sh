# Sourced by scripts/fuzz.sh and tests/fuzz/replay_test.sh: what each fuzz
# target starts from and what its regression run replays.
# TARGET: module (load+verify+run), onnx (import+compile), npy, aot (transpile)

# fuzz_seed TARGET SOURCE_DIR CORPUS_DIR KILN: adds the project's test models
# that the corpus lacks (new models join old corpora).
fuzz_seed() {
  local target=$1 src=$2 dir=$3 kiln=$4 f m out
  mkdir -p "$dir"
  case $target in
    onnx)
      for f in "$src"/tests/models/*.onnx "$src"/tests/compiler/models/*.onnx \
               "$src"/tests/malformed/*.onnx "$src"/tests/models/control/*.onnx \
               "$src"/tests/models/result/*.onnx "$src"/tests/models/dynamic/*.onnx; do
        cp -n "$f" "$dir/$(basename "$(dirname "$f")")_$(basename "$f")"
      done ;;
    npy) cp -n "$src"/tests/models/*.npy "$src"/tests/models/bad/*.npy "$dir"/ ;;
    module|aot)
      for m in "$src"/tests/models/*.onnx "$src"/tests/models/dynamic/*.onnx \
               "$src"/tests/models/control/*.onnx "$src"/tests/models/result/*.onnx; do
        out="$dir/$(basename "$m" .onnx).kiln"
        [ -e "$out" ] || "$kiln" compile "$m" -o "$out" 2> /dev/null || true
      done ;;
    *) echo "unknown fuzz target: $target" >&2; return 2 ;;
  esac
}

# fuzz_reproducers TARGET SOURCE_DIR: prints the folder of past findings the
# target's regression run replays (none for npy).
fuzz_reproducers() {
  case $1 in
    onnx) echo "$2/tests/malformed" ;;
    module|aot) echo "$2/tests/malformed/modules" ;;
  esac
}

# fuzz_compile_bundles KILN WORK LIMIT DIR...: the C that kiln aot writes for
# every module the verifier accepts must compile (the aot target itself only
# transpiles). Builds the bundles of the LIMIT newest modules of the DIRs
# that verify; refused modules are skipped.
fuzz_compile_bundles() {
  local kiln=$1 work=$2 limit=$3 built=0 refused=0 m
  shift 3
  local bundle=$work/aot-compile
  while IFS= read -r m; do
    [ "$built" -ge "$limit" ] && break
    rm -rf "$bundle"
    if ! "$kiln" aot "$m" -o "$bundle" --name fuzz --no-size-report > /dev/null 2>&1; then
      refused=$((refused + 1))
      continue
    fi
    if ! make -s -C "$bundle" -j2 fuzz_model.o CFLAGS=-O0 > "$work/aot-compile.log" 2>&1; then
      echo "fuzz aot: the bundle of $m does not compile:"
      tail -n 20 "$work/aot-compile.log"
      return 1
    fi
    built=$((built + 1))
  done < <(find "$@" -maxdepth 1 -type f -printf '%T@ %p\n' | sort -rn | cut -d' ' -f2-)
  echo "fuzz aot: $built bundles compiled, $refused modules refused"
}
