#!/usr/bin/env bash
# Instructions per multiply-add of the GEMM and convolution kernels on the
# AArch64 paths (neon, portable), counted under qemu-aarch64 by
# insn_count_plugin.so: each kernel runs 1 and 3 times, and the difference is
# divided by the multiply-adds of 2 runs (start-up and setup cancel out).
# Prints a Markdown table. Counts, not speed: QEMU's timing says nothing
# about a real core.
# usage: benchmarks/aarch64/insns_per_mac.sh [CROSS_BUILD_DIR]
#   CROSS_BUILD_DIR: the AArch64 build of the kernels (default
#   build/release/tests/aarch64/cross, made by the release build when the
#   cross tools are installed), holding runtime/libruntime_<path>.a
set -euo pipefail
cd "$(dirname "$0")/../.."
CROSS=${1:-build/release/tests/aarch64/cross}
QEMU=(qemu-aarch64 -L /usr/aarch64-linux-gnu)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

gcc -O2 -Wall -Wextra -Werror -shared -fPIC -o "$WORK/insn_count.so" \
  benchmarks/aarch64/insn_count_plugin.c
for path in neon portable; do
  lib="$CROSS/runtime/libruntime_$path.a"
  [ -f "$lib" ] || { echo "insns_per_mac: no $lib (build the release preset first)"; exit 1; }
  aarch64-linux-gnu-gcc -O2 -std=c11 -Wall -Wextra -Werror -Iruntime/include \
    -o "$WORK/macs_$path" benchmarks/aarch64/macs_driver.c "$lib" -lm
done

# count PATH KERNEL REPS -> "insns vector_fmla macs_per_run"
count() {
  local out
  out=$("${QEMU[@]}" -plugin "$WORK/insn_count.so" "$WORK/macs_$1" "$2" "$3" 2>&1)
  local insns fmla macs
  insns=$(sed -n 's/.*insn_count: insns=\([0-9]*\).*/\1/p' <<< "$out")
  fmla=$(sed -n 's/.* vector_fmla=\([0-9]*\).*/\1/p' <<< "$out")
  macs=$(sed -n 's/.*macs_per_run=\([0-9]*\).*/\1/p' <<< "$out")
  [ -n "$insns" ] && [ -n "$macs" ] || { echo "insns_per_mac: $1 $2: $out" >&2; exit 1; }
  echo "$insns $fmla $macs"
}

echo "| kernel | path | instructions / MAC | vector FMLA / MAC |"
echo "|---|---|---|---|"
for kernel in gemm conv_packed conv; do
  for path in neon portable; do
    read -r i1 f1 macs < <(count "$path" "$kernel" 1)
    read -r i3 f3 _ < <(count "$path" "$kernel" 3)
    awk -v k="$kernel" -v p="$path" -v di=$((i3 - i1)) -v df=$((f3 - f1)) -v m="$macs" \
      'BEGIN { printf "| %s | %s | %.3f | %.3f |\n", k, p, di / (2 * m), df / (2 * m) }'
  done
done
