#!/usr/bin/env bash
# Deployment outputs of `kiln aot` on the host, each checked against the VM:
#  - freestanding habits: bundle files include only <stdint.h>, <stddef.h>,
#    <string.h>, <math.h> (and the SIMD intrinsics header); the model object
#    calls only <string.h>/<math.h> functions, has no mutable data, and every
#    global symbol carries the model prefix;
#  - two models in one program (fixtures/two_models.c), plus metadata and the
#    misaligned-workspace error code;
#  - --emit=static (libNAME.a) and --emit=shared (libNAME.so exporting exactly
#    NAME_run, NAME_run_with_host and NAME_metadata);
#  - --weights=external (NAME_weights.bin, loaded by the caller);
#  - the size report line and README section.
# Outputs must match the VM within 1e-5 * max(1, max|vm|).
# usage: deployment_test.sh KILN SOURCE_DIR WORK_DIR
set -uo pipefail
KILN=$1
SRC=$2
WORK=$3
PY=/usr/bin/python3
FIX="$SRC/tests/aot/fixtures"
CFLAGS_STRICT="-std=c11 -O2 -Wall -Wextra -Werror"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1

failed=0
check() {  # check NAME COMMAND...: runs the command, reports ok/FAIL
  local name=$1
  shift
  if "$@" > "$name.log" 2>&1; then
    echo "ok   $name"
  else
    echo "FAIL $name (log: $WORK/$name.log)"
    tail -n 20 "$name.log"
    failed=$((failed + 1))
  fi
}
same_as_vm() {  # same_as_vm VM.npy GOT.npy
  "$PY" "$SRC/scripts/compare_npy.py" --tol 1e-5 "$1" "$2"
}
to_raw() { "$PY" -c "import numpy, sys; numpy.load(sys.argv[1]).tofile(sys.argv[2])" "$1" "$2"; }
from_raw() {  # from_raw RAW LIKE.npy OUT.npy: raw bytes shaped like LIKE
  "$PY" -c "import numpy, sys; l = numpy.load(sys.argv[2]); numpy.save(sys.argv[3], numpy.fromfile(sys.argv[1], l.dtype).reshape(l.shape))" "$1" "$2" "$3"
}

# Two models that share a kernel (Gemm), with VM references.
A_IN="$SRC/examples/models/tiny_cnn.input.npy"
B_IN="$SRC/tests/models/tiny_mlp.input0.npy"
"$KILN" compile "$SRC/examples/models/tiny_cnn.onnx" -o a.kiln || exit 1
"$KILN" compile "$SRC/tests/models/tiny_mlp.onnx" -o b.kiln || exit 1
"$KILN" run a.kiln --input "$A_IN" --output a.vm.npy > /dev/null || exit 1
"$KILN" run b.kiln --input "$B_IN" --output b.vm.npy > /dev/null || exit 1

"$KILN" aot a.kiln -o net_a --name net_a > aot_a.out || exit 1
"$KILN" aot b.kiln -o net_b --name net_b > aot_b.out || exit 1

# The size report: one line on stdout, the same numbers in the README, and
# the objects cleaned away so `make` with other CFLAGS starts fresh.
size_report() {
  grep -Eq '^size target=host text=[1-9][0-9]* rodata=[1-9][0-9]* data=[0-9]+ bss=[0-9]+ workspace=[0-9]+$' aot_a.out &&
  text=$(sed -E 's/.* text=([0-9]+).*/\1/' aot_a.out) &&
  grep -q "| $text |" net_a/README.md && ! ls net_a/*.o 2> /dev/null
}
check size_report size_report

# Freestanding habits, on every runtime kernel source and on the model code.
includes() {
  local allowed=stdint.h,stddef.h,string.h,math.h,immintrin.h f
  for f in net_a/net_a.c net_a/net_a_weights.c net_a/runtime/kernels/*.c; do
    cc -std=c11 -march=native -I net_a -I net_a/runtime/include -H -fsyntax-only "$f" 2>&1 >/dev/null |
      "$PY" "$FIX/check_includes.py" net_a "$f" "$allowed" || return 1
  done
  for f in "$SRC"/runtime/kernels/*.c; do  # every kernel, not only this model's
    cc -std=c11 -march=native -I "$SRC/runtime/include" -H -fsyntax-only "$f" 2>&1 >/dev/null |
      "$PY" "$FIX/check_includes.py" "$SRC/runtime" "$f" "$allowed" || return 1
  done
}
check freestanding_includes includes
objects() {
  for m in net_a net_b; do
    make -s -C "$m" "${m}_model.o" CFLAGS=-O2 || return 1
    nm "$m/${m}_model.o" > "$m.nm" && "$PY" "$FIX/check_symbols.py" cc "${m}_" "$m.nm" || return 1
    # Mutable state would live in .data or .bss (.data.rel.ro is read-only).
    if size -A "$m/${m}_model.o" | awk '$1 ~ /^\.(data|bss)/ && $1 !~ /^\.data\.rel\.ro/ && $2 > 0 {bad = 1; print} END {exit bad}'; then :; else return 1; fi
    make -s -C "$m" mostlyclean
  done
}
check freestanding_objects objects

# Both models in one program.
# Each bundle builds with its own include path (its kernels carry its prefix).
two_models() {
  make -s -C net_a lib CFLAGS=-O2 && make -s -C net_b lib CFLAGS=-O2 &&
  cc $CFLAGS_STRICT -I net_a -I net_a/runtime/include -I net_b "$FIX/two_models.c" \
    net_a/libnet_a.a net_b/libnet_b.a -lm -o two_models &&
  to_raw "$A_IN" a.in.bin && to_raw "$B_IN" b.in.bin &&
  ./two_models a.in.bin a.out.bin b.in.bin b.out.bin &&
  from_raw a.out.bin a.vm.npy a.two.npy && from_raw b.out.bin b.vm.npy b.two.npy &&
  same_as_vm a.vm.npy a.two.npy && same_as_vm b.vm.npy b.two.npy
}
check two_models_one_binary two_models

# --emit=static: the runner linked against libNAME.a alone.
static_lib() {
  "$KILN" aot a.kiln -o st --name st --emit=static > /dev/null && test -f st/libst.a &&
  cc $CFLAGS_STRICT -I st -I st/runtime/include st/st_main.c st/libst.a -lm -o run_static &&
  ./run_static --input "$A_IN" --output a.static.npy && same_as_vm a.vm.npy a.static.npy
}
check emit_static static_lib

# --emit=shared: exactly three exported entry points, and a runner using them.
shared_lib() {
  "$KILN" aot a.kiln -o sh --name sh --emit=shared > /dev/null && test -f sh/libsh.so &&
  nm -D --defined-only sh/libsh.so | awk '{print $3}' | sort > exported.txt &&
  printf 'sh_metadata\nsh_run\nsh_run_with_host\n' | diff - exported.txt &&
  cc $CFLAGS_STRICT -I sh -I sh/runtime/include sh/sh_main.c -L sh -lsh -Wl,-rpath,"$WORK/sh" -o run_shared &&
  ./run_shared --input "$A_IN" --output a.shared.npy && same_as_vm a.vm.npy a.shared.npy
}
check emit_shared shared_lib

# --weights=external: the runner loads NAME_weights.bin beside itself; a
# truncated file is refused.
external_weights() {
  "$KILN" aot a.kiln -o ext --name ext --weights=external > ext.out &&
  grep -q ' weights=[1-9]' ext.out && test -f ext/ext_weights.bin && ! test -f ext/ext_weights.c &&
  bytes=$(sed -nE 's/#define EXT_WEIGHTS_SIZE ([0-9]+)u/\1/p' ext/ext.h) &&
  test "$(stat -c %s ext/ext_weights.bin)" = "$bytes" &&
  make -s -C ext CFLAGS="-O2 -Wall -Wextra -Werror" &&
  ext/ext_run --input "$A_IN" --output a.ext.npy && same_as_vm a.vm.npy a.ext.npy &&
  head -c 100 ext/ext_weights.bin > short.bin &&
  ! ext/ext_run --input "$A_IN" --weights short.bin 2> short.err && grep -q "weights file does not hold" short.err
}
check external_weights external_weights

echo "deployment: $failed failed"
[ "$failed" -eq 0 ]
