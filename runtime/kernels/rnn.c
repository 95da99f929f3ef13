/* recurrent_f32 and recurrent_pb_f32: ONNX RNN, GRU and LSTM (forward,
 * reverse, bidirectional; layouts 0 and 1; optional bias, initial states,
 * peepholes, per-batch sequence lengths fixed at compile time or given at run
 * time).
 *
 * Each (direction, batch row) is an independent recurrence:
 *  - the input projections x_t W^T + biases of a chunk of steps are one GEMM
 *    (sgemm.h) over W^T in 16-column panels, gate by gate;
 *  - each step adds h R^T, a matrix-vector product over R^T in the same
 *    panels (rnn_gemv: several panels at once, so the FMAs of one output do
 *    not wait on each other and R streams through once per step);
 *  - the gate functions run a vector of lanes at a time (vec.h, vec_math.h).
 * recurrent_pb_f32 gets W and R packed by the compiler (kiln/kernels.h);
 * recurrent_f32 packs them into its scratch first. Every output sums its
 * products in a fixed order, so results do not depend on the thread count:
 * with a host, two directions run on two threads, and one direction's input
 * GEMM splits over the host's threads. The scratch is planned by the
 * compiler (kiln_recurrent_scratch_floats), so the kernels allocate nothing. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "sgemm.h"
#include "vec.h"
#include "vec_math.h"

enum {
  RN_CELL = KILN_IP_RECURRENT_F32_CELL,
  RN_SEQ = KILN_IP_RECURRENT_F32_SEQ,
  RN_BATCH = KILN_IP_RECURRENT_F32_BATCH,
  RN_INPUT = KILN_IP_RECURRENT_F32_INPUT,
  RN_HIDDEN = KILN_IP_RECURRENT_F32_HIDDEN,
  RN_DIRS = KILN_IP_RECURRENT_F32_NUM_DIRS,
  RN_DIRECTION = KILN_IP_RECURRENT_F32_DIRECTION,
  RN_LAYOUT = KILN_IP_RECURRENT_F32_LAYOUT,
  RN_HAS_B = KILN_IP_RECURRENT_F32_HAS_B,
  RN_HAS_H0 = KILN_IP_RECURRENT_F32_HAS_H0,
  RN_HAS_C0 = KILN_IP_RECURRENT_F32_HAS_C0,
  RN_HAS_P = KILN_IP_RECURRENT_F32_HAS_P,
  RN_HAS_Y = KILN_IP_RECURRENT_F32_HAS_Y,
  RN_HAS_YH = KILN_IP_RECURRENT_F32_HAS_YH,
  RN_HAS_YC = KILN_IP_RECURRENT_F32_HAS_YC,
  RN_LBR = KILN_IP_RECURRENT_F32_LINEAR_BEFORE_RESET,
  RN_INPUT_FORGET = KILN_IP_RECURRENT_F32_INPUT_FORGET,
  RN_HAS_CLIP = KILN_IP_RECURRENT_F32_HAS_CLIP,
  RN_HAS_LENS = KILN_IP_RECURRENT_F32_HAS_LENS,
  RN_ACTS = KILN_IP_RECURRENT_F32_ACT,
  RN_HEAD = KILN_IP_RECURRENT_F32_SEQ_LENS
};
_Static_assert(KILN_IP_RECURRENT_PB_F32_CELL == (int)RN_CELL &&
                   KILN_IP_RECURRENT_PB_F32_SEQ == (int)RN_SEQ &&
                   KILN_IP_RECURRENT_PB_F32_BATCH == (int)RN_BATCH &&
                   KILN_IP_RECURRENT_PB_F32_INPUT == (int)RN_INPUT &&
                   KILN_IP_RECURRENT_PB_F32_HIDDEN == (int)RN_HIDDEN &&
                   KILN_IP_RECURRENT_PB_F32_NUM_DIRS == (int)RN_DIRS &&
                   KILN_IP_RECURRENT_PB_F32_DIRECTION == (int)RN_DIRECTION &&
                   KILN_IP_RECURRENT_PB_F32_LAYOUT == (int)RN_LAYOUT &&
                   KILN_IP_RECURRENT_PB_F32_HAS_B == (int)RN_HAS_B &&
                   KILN_IP_RECURRENT_PB_F32_HAS_H0 == (int)RN_HAS_H0 &&
                   KILN_IP_RECURRENT_PB_F32_HAS_C0 == (int)RN_HAS_C0 &&
                   KILN_IP_RECURRENT_PB_F32_HAS_P == (int)RN_HAS_P &&
                   KILN_IP_RECURRENT_PB_F32_HAS_Y == (int)RN_HAS_Y &&
                   KILN_IP_RECURRENT_PB_F32_HAS_YH == (int)RN_HAS_YH &&
                   KILN_IP_RECURRENT_PB_F32_HAS_YC == (int)RN_HAS_YC &&
                   KILN_IP_RECURRENT_PB_F32_LINEAR_BEFORE_RESET == (int)RN_LBR &&
                   KILN_IP_RECURRENT_PB_F32_INPUT_FORGET == (int)RN_INPUT_FORGET &&
                   KILN_IP_RECURRENT_PB_F32_HAS_CLIP == (int)RN_HAS_CLIP &&
                   KILN_IP_RECURRENT_PB_F32_HAS_LENS == (int)RN_HAS_LENS &&
                   KILN_IP_RECURRENT_PB_F32_ACT == (int)RN_ACTS &&
                   KILN_IP_RECURRENT_PB_F32_SEQ_LENS == (int)RN_HEAD &&
                   KILN_FP_RECURRENT_PB_F32_CLIP == KILN_FP_RECURRENT_F32_CLIP &&
                   KILN_FP_RECURRENT_PB_F32_ALPHA == KILN_FP_RECURRENT_F32_ALPHA &&
                   KILN_FP_RECURRENT_PB_F32_BETA == KILN_FP_RECURRENT_F32_BETA &&
                   KILN_RECURRENT_PB_F32_FPARAMS == KILN_RECURRENT_F32_FPARAMS,
               "recurrent_pb_f32 has recurrent_f32's parameters");
/* act, alpha and beta: function k < 3 of direction d in slot d * 3 + k (rnn_act_of). */
_Static_assert((int)RN_HEAD - (int)RN_ACTS == 6 &&
                   KILN_FP_RECURRENT_F32_BETA - KILN_FP_RECURRENT_F32_ALPHA == 6 &&
                   KILN_RECURRENT_F32_FPARAMS - KILN_FP_RECURRENT_F32_BETA == 6,
               "act, alpha and beta hold six entries each");
enum { CELL_RNN = 0, CELL_GRU = 1, CELL_LSTM = 2 };
enum { B_X, B_W, B_R, B_B, B_H0, B_C0, B_P, B_Y, B_YH, B_YC, B_SCRATCH, B_LENS };

static int64_t gate_count(int64_t cell) { return cell == CELL_LSTM ? 4 : cell == CELL_GRU ? 3 : 1; }

/* ---- gate functions -------------------------------------------------------- */

/* ONNX recurrent activation functions on a vector, codes as in
 * kiln_rnn_activation; NaN passes as in the scalar forms beside each. */
static KILN_ALWAYS_INLINE kv rnn_act_kv(int64_t kind, float a, float b, kv x) {
  switch (kind) {
    case 0: return kv_sigmoid(x);
    case 1: return kv_tanh(x);
    case 2: return kv_max(x, kv_zero()); /* x > 0 ? x : 0 */
    case 3: return kv_add(kv_mul(kv_set1(a), x), kv_set1(b));
    case 4: return kv_select(kv_le(kv_zero(), x), x, kv_mul(kv_set1(a), x));
    case 5: return kv_select(kv_lt(kv_set1(a), x), x, kv_zero());
    case 6: return kv_mul(kv_set1(a), kv_tanh(kv_mul(kv_set1(b), x)));
    case 7: { /* clamp(a x + b, 0, 1) */
      const kv v = kv_add(kv_mul(kv_set1(a), x), kv_set1(b));
      return kv_min(kv_set1(1.0f), kv_max(kv_zero(), v));
    }
    case 8: {
      const kv em1 = kv_sub(kv_exp(x), kv_set1(1.0f));
      return kv_select(kv_le(kv_zero(), x), x, kv_mul(kv_set1(a), em1));
    }
    case 9: return kv_div(x, kv_add(kv_set1(1.0f), kv_abs(x)));
    default: { /* Softplus: log1p has no vector form here; lane by lane. */
      float t[KV_LANES];
      kv_store(t, x);
      for (int l = 0; l < KV_LANES; ++l) t[l] = t[l] > 20.0f ? t[l] : log1pf(expf(t[l]));
      return kv_load(t);
    }
  }
}

typedef struct rnn_act {
  int64_t kind;
  float a, b;
  int clip; /* clip to [-c, c] first */
  float c;
} rnn_act;

/* v[0:n] = act(clip(v[0:n])) in place. */
static void rnn_act_row(const rnn_act* f, float* v, int64_t n) {
  const kv lo = kv_set1(-f->c), hi = kv_set1(f->c);
  int64_t j = 0;
  for (; j < n; j += KV_LANES) {
    const int64_t w = n - j < KV_LANES ? n - j : KV_LANES;
    kv x = w == KV_LANES ? kv_load(v + j) : kv_load_n(v + j, w);
    if (f->clip) x = kv_min(hi, kv_max(lo, x)); /* v < -c ? -c : v > c ? c : v */
    x = rnn_act_kv(f->kind, f->a, f->b, x);
    if (w == KV_LANES) kv_store(v + j, x);
    else kv_store_n(v + j, x, w);
  }
}

/* y[0:n] = a[0:n] OP b[0:n], a vector at a time; y may be a or b. */
#define RNN_ROW_LOOP(n, EXPR)                                              \
  for (int64_t j_ = 0; j_ < (n); j_ += KV_LANES) {                         \
    const int64_t w_ = (n) - j_ < KV_LANES ? (n) - j_ : KV_LANES;          \
    const int64_t j = j_;                                                  \
    (void)j;                                                               \
    if (w_ == KV_LANES) {                                                  \
      EXPR(kv_load, kv_store)                                              \
    } else {                                                               \
      EXPR(RNN_LOAD_N, RNN_STORE_N)                                        \
    }                                                                      \
  }
#define RNN_LOAD_N(p) kv_load_n(p, w_)
#define RNN_STORE_N(p, v) kv_store_n(p, v, w_)

/* ---- h R^T over panels ----------------------------------------------------- */

/* Column panels a block works on at once: about eight accumulator vectors
 * (AVX-512 8 panels of one vector, AVX2 4 of two, NEON 4 of four in its 32
 * registers, the portable 4-lane vector 2 of four, scalar 1 of sixteen). */
#define RNN_VPP (KILN_PANEL / KV_LANES)
#if defined(KILN_HAVE_NEON)
#define RNN_NP 4
#elif RNN_VPP <= 8
#define RNN_NP (8 / RNN_VPP)
#else
#define RNN_NP 1
#endif

static KILN_ALWAYS_INLINE void rnn_gemv_block(const float* x, int64_t K, const float* P,
                                              const float* init, float* y, const int np) {
  kv acc[RNN_NP][RNN_VPP];
  for (int p = 0; p < np; ++p)
    for (int v = 0; v < RNN_VPP; ++v)
      acc[p][v] = init ? kv_load(init + p * KILN_PANEL + v * KV_LANES) : kv_zero();
  for (int64_t k = 0; k < K; ++k) {
    const kv xv = kv_set1(x[k]);
    const float* pk = P + k * KILN_PANEL;
    for (int p = 0; p < np; ++p)
      for (int v = 0; v < RNN_VPP; ++v)
        acc[p][v] = kv_fma(xv, kv_load(pk + p * K * KILN_PANEL + v * KV_LANES), acc[p][v]);
  }
  for (int p = 0; p < np; ++p)
    for (int v = 0; v < RNN_VPP; ++v) kv_store(y + p * KILN_PANEL + v * KV_LANES, acc[p][v]);
}

/* y[n] = (init ? init[n] : 0) + sum over k = 0, 1, ... of x[k] M[k][n] for
 * the 16 * panels columns of M, given as panels P [panels][K][16]. */
static void rnn_gemv(const float* x, int64_t K, const float* P, int64_t panels,
                     const float* init, float* y) {
  int64_t p = 0;
  for (; p + RNN_NP <= panels; p += RNN_NP)
    rnn_gemv_block(x, K, P + p * K * KILN_PANEL, init ? init + p * KILN_PANEL : NULL,
                   y + p * KILN_PANEL, RNN_NP);
  for (; p < panels; ++p)
    rnn_gemv_block(x, K, P + p * K * KILN_PANEL, init ? init + p * KILN_PANEL : NULL,
                   y + p * KILN_PANEL, 1);
}

/* ---- the recurrence --------------------------------------------------------- */

typedef struct rnn_run {
  const int64_t* ip;
  const float* fp;
  void* const* bindings;
  int64_t S, B, I, H, D, G, Hp, cols, chunk, per_dir;
  int packed;
  const kiln_host* host; /* for the input GEMM; NULL inside a direction's thread */
} rnn_run;

/* Packs the gate blocks of M [G*H, K] (row-major) transposed into panels:
 * dst[((g*Hp/16 + p)*K + k)*16 + l] = M[g*H + p*16 + l][k], zero past H. */
static void rnn_pack(const float* M, int64_t G, int64_t H, int64_t Hp, int64_t K, float* dst) {
  for (int64_t g = 0; g < G; ++g)
    for (int64_t p = 0; p < Hp / KILN_PANEL; ++p)
      for (int64_t k = 0; k < K; ++k) {
        float* o = dst + ((g * (Hp / KILN_PANEL) + p) * K + k) * KILN_PANEL;
        for (int64_t l = 0; l < KILN_PANEL; ++l) {
          const int64_t j = p * KILN_PANEL + l;
          o[l] = j < H ? M[(g * H + j) * K + k] : 0.0f;
        }
      }
}

static rnn_act rnn_act_of(const rnn_run* r, int64_t d, int64_t k) {
  const int64_t slot = d * 3 + k;
  rnn_act f = {r->ip[RN_ACTS + slot], r->fp[KILN_FP_RECURRENT_F32_ALPHA + slot],
               r->fp[KILN_FP_RECURRENT_F32_BETA + slot], (int)r->ip[RN_HAS_CLIP],
               r->fp[KILN_FP_RECURRENT_F32_CLIP]};
  return f;
}

/* One step of one batch row: h (and c) updated in place from xw, this step's
 * input projection with the biases that do not wait for the state. */
static void rnn_step(const rnn_run* r, const rnn_act* f, const float* Rp, const float* xw,
                     const float* rbh, const float* P, float* h, float* c, float* gates,
                     float* tmp) {
  const int64_t H = r->H, Hp = r->Hp, panels = Hp / KILN_PANEL;
  const int64_t cell = r->ip[RN_CELL];
  if (cell == CELL_RNN) {
    rnn_gemv(h, H, Rp, panels, xw, gates);
    rnn_act_row(&f[0], gates, H);
    memcpy(h, gates, (size_t)H * sizeof(float));
  } else if (cell == CELL_GRU) {
    float* z = gates;
    float* rr = gates + Hp;
    float* hh = gates + 2 * Hp;
    const float* Rh = Rp + 2 * panels * H * KILN_PANEL;
    rnn_gemv(h, H, Rp, 2 * panels, xw, gates);
    rnn_act_row(&f[0], z, H);
    rnn_act_row(&f[0], rr, H);
    if (r->ip[RN_LBR]) { /* hh = xw_h + r * (h Rh^T + rb_h) */
      rnn_gemv(h, H, Rh, panels, NULL, hh);
      const float* xh = xw + 2 * Hp;
#define GRU_LBR(LD, ST)                                                      \
  {                                                                          \
    kv t = LD(hh + j);                                                       \
    if (rbh) t = kv_add(t, LD(rbh + j));                                     \
    ST(hh + j, kv_add(LD(xh + j), kv_mul(LD(rr + j), t)));                   \
  }
      RNN_ROW_LOOP(H, GRU_LBR)
#undef GRU_LBR
    } else { /* hh = xw_h + (r * h) Rh^T + rb_h */
#define GRU_RH(LD, ST) ST(tmp + j, kv_mul(LD(rr + j), LD(h + j)));
      RNN_ROW_LOOP(H, GRU_RH)
#undef GRU_RH
      rnn_gemv(tmp, H, Rh, panels, xw + 2 * Hp, hh);
      if (rbh) {
#define GRU_RB(LD, ST) ST(hh + j, kv_add(LD(hh + j), LD(rbh + j)));
        RNN_ROW_LOOP(H, GRU_RB)
#undef GRU_RB
      }
    }
    rnn_act_row(&f[1], hh, H);
    /* h = (1 - z) * candidate + z * h */
#define GRU_H(LD, ST)                                                                     \
  {                                                                                       \
    const kv zv = LD(z + j);                                                              \
    ST(h + j, kv_add(kv_mul(kv_sub(kv_set1(1.0f), zv), LD(hh + j)), kv_mul(zv, LD(h + j)))); \
  }
    RNN_ROW_LOOP(H, GRU_H)
#undef GRU_H
  } else {
    float* gi = gates;
    float* go = gates + Hp;
    float* gf = gates + 2 * Hp;
    float* gc = gates + 3 * Hp;
    rnn_gemv(h, H, Rp, 4 * panels, xw, gates);
    if (P) { /* peepholes of i and f see the old cell state */
      const float* pi = P;
      const float* pf = P + 2 * H;
#define LSTM_PEEP(LD, ST)                                         \
  {                                                               \
    const kv cv = LD(c + j);                                      \
    ST(gi + j, kv_add(LD(gi + j), kv_mul(LD(pi + j), cv)));       \
    ST(gf + j, kv_add(LD(gf + j), kv_mul(LD(pf + j), cv)));       \
  }
      RNN_ROW_LOOP(H, LSTM_PEEP)
#undef LSTM_PEEP
    }
    rnn_act_row(&f[0], gi, H);
    if (r->ip[RN_INPUT_FORGET]) {
#define LSTM_COUPLED(LD, ST) ST(gf + j, kv_sub(kv_set1(1.0f), LD(gi + j)));
      RNN_ROW_LOOP(H, LSTM_COUPLED)
#undef LSTM_COUPLED
    } else {
      rnn_act_row(&f[0], gf, H);
    }
    rnn_act_row(&f[1], gc, H);
#define LSTM_C(LD, ST) \
  ST(c + j, kv_add(kv_mul(LD(gf + j), LD(c + j)), kv_mul(LD(gi + j), LD(gc + j))));
    RNN_ROW_LOOP(H, LSTM_C)
#undef LSTM_C
    if (P) { /* the output gate's peephole sees the new one */
      const float* po = P + H;
#define LSTM_PEEP_O(LD, ST) ST(go + j, kv_add(LD(go + j), kv_mul(LD(po + j), LD(c + j))));
      RNN_ROW_LOOP(H, LSTM_PEEP_O)
#undef LSTM_PEEP_O
    }
    rnn_act_row(&f[0], go, H);
    memcpy(tmp, c, (size_t)H * sizeof(float));
    rnn_act_row(&f[2], tmp, H);
#define LSTM_H(LD, ST) ST(h + j, kv_mul(LD(go + j), LD(tmp + j)));
    RNN_ROW_LOOP(H, LSTM_H)
#undef LSTM_H
  }
}

/* All batch rows of direction d, with this direction's part of the scratch. */
static void rnn_direction(const rnn_run* r, int64_t d) {
  const int64_t* ip = r->ip;
  void* const* bindings = r->bindings;
  const int64_t S = r->S, B = r->B, I = r->I, H = r->H, D = r->D, G = r->G, Hp = r->Hp;
  const int64_t cols = r->cols, layout = ip[RN_LAYOUT], direction = ip[RN_DIRECTION];
  const int reverse = direction == 1 || (direction == 2 && d == 1);
  const int64_t cell = ip[RN_CELL];
  float* h = (float*)bindings[B_SCRATCH] + d * r->per_dir;
  float* c = h + H;
  float* bias = c + H;      /* [cols] */
  float* gates = bias + cols; /* [cols] */
  float* tmp = gates + cols;  /* [Hp] */
  float* xw = tmp + Hp;       /* [chunk, cols] */
  const float* Wp;
  const float* Rp;
  if (r->packed) {
    Wp = (const float*)bindings[B_W] + d * cols * I;
    Rp = (const float*)bindings[B_R] + d * cols * H;
  } else {
    float* wp = xw + r->chunk * cols;
    float* rp = wp + cols * I;
    rnn_pack((const float*)bindings[B_W] + d * G * H * I, G, H, Hp, I, wp);
    rnn_pack((const float*)bindings[B_R] + d * G * H * H, G, H, Hp, H, rp);
    Wp = wp, Rp = rp;
  }
  /* Biases folded into the input projection: Wb + Rb, except GRU's Rb of the
   * candidate gate, which the reset gate scales (rbh). */
  const float* wb = ip[RN_HAS_B] ? (const float*)bindings[B_B] + d * 2 * G * H : NULL;
  const float* rb = wb ? wb + G * H : NULL;
  const float* rbh = cell == CELL_GRU && rb ? rb + 2 * H : NULL;
  for (int64_t g = 0; g < G; ++g)
    for (int64_t j = 0; j < Hp; ++j) {
      float v = 0.0f;
      if (j < H && wb) {
        v = wb[g * H + j];
        if (!(cell == CELL_GRU && g == 2)) v += rb[g * H + j];
      }
      bias[g * Hp + j] = v;
    }
  const float* P = ip[RN_HAS_P] ? (const float*)bindings[B_P] + d * 3 * H : NULL;
  const rnn_act f[3] = {rnn_act_of(r, d, 0), rnn_act_of(r, d, 1), rnn_act_of(r, d, 2)};
  const float* X = (const float*)bindings[B_X];
  float* Y = ip[RN_HAS_Y] ? (float*)bindings[B_Y] : NULL;
  const int64_t x_step = layout ? I : B * I; /* X rows of one batch row, t to t + 1 */
  for (int64_t b = 0; b < B; ++b) {
    int64_t len = ip[RN_HAS_LENS] == 2 ? S : ip[RN_HEAD + b];
    if (ip[RN_HAS_LENS] == 1) { /* run-time int32 lengths, clamped to [0, S] */
      int32_t v;
      memcpy(&v, (const unsigned char*)bindings[B_LENS] + b * 4, 4);
      len = v < 0 ? 0 : v > S ? S : v;
    }
    const int64_t st = layout ? (b * D + d) * H : (d * B + b) * H;
    if (ip[RN_HAS_H0]) memcpy(h, (const float*)bindings[B_H0] + st, (size_t)H * 4);
    else memset(h, 0, (size_t)H * 4);
    if (ip[RN_HAS_C0]) memcpy(c, (const float*)bindings[B_C0] + st, (size_t)H * 4);
    else memset(c, 0, (size_t)H * 4);
    for (int64_t s0 = 0; s0 < len; s0 += r->chunk) {
      const int64_t n = len - s0 < r->chunk ? len - s0 : r->chunk;
      /* Steps s0 .. s0 + n cover times t_lo .. t_lo + n; xw row t - t_lo. */
      const int64_t t_lo = reverse ? len - s0 - n : s0;
      kiln_gemm_desc gd;
      memset(&gd, 0, sizeof gd);
      gd.M = n, gd.N = cols, gd.K = I;
      /* No offset on X when it is empty (I == 0: the GEMM reads no A). */
      gd.a = I > 0 ? X + (layout ? b * S + t_lo : t_lo * B + b) * I : X;
      gd.a_rs = x_step, gd.a_cs = 1;
      gd.b_packed = Wp;
      gd.y = xw, gd.y_rs = cols;
      gd.ep.alpha = 1.0f, gd.ep.beta = 1.0f, gd.ep.c = bias, gd.ep.c_rs = 0, gd.ep.c_cs = 1;
      gd.ep.act = KILN_ACT_NONE;
      kiln_sgemm(&gd, r->host);
      for (int64_t s = s0; s < s0 + n; ++s) {
        const int64_t t = reverse ? len - 1 - s : s;
        rnn_step(r, f, Rp, xw + (t - t_lo) * cols, rbh, P, h, c, gates, tmp);
        if (Y) memcpy(Y + (layout ? ((b * S + t) * D + d) * H : ((t * D + d) * B + b) * H), h,
                      (size_t)H * 4);
      }
    }
    for (int64_t t = len; t < S; ++t) /* past the row's length: zeros */
      if (Y) memset(Y + (layout ? ((b * S + t) * D + d) * H : ((t * D + d) * B + b) * H), 0,
                    (size_t)H * 4);
    if (ip[RN_HAS_YH]) memcpy((float*)bindings[B_YH] + st, h, (size_t)H * 4);
    if (ip[RN_HAS_YC]) memcpy((float*)bindings[B_YC] + st, c, (size_t)H * 4);
  }
}

static void rnn_directions(void* ctx, int64_t begin, int64_t end) {
  for (int64_t d = begin; d < end; ++d) rnn_direction((const rnn_run*)ctx, d);
}

static int rnn_run_all(const int64_t* ip, const float* fp, void* const* bindings,
                       const kiln_host* host, int packed) {
  rnn_run r;
  r.ip = ip, r.fp = fp, r.bindings = bindings, r.packed = packed;
  r.S = ip[RN_SEQ], r.B = ip[RN_BATCH], r.I = ip[RN_INPUT], r.H = ip[RN_HIDDEN];
  r.D = ip[RN_DIRS], r.G = gate_count(ip[RN_CELL]);
  r.Hp = (r.H + KILN_PANEL - 1) / KILN_PANEL * KILN_PANEL;
  r.cols = r.G * r.Hp;
  r.chunk = kiln_recurrent_chunk(r.S, r.cols);
  r.per_dir = kiln_recurrent_scratch_floats(ip[RN_CELL], r.S, r.I, r.H, 1, packed);
  /* Two directions of real work go to two threads; each then runs its input
   * GEMMs alone (a parallel_for inside another is not the host's contract). */
  const double work = (double)r.S * (double)r.B * (double)r.cols * (double)(r.I + r.H);
  if (host && host->parallel_for && r.D == 2 && work >= (double)(1 << 17)) {
    r.host = NULL;
    host->parallel_for(host->user, 2, rnn_directions, &r);
  } else {
    r.host = host;
    rnn_directions(&r, 0, r.D);
  }
  return KILN_OK;
}

int kiln_recurrent_f32(const int64_t* ip, const float* fp, void* const* bindings,
                       const kiln_host* host) {
  return rnn_run_all(ip, fp, bindings, host, 0);
}

int kiln_recurrent_pb_f32(const int64_t* ip, const float* fp, void* const* bindings,
                          const kiln_host* host) {
  return rnn_run_all(ip, fp, bindings, host, 1);
}

/* Bytes binding k must hold when its flag is set. */
static int need(const uint64_t* have, int k, int64_t flag, const int64_t* dims, int64_t n) {
  if (!flag) return KILN_OK;
  int64_t count;
  KILN_TRY(kiln_checked_product(dims, n, &count));
  return kiln_check_f32_binding(have[k], count);
}

static int rnn_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                     uint32_t fparam_count, const uint64_t* binding_bytes, int packed) {
  if (ip == NULL || iparam_count < RN_HEAD) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t B = ip[RN_BATCH];
  if (B < 0 || B > (int64_t)UINT32_MAX - RN_HEAD) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_enum(ip[RN_HAS_LENS], 0, 2));
  /* has_lens 2: every length is S, no per-batch list. */
  const int64_t listed = ip[RN_HAS_LENS] == 2 ? 0 : B;
  KILN_TRY(kiln_check_counts(ip, iparam_count, (uint32_t)(RN_HEAD + listed), fp, fparam_count,
                             KILN_RECURRENT_F32_FPARAMS));
  KILN_TRY(kiln_check_nonneg(ip, RN_HEAD + listed));
  KILN_TRY(kiln_check_enum(ip[RN_CELL], CELL_RNN, CELL_LSTM));
  KILN_TRY(kiln_check_enum(ip[RN_DIRS], 1, 2));
  KILN_TRY(kiln_check_enum(ip[RN_DIRECTION], 0, 2));
  if ((ip[RN_DIRECTION] == 2) != (ip[RN_DIRS] == 2)) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_enum(ip[RN_LAYOUT], 0, 1));
  for (int k = RN_HAS_B; k < RN_HAS_LENS; ++k) KILN_TRY(kiln_check_enum(ip[k], 0, 1));
  for (int k = 0; k < 6; ++k) KILN_TRY(kiln_check_enum(ip[RN_ACTS + k], 0, 10));
  if (ip[RN_CELL] != CELL_LSTM && (ip[RN_HAS_C0] || ip[RN_HAS_P] || ip[RN_HAS_YC]))
    return KILN_ERR_INVALID_ARGUMENT;
  const int64_t S = ip[RN_SEQ], I = ip[RN_INPUT], H = ip[RN_HIDDEN], D = ip[RN_DIRS];
  const int64_t G = gate_count(ip[RN_CELL]);
  for (int64_t b = 0; b < listed; ++b)
    if (ip[RN_HEAD + b] > S) return KILN_ERR_INVALID_ARGUMENT;
  int64_t gh, dot_len;
  KILN_TRY(kiln_checked_mul(G, H, &gh));
  /* D x S x B steps of G*H dot products over I + H: with I == H == 0 (or
   * B == 0) every tensor is empty and the step loops are bounded by nothing.
   * S == 0 runs no step (the state set-up is bounded by the scratch). */
  KILN_TRY(kiln_checked_add(I, H, &dot_len));
  const int64_t loops[5] = {D, S, B, gh, dot_len};
  if (S > 0) KILN_TRY(kiln_check_work(loops, 5));
  /* Packed: each gate's H columns padded to whole 16-column panels. */
  const int64_t cols = G * ((H + KILN_PANEL - 1) / KILN_PANEL * KILN_PANEL);
  const int64_t x[3] = {S, B, I}, bb[3] = {D, 2, gh};
  const int64_t w[3] = {D, packed ? cols : gh, I}, rr[3] = {D, packed ? cols : gh, H};
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
  if (ip[RN_HAS_LENS] == 1) {
    int64_t lb;
    KILN_TRY(kiln_dense_bytes(B, 4, &lb));
    KILN_TRY(kiln_check_binding(binding_bytes[B_LENS], lb));
  }
  const int64_t scratch = kiln_recurrent_scratch_floats(ip[RN_CELL], S, I, H, D, packed);
  if (scratch < 0) return KILN_ERR_OUT_OF_RANGE;
  /* The input GEMM forms column and row offsets in int64 (gemm.c). */
  int64_t t;
  KILN_TRY(kiln_checked_add(cols, KILN_GROUP_COLS, &t));
  KILN_TRY(kiln_checked_add(I, KILN_KC, &t));
  return kiln_check_f32_binding(binding_bytes[B_SCRATCH], scratch);
}

int kiln_recurrent_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                             uint32_t fparam_count, const uint64_t* binding_bytes) {
  return rnn_check(ip, iparam_count, fp, fparam_count, binding_bytes, 0);
}

int kiln_recurrent_pb_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                                uint32_t fparam_count, const uint64_t* binding_bytes) {
  return rnn_check(ip, iparam_count, fp, fparam_count, binding_bytes, 1);
}
