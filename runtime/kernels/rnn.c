/* recurrent_f32: ONNX RNN, GRU and LSTM (forward, reverse, bidirectional;
 * layouts 0 and 1; optional bias, initial states, peepholes, per-batch
 * sequence lengths fixed at compile time). Each step is row-times-matrix
 * dot products over the contiguous rows of W [G*H, I] and R [G*H, H]; the
 * running state and one step's gate values live in a scratch binding the
 * compiler plans in the arena, so the kernel allocates nothing. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check_util.h"
#include "kiln/kernels.h"

enum {
  RN_CELL, RN_SEQ, RN_BATCH, RN_INPUT, RN_HIDDEN, RN_DIRS, RN_DIRECTION, RN_LAYOUT,
  RN_HAS_B, RN_HAS_H0, RN_HAS_C0, RN_HAS_P, RN_HAS_Y, RN_HAS_YH, RN_HAS_YC,
  RN_LBR, RN_INPUT_FORGET, RN_HAS_CLIP, RN_HAS_LENS, RN_ACTS, RN_HEAD = RN_ACTS + 6
};
enum { CELL_RNN = 0, CELL_GRU = 1, CELL_LSTM = 2 };
enum { B_X, B_W, B_R, B_B, B_H0, B_C0, B_P, B_Y, B_YH, B_YC, B_SCRATCH, B_LENS };

static int64_t gate_count(int64_t cell) { return cell == CELL_LSTM ? 4 : cell == CELL_GRU ? 3 : 1; }

/* ONNX recurrent activation functions, codes as in kiln_rnn_activation. */
static float act(int64_t kind, float a, float b, float x) {
  switch (kind) {
    case 0: return 1.0f / (1.0f + expf(-x));
    case 1: return tanhf(x);
    case 2: return x > 0.0f ? x : 0.0f;
    case 3: return a * x + b;
    case 4: return x >= 0.0f ? x : a * x;
    case 5: return x > a ? x : 0.0f;
    case 6: return a * tanhf(b * x);
    case 7: { const float v = a * x + b; return v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v; }
    case 8: return x >= 0.0f ? x : a * (expf(x) - 1.0f);
    case 9: return x / (1.0f + fabsf(x));
    default: return x > 20.0f ? x : log1pf(expf(x));
  }
}

/* Sixteen independent partial sums, folded as a tree: the compiler may
 * vectorise them (one running sum it may not reorder), which makes the steps
 * several times faster with SSE2, AVX2 or AVX-512 code alike. The summation
 * order is fixed by this code, not left to the compiler. */
static float dot(const float* a, const float* b, int64_t n) {
  float acc[16] = {0.0f};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    for (int k = 0; k < 16; ++k) acc[k] += a[i + k] * b[i + k];
  }
  for (int w = 8; w > 0; w /= 2) {
    for (int k = 0; k < w; ++k) acc[k] += acc[k + w];
  }
  float s = acc[0];
  for (; i < n; ++i) s += a[i] * b[i];
  return s;
}

typedef struct {
  const int64_t* ip;
  const float* fp;
  int64_t S, B, I, H, D, G;
} rnn_dims;

static float clipv(const rnn_dims* r, float v) {
  if (!r->ip[RN_HAS_CLIP]) return v;
  const float c = r->fp[0];
  return v < -c ? -c : v > c ? c : v;
}

/* Activation k (0..2) of direction d applied after clipping. */
static float apply(const rnn_dims* r, int64_t d, int64_t k, float x) {
  const int64_t slot = d * 3 + k;
  return act(r->ip[RN_ACTS + slot], r->fp[1 + slot], r->fp[7 + slot], clipv(r, x));
}

/* One step for one batch row: updates h (and c) in place. */
static void cell_step(const rnn_dims* r, int64_t d, const float* x, const float* W,
                      const float* Rm, const float* wb, const float* rb, const float* P,
                      float* h, float* c, float* gates, float* tmp) {
  const int64_t H = r->H, I = r->I, G = r->G, cell = r->ip[RN_CELL];
  for (int64_t g = 0; g < G * H; ++g) {
    float v = dot(x, W + g * I, I) + (wb ? wb[g] : 0.0f);
    /* GRU's candidate gate mixes in the state later, after the reset gate. */
    if (!(cell == CELL_GRU && g >= 2 * H)) v += dot(h, Rm + g * H, H) + (rb ? rb[g] : 0.0f);
    gates[g] = v;
  }
  if (cell == CELL_RNN) {
    for (int64_t j = 0; j < H; ++j) h[j] = apply(r, d, 0, gates[j]);
  } else if (cell == CELL_GRU) {
    float* z = gates;
    float* rr = gates + H;
    float* hh = gates + 2 * H;
    for (int64_t j = 0; j < H; ++j) {
      z[j] = apply(r, d, 0, z[j]);
      rr[j] = apply(r, d, 0, rr[j]);
    }
    const float* Rh = Rm + 2 * H * H;
    const float* rbh = rb ? rb + 2 * H : NULL;
    if (r->ip[RN_LBR]) {
      for (int64_t j = 0; j < H; ++j)
        hh[j] += rr[j] * (dot(h, Rh + j * H, H) + (rbh ? rbh[j] : 0.0f));
    } else {
      for (int64_t j = 0; j < H; ++j) tmp[j] = rr[j] * h[j];
      for (int64_t j = 0; j < H; ++j) hh[j] += dot(tmp, Rh + j * H, H) + (rbh ? rbh[j] : 0.0f);
    }
    for (int64_t j = 0; j < H; ++j) {
      const float cand = apply(r, d, 1, hh[j]);
      h[j] = (1.0f - z[j]) * cand + z[j] * h[j];
    }
  } else {
    const float* pi = P ? P : NULL;
    const float* po = P ? P + H : NULL;
    const float* pf = P ? P + 2 * H : NULL;
    for (int64_t j = 0; j < H; ++j) {
      const float i = apply(r, d, 0, gates[j] + (pi ? pi[j] * c[j] : 0.0f));
      const float f = r->ip[RN_INPUT_FORGET]
                          ? 1.0f - i
                          : apply(r, d, 0, gates[2 * H + j] + (pf ? pf[j] * c[j] : 0.0f));
      const float cc = apply(r, d, 1, gates[3 * H + j]);
      c[j] = f * c[j] + i * cc;
      const float o = apply(r, d, 0, gates[H + j] + (po ? po[j] * c[j] : 0.0f));
      h[j] = o * apply(r, d, 2, c[j]);
    }
  }
}

int kiln_recurrent_f32(const int64_t* ip, const float* fp, void* const* bindings,
                       const kiln_host* host) {
  (void)host;
  rnn_dims r = {ip, fp, ip[RN_SEQ], ip[RN_BATCH], ip[RN_INPUT], ip[RN_HIDDEN], ip[RN_DIRS],
                gate_count(ip[RN_CELL])};
  const int64_t S = r.S, B = r.B, I = r.I, H = r.H, D = r.D, G = r.G;
  const int64_t layout = ip[RN_LAYOUT], direction = ip[RN_DIRECTION];
  const int64_t* lens = ip + RN_HEAD;
  const float* X = (const float*)bindings[B_X];
  float* Y = ip[RN_HAS_Y] ? (float*)bindings[B_Y] : NULL;
  float* Yh = ip[RN_HAS_YH] ? (float*)bindings[B_YH] : NULL;
  float* Yc = ip[RN_HAS_YC] ? (float*)bindings[B_YC] : NULL;
  float* scratch = (float*)bindings[B_SCRATCH];
  float* hs = scratch;           /* [B, H] */
  float* cs = hs + B * H;        /* [B, H] */
  float* gates = cs + B * H;     /* [G*H] */
  float* tmp = gates + G * H;    /* [H] */
  for (int64_t d = 0; d < D; ++d) {
    const int reverse = direction == 1 || (direction == 2 && d == 1);
    const float* W = (const float*)bindings[B_W] + d * G * H * I;
    const float* Rm = (const float*)bindings[B_R] + d * G * H * H;
    const float* wb = ip[RN_HAS_B] ? (const float*)bindings[B_B] + d * 2 * G * H : NULL;
    const float* rb = wb ? wb + G * H : NULL;
    const float* P = ip[RN_HAS_P] ? (const float*)bindings[B_P] + d * 3 * H : NULL;
    for (int64_t b = 0; b < B; ++b) {
      const int64_t st = layout ? (b * D + d) * H : (d * B + b) * H;
      if (ip[RN_HAS_H0]) memcpy(hs + b * H, (const float*)bindings[B_H0] + st, (size_t)H * 4);
      else memset(hs + b * H, 0, (size_t)H * 4);
      if (ip[RN_HAS_C0]) memcpy(cs + b * H, (const float*)bindings[B_C0] + st, (size_t)H * 4);
      else memset(cs + b * H, 0, (size_t)H * 4);
    }
    for (int64_t s = 0; s < S; ++s) {
      for (int64_t b = 0; b < B; ++b) {
        int64_t len = lens[b];
        if (ip[RN_HAS_LENS]) { /* run-time int32 lengths, clamped to [0, S] */
          int32_t v;
          memcpy(&v, (const unsigned char*)bindings[B_LENS] + b * 4, 4);
          len = v < 0 ? 0 : v > S ? S : v;
        }
        const int64_t t = s >= len ? s : reverse ? len - 1 - s : s;
        float* y = Y ? Y + (layout ? ((b * S + t) * D + d) * H : ((t * D + d) * B + b) * H) : NULL;
        if (s >= len) {
          if (y) memset(y, 0, (size_t)H * 4);
          continue;
        }
        const float* x = X + (layout ? (b * S + t) * I : (t * B + b) * I);
        cell_step(&r, d, x, W, Rm, wb, rb, P, hs + b * H, cs + b * H, gates, tmp);
        if (y) memcpy(y, hs + b * H, (size_t)H * 4);
      }
    }
    for (int64_t b = 0; b < B; ++b) {
      const int64_t st = layout ? (b * D + d) * H : (d * B + b) * H;
      if (Yh) memcpy(Yh + st, hs + b * H, (size_t)H * 4);
      if (Yc) memcpy(Yc + st, cs + b * H, (size_t)H * 4);
    }
  }
  return KILN_OK;
}

/* Bytes binding k must hold when its flag is set. */
static int need(const uint64_t* have, int k, int64_t flag, const int64_t* dims, int64_t n) {
  if (!flag) return KILN_OK;
  int64_t count;
  KILN_TRY(kiln_checked_product(dims, n, &count));
  return kiln_check_f32_binding(have[k], count);
}

int kiln_recurrent_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                             uint32_t fparam_count, const uint64_t* binding_bytes) {
  if (ip == NULL || iparam_count < RN_HEAD) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t B = ip[RN_BATCH];
  if (B < 0 || B > (int64_t)UINT32_MAX - RN_HEAD) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_counts(ip, iparam_count, (uint32_t)(RN_HEAD + B), fp, fparam_count, 13));
  KILN_TRY(kiln_check_nonneg(ip, RN_HEAD + B));
  KILN_TRY(kiln_check_enum(ip[RN_CELL], CELL_RNN, CELL_LSTM));
  KILN_TRY(kiln_check_enum(ip[RN_DIRS], 1, 2));
  KILN_TRY(kiln_check_enum(ip[RN_DIRECTION], 0, 2));
  if ((ip[RN_DIRECTION] == 2) != (ip[RN_DIRS] == 2)) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_enum(ip[RN_LAYOUT], 0, 1));
  for (int k = RN_HAS_B; k <= RN_HAS_LENS; ++k) KILN_TRY(kiln_check_enum(ip[k], 0, 1));
  for (int k = 0; k < 6; ++k) KILN_TRY(kiln_check_enum(ip[RN_ACTS + k], 0, 10));
  if (ip[RN_CELL] != CELL_LSTM && (ip[RN_HAS_C0] || ip[RN_HAS_P] || ip[RN_HAS_YC]))
    return KILN_ERR_INVALID_ARGUMENT;
  const int64_t S = ip[RN_SEQ], I = ip[RN_INPUT], H = ip[RN_HIDDEN], D = ip[RN_DIRS];
  const int64_t G = gate_count(ip[RN_CELL]);
  for (int64_t b = 0; b < B; ++b)
    if (ip[RN_HEAD + b] > S) return KILN_ERR_INVALID_ARGUMENT;
  int64_t gh, dot_len;
  KILN_TRY(kiln_checked_mul(G, H, &gh));
  /* D x S x B steps of G*H dot products over I + H: with I == H == 0 (or
   * B == 0) every tensor is empty and the step loops are bounded by nothing.
   * S == 0 runs no step (the state set-up is bounded by the scratch). */
  KILN_TRY(kiln_checked_add(I, H, &dot_len));
  const int64_t loops[5] = {D, S, B, gh, dot_len};
  if (S > 0) KILN_TRY(kiln_check_work(loops, 5));
  const int64_t x[3] = {S, B, I}, w[3] = {D, gh, I}, rr[3] = {D, gh, H}, bb[3] = {D, 2, gh};
  const int64_t st[3] = {D, B, H}, p[3] = {D, 3, H}, y[4] = {S, D, B, H};
  KILN_TRY(need(binding_bytes, B_X, 1, x, 3));
  KILN_TRY(need(binding_bytes, B_W, 1, w, 3));
  KILN_TRY(need(binding_bytes, B_R, 1, rr, 3));
  KILN_TRY(need(binding_bytes, B_B, ip[RN_HAS_B], bb, 3));
  KILN_TRY(need(binding_bytes, B_H0, ip[RN_HAS_H0], st, 3));
  KILN_TRY(need(binding_bytes, B_C0, ip[RN_HAS_C0], st, 3));
  KILN_TRY(need(binding_bytes, B_P, ip[RN_HAS_P], p, 3));
  KILN_TRY(need(binding_bytes, B_Y, ip[RN_HAS_Y], y, 4));
  KILN_TRY(need(binding_bytes, B_YH, ip[RN_HAS_YH], st, 3));
  KILN_TRY(need(binding_bytes, B_YC, ip[RN_HAS_YC], st, 3));
  if (ip[RN_HAS_LENS]) {
    int64_t lb;
    KILN_TRY(kiln_dense_bytes(B, 4, &lb));
    KILN_TRY(kiln_check_binding(binding_bytes[B_LENS], lb));
  }
  /* scratch: state h and c [B, H] each, gates [G*H], tmp [H]. */
  int64_t scratch, t;
  KILN_TRY(kiln_checked_mul(B, H, &scratch));
  KILN_TRY(kiln_checked_mul(scratch, 2, &scratch));
  KILN_TRY(kiln_checked_add(scratch, gh, &scratch));
  KILN_TRY(kiln_checked_add(scratch, H, &scratch));
  KILN_TRY(kiln_dense_bytes(scratch, 4, &t));
  KILN_TRY(kiln_check_binding(binding_bytes[B_SCRATCH], t));
  return KILN_OK;
}
