/* macs_driver KERNEL REPS: runs one runtime kernel REPS times on fixed data
 * and prints the multiply-adds of one run, for insns_per_mac.sh (which runs
 * it under QEMU with insn_count_plugin.so). Linked with one path's copy of
 * the kernels (libruntime_<path>.a), so the count is that path's code.
 *   gemm         gemm_f32, M = N = K = 128
 *   conv_packed  conv2d_packed_f32, 3x3, 64 -> 64 channels, 28x28, stride 1
 *                (a ResNet-18 layer2-sized plane with fewer channels)
 *   conv         conv2d_f32 (im2col + GEMM), the same layer */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kiln/kernels.h"

static float* filled(int64_t n) {
  float* v = malloc((size_t)n * sizeof *v);
  if (v == NULL) exit(2);
  for (int64_t i = 0; i < n; ++i) v[i] = (float)((i * 7919) % 97) / 97.0f - 0.5f;
  return v;
}

static int run_gemm(int reps, int64_t* macs) {
  const int64_t m = 128, n = 128, k = 128;
  float *a = filled(m * k), *b = filled(k * n), *y = filled(m * n);
  const int64_t ip[9] = {m, n, k, 0, 0, 0, 0, 0, KILN_ACT_NONE};
  const float fp[4] = {1, 0, 0, 0};
  void* bindings[4] = {a, b, y, y};
  *macs = m * n * k;
  for (int r = 0; r < reps; ++r) {
    if (kiln_gemm_f32(ip, fp, bindings, NULL) != 0) return 1;
  }
  return 0;
}

static int run_conv(int reps, int packed, int64_t* macs) {
  const int64_t c = 64, h = 28, oc = 64, kh = 3, taps = kh * kh, kk = taps * c, oh = h;
  float *x = filled(c * h * h), *w = filled(oc * kk), *bias = filled(oc), *y = filled(oc * oh * oh);
  float* wp = calloc((size_t)((oc + 15) / 16 * 16 * kk), sizeof(float));
  if (wp == NULL) return 2;
  for (int64_t o = 0; o < oc; ++o)
    for (int64_t ic = 0; ic < c; ++ic)
      for (int64_t t = 0; t < taps; ++t)
        wp[(o / 16) * kk * 16 + (t * c + ic) * 16 + o % 16] = w[(o * c + ic) * taps + t];
  const int64_t ip[18] = {1, c, h, h, oc, oh, oh, kh, kh, 1, 1, 1, 1, 1, 1, 1, KILN_ACT_RELU, 1};
  const float fp[2] = {0, 0};
  void* bindings[4] = {x, packed ? wp : w, bias, y};
  *macs = oc * oh * oh * kk;
  for (int r = 0; r < reps; ++r) {
    const int rc = packed ? kiln_conv2d_packed_f32(ip, fp, bindings, NULL)
                          : kiln_conv2d_f32(ip, fp, bindings, NULL);
    if (rc != 0) return 1;
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: macs_driver gemm|conv_packed|conv REPS\n");
    return 2;
  }
  const int reps = atoi(argv[2]);
  int64_t macs = 0;
  int rc;
  if (strcmp(argv[1], "gemm") == 0) {
    rc = run_gemm(reps, &macs);
  } else if (strcmp(argv[1], "conv_packed") == 0) {
    rc = run_conv(reps, 1, &macs);
  } else if (strcmp(argv[1], "conv") == 0) {
    rc = run_conv(reps, 0, &macs);
  } else {
    fprintf(stderr, "macs_driver: unknown kernel '%s'\n", argv[1]);
    return 2;
  }
  if (rc != 0) {
    fprintf(stderr, "macs_driver: %s failed (%d)\n", argv[1], rc);
    return 1;
  }
  printf("macs_per_run=%lld\n", (long long)macs);
  return 0;
}
