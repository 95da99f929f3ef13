/* The blocked GEMM of sgemm.h.
 *
 * Blocking: the output is cut into tasks (a block of rows x a group of 64
 * columns); a task walks K in blocks of KILN_KC (all of K at once when its
 * rows are one micro-tile against packed B: a GEMV), packs that K-block of
 * its B columns into 16-wide panels on the stack (unless B is already
 * packed: constant weights packed by the compiler), and runs the
 * register-tiled micro-kernel (its path's nr columns per call) over its
 * rows, shared out evenly over the fewest micro-tiles.
 * A is read in place through strides (broadcast one element per row).
 *
 * Path: simd.h (this copy's compile flags). */
#include "sgemm.h"

/* A partial tile's ukr runs on a full-width copy t (row stride tw) with no
 * epilogue; this copies its first nr columns back to c, through ep if set. */
static inline void kiln_tile_copy_back(const float* t, int64_t tw, float* c, int64_t c_rs,
                                       int64_t mr, int64_t nr, const kiln_tile_epilogue* ep) {
  for (int64_t i = 0; i < mr; ++i) {
    for (int64_t j = 0; j < nr; ++j)
      c[i * c_rs + j] = ep ? kiln_tile_epilogue_scalar(ep, i, j, t[i * tw + j]) : t[i * tw + j];
    if (ep && ep->act == KILN_ACT_SILU)
      kiln_activation_apply(c + i * c_rs, c + i * c_rs, nr, KILN_ACT_SILU, 0.0f, 0.0f);
  }
}

/* ---- NEON and portable C: written once against vec.h ----------------- */
#if !defined(KILN_HAVE_AVX2)

/* MR rows x NV vectors: NEON 6 x 4x4 (24 of 32 registers accumulate),
 * portable 4-lane vectors 6 x 2x4 (12 of SSE's 16), scalar 4 x 4. NV *
 * KV_LANES columns are at most one 16-wide panel: b points at the tile's
 * first column inside its panel. */
#if defined(KILN_HAVE_NEON)
#define KILN_VEC_MR 6
#define KILN_VEC_NV 4
#elif KV_LANES == 4
#define KILN_VEC_MR 6
#define KILN_VEC_NV 2
#else
#define KILN_VEC_MR 4
#define KILN_VEC_NV 4
#endif
#define KILN_VEC_NR (KILN_VEC_NV * KV_LANES)

static KILN_ALWAYS_INLINE void kiln_ukr_vec_body(int64_t kc, const float* a, int64_t a_rs,
                                                 int64_t a_cs, const float* b, int64_t b_rs,
                                                 float* c, int64_t c_rs, int load_c,
                                                 const kiln_tile_epilogue* ep, const int MR) {
  kv acc[KILN_VEC_MR * KILN_VEC_NV]; /* row i, vector v at i * KILN_VEC_NV + v */
  const float* ar[KILN_VEC_MR];
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i) {
    ar[i] = a + i * a_rs;
#pragma GCC unroll 4
    for (int v = 0; v < KILN_VEC_NV; ++v)
      acc[i * KILN_VEC_NV + v] = load_c ? kv_load(c + i * c_rs + v * KV_LANES) : kv_zero();
  }
  for (int64_t k = 0; k < kc; ++k, b += b_rs) {
    kv bv[KILN_VEC_NV];
#pragma GCC unroll 4
    for (int v = 0; v < KILN_VEC_NV; ++v) bv[v] = kv_load(b + v * KV_LANES);
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      const kv av = kv_set1(ar[i][k * a_cs]);
#pragma GCC unroll 4
      for (int v = 0; v < KILN_VEC_NV; ++v)
        acc[i * KILN_VEC_NV + v] = kv_fma(av, bv[v], acc[i * KILN_VEC_NV + v]);
    }
  }
  if (ep) kiln_tile_epilogue_kv_all(ep, acc, MR, KILN_VEC_NV);
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < KILN_VEC_NV; ++v) kv_store(c + i * c_rs + v * KV_LANES, acc[i * KILN_VEC_NV + v]);
}

static inline void kiln_ukr_vec_full(int64_t kc, const float* a, int64_t a_rs, int64_t a_cs,
                                     const float* b, int64_t b_rs, float* c, int64_t c_rs,
                                     int64_t mr, int load_c, const kiln_tile_epilogue* ep) {
  switch (mr) {
#if KILN_VEC_MR > 4
    case 6: kiln_ukr_vec_body(kc, a, a_rs, a_cs, b, b_rs, c, c_rs, load_c, ep, 6); break;
    case 5: kiln_ukr_vec_body(kc, a, a_rs, a_cs, b, b_rs, c, c_rs, load_c, ep, 5); break;
#endif
    case 4: kiln_ukr_vec_body(kc, a, a_rs, a_cs, b, b_rs, c, c_rs, load_c, ep, 4); break;
    case 3: kiln_ukr_vec_body(kc, a, a_rs, a_cs, b, b_rs, c, c_rs, load_c, ep, 3); break;
    case 2: kiln_ukr_vec_body(kc, a, a_rs, a_cs, b, b_rs, c, c_rs, load_c, ep, 2); break;
    default: kiln_ukr_vec_body(kc, a, a_rs, a_cs, b, b_rs, c, c_rs, load_c, ep, 1); break;
  }
}

/* A partial tile runs on a full-width copy so the loops keep their
 * constant trip counts; B is then a zero-padded packed panel (b_rs 16), so
 * the columns past nr read zeros or the panel's next columns, never past it.
 * The epilogue then runs on the nr columns copied back. */
static inline void kiln_ukr_vec(int64_t kc, const float* a, int64_t a_rs, int64_t a_cs,
                                const float* b, int64_t b_rs, int64_t b_ps, float* c,
                                int64_t c_rs, int64_t mr, int64_t nr, int load_c,
                                const kiln_tile_epilogue* ep) {
  (void)b_ps;
  if (nr == KILN_VEC_NR) {
    kiln_ukr_vec_full(kc, a, a_rs, a_cs, b, b_rs, c, c_rs, mr, load_c, ep);
    return;
  }
  float t[KILN_VEC_MR * KILN_VEC_NR];
  for (int64_t i = 0; i < mr; ++i)
    for (int64_t j = 0; j < KILN_VEC_NR; ++j) t[i * KILN_VEC_NR + j] = j < nr && load_c ? c[i * c_rs + j] : 0.0f;
  kiln_ukr_vec_full(kc, a, a_rs, a_cs, b, b_rs, t, KILN_VEC_NR, mr, load_c, NULL);
  kiln_tile_copy_back(t, KILN_VEC_NR, c, c_rs, mr, nr, ep);
}
#endif /* !KILN_HAVE_AVX2 */

/* ---- AVX2 + FMA: 6 x 16 (the AVX-512 copy has its own) ---------------- */
#if defined(KILN_HAVE_AVX2) && !defined(KILN_HAVE_AVX512)

#define KILN_AVX2_MR 6

#define KILN_R6(X) X(0) X(1) X(2) X(3) X(4) X(5)
/* MR rows x NV (1 or 2) vectors of 8 columns. CONTIG (a_cs == 1): row i's
 * k-th element is a##i[k], one index for all rows, where six pointer steps
 * per k had made the loop 30 instructions for 12 FMAs. NV 1 serves a last
 * chunk of exactly 8 columns (24, 40 output channels) in place, not as a
 * half-empty 16-wide tile through a copy. */
static KILN_ALWAYS_INLINE void kiln_ukr_avx2_body(
    int64_t kc, const float* a, int64_t a_rs, int64_t a_cs, const float* b, int64_t b_rs,
    float* c, int64_t c_rs, int load_c, const kiln_tile_epilogue* ep, const int MR,
    const int NV, const int CONTIG) {
#define KILN_DECL(i)                                                     \
  __m256 c##i##0 = _mm256_setzero_ps(), c##i##1 = _mm256_setzero_ps();  \
  const float* a##i = a + (MR > i ? i : 0) * a_rs;                       \
  if (MR > i && load_c) {                                                \
    c##i##0 = _mm256_loadu_ps(c + i * c_rs);                             \
    if (NV > 1) c##i##1 = _mm256_loadu_ps(c + i * c_rs + 8);             \
  }
  KILN_R6(KILN_DECL)
#undef KILN_DECL
#pragma GCC unroll 4
  for (int64_t k = 0; k < kc; ++k) {
    const __m256 v0 = _mm256_loadu_ps(b);
    const __m256 v1 = NV > 1 ? _mm256_loadu_ps(b + 8) : v0;
    b += b_rs;
#define KILN_STEP(i)                                                  \
  if (MR > i) {                                                       \
    const __m256 av = _mm256_broadcast_ss(CONTIG ? a##i + k : a##i);  \
    if (!CONTIG) a##i += a_cs;                                        \
    c##i##0 = _mm256_fmadd_ps(av, v0, c##i##0);                       \
    if (NV > 1) c##i##1 = _mm256_fmadd_ps(av, v1, c##i##1);           \
  }
    KILN_R6(KILN_STEP)
#undef KILN_STEP
  }
  if (ep) {
    __m256 acc[KILN_AVX2_MR * 2];
#define KILN_TO(i)           \
  if (MR > i) {              \
    acc[NV * i] = c##i##0;   \
    if (NV > 1) acc[NV * i + 1] = c##i##1; \
  }
#define KILN_FROM(i)         \
  if (MR > i) {              \
    c##i##0 = acc[NV * i];   \
    if (NV > 1) c##i##1 = acc[NV * i + 1]; \
  }
    KILN_R6(KILN_TO)
    kiln_tile_epilogue_kv_all(ep, acc, MR, NV);
    KILN_R6(KILN_FROM)
#undef KILN_TO
#undef KILN_FROM
  }
#define KILN_STORE(i)                               \
  if (MR > i) {                                     \
    _mm256_storeu_ps(c + i * c_rs, c##i##0);        \
    if (NV > 1) _mm256_storeu_ps(c + i * c_rs + 8, c##i##1); \
  }
  KILN_R6(KILN_STORE)
#undef KILN_STORE
}
#undef KILN_R6

/* nv vectors of 8 columns (1 or 2). */
static inline void kiln_ukr_avx2_full(int64_t kc, const float* a, int64_t a_rs, int64_t a_cs,
                                      const float* b, int64_t b_rs, float* c, int64_t c_rs,
                                      int64_t mr, int64_t nv, int load_c,
                                      const kiln_tile_epilogue* ep) {
#define KILN_AVX2_CASES(NV, CONTIG)                                                           \
  switch (mr) {                                                                               \
    case 6: kiln_ukr_avx2_body(kc, a, a_rs, a_cs, b, b_rs, c, c_rs, load_c, ep, 6, NV, CONTIG); break; \
    case 5: kiln_ukr_avx2_body(kc, a, a_rs, a_cs, b, b_rs, c, c_rs, load_c, ep, 5, NV, CONTIG); break; \
    case 4: kiln_ukr_avx2_body(kc, a, a_rs, a_cs, b, b_rs, c, c_rs, load_c, ep, 4, NV, CONTIG); break; \
    case 3: kiln_ukr_avx2_body(kc, a, a_rs, a_cs, b, b_rs, c, c_rs, load_c, ep, 3, NV, CONTIG); break; \
    case 2: kiln_ukr_avx2_body(kc, a, a_rs, a_cs, b, b_rs, c, c_rs, load_c, ep, 2, NV, CONTIG); break; \
    default: kiln_ukr_avx2_body(kc, a, a_rs, a_cs, b, b_rs, c, c_rs, load_c, ep, 1, NV, CONTIG); break; \
  }
  if (nv == 1) {
    if (a_cs == 1) {
      KILN_AVX2_CASES(1, 1)
    } else {
      KILN_AVX2_CASES(1, 0)
    }
  } else if (a_cs == 1) {
    KILN_AVX2_CASES(2, 1)
  } else {
    KILN_AVX2_CASES(2, 0)
  }
#undef KILN_AVX2_CASES
}

static inline void kiln_ukr_avx2(int64_t kc, const float* a, int64_t a_rs, int64_t a_cs,
                                 const float* b, int64_t b_rs, int64_t b_ps, float* c,
                                 int64_t c_rs, int64_t mr, int64_t nr, int load_c,
                                 const kiln_tile_epilogue* ep) {
  (void)b_ps;
  if (nr == KILN_PANEL || nr == 8) {
    kiln_ukr_avx2_full(kc, a, a_rs, a_cs, b, b_rs, c, c_rs, mr, nr / 8, load_c, ep);
    return;
  }
  /* Fewer than 8 columns of a packed panel (a convolution's single output
   * column: SE blocks' 1x1 layers) take one vector, half the FMAs. */
  const int64_t tw = nr < 8 && b_rs == KILN_PANEL ? 8 : KILN_PANEL;
  float t[KILN_AVX2_MR * KILN_PANEL];
  for (int64_t i = 0; i < mr; ++i)
    for (int64_t j = 0; j < tw; ++j) t[i * tw + j] = j < nr && load_c ? c[i * c_rs + j] : 0.0f;
  kiln_ukr_avx2_full(kc, a, a_rs, a_cs, b, b_rs, t, tw, mr, tw / 8, load_c, NULL);
  kiln_tile_copy_back(t, tw, c, c_rs, mr, nr, ep);
}
#endif /* KILN_HAVE_AVX2 && !KILN_HAVE_AVX512 */

/* ---- AVX-512: 8 x 32 (two panels), masked column tails ---------------- */
#ifdef KILN_HAVE_AVX512

#define KILN_AVX512_MR 8

/* Accumulators are named variables (not an array) so they stay in registers;
 * MR and NP are constants after inlining and the row tests fold away. */
#define KILN_R512(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
static KILN_ALWAYS_INLINE void kiln_ukr_avx512_body(
    int64_t kc, const float* a, int64_t a_rs, int64_t a_cs, const float* b, int64_t b_rs,
    int64_t b_ps, float* c, int64_t c_rs, __mmask16 m0, __mmask16 m1, int load_c,
    const kiln_tile_epilogue* ep, const int MR, const int NP, const int FULL) {
#define KILN_DECL(i)                                                     \
  __m512 c##i##0 = _mm512_setzero_ps(), c##i##1 = _mm512_setzero_ps();  \
  const float* a##i = a + (MR > i ? i : 0) * a_rs;                       \
  if (MR > i && load_c) {                                                \
    c##i##0 = _mm512_maskz_loadu_ps(m0, c + i * c_rs);                   \
    if (NP > 1) c##i##1 = _mm512_maskz_loadu_ps(m1, c + i * c_rs + 16);  \
  }
  KILN_R512(KILN_DECL)
#undef KILN_DECL
  const float* b1 = b + b_ps;
  for (int64_t k = 0; k < kc; ++k) {
    /* Masked loads only for a column tail: a dense B row read in place must
     * not be read past nr. Where the tile is whole, plain loads: B streamed
     * from memory through masked loads ran 2-3x slower on AMD Zen 5 (the
     * hardware prefetchers left them waiting; a classifier's 5 MB of
     * weights: 385 us masked, 134 us plain). */
    const __m512 v0 = FULL ? _mm512_loadu_ps(b) : _mm512_maskz_loadu_ps(m0, b);
    const __m512 v1 = NP > 1 ? (FULL ? _mm512_loadu_ps(b1) : _mm512_maskz_loadu_ps(m1, b1)) : v0;
    b += b_rs, b1 += b_rs;
#define KILN_STEP(i)                                        \
  if (MR > i) {                                             \
    const __m512 av = _mm512_set1_ps(*a##i);                \
    a##i += a_cs;                                           \
    c##i##0 = _mm512_fmadd_ps(av, v0, c##i##0);             \
    if (NP > 1) c##i##1 = _mm512_fmadd_ps(av, v1, c##i##1); \
  }
    KILN_R512(KILN_STEP)
#undef KILN_STEP
  }
  if (ep) {
    /* The epilogue's fields are read once and each step runs over all
     * accumulators, not a test per accumulator: with a short K (an expansion
     * from 16 channels) the epilogue is a good part of a tile's time. Lanes
     * outside m0/m1 are never read. max/min return their second operand when
     * either is NaN, so NaN stays, as in activation.h's loops. */
    if (ep->bias) {
      const __m512 beta = _mm512_set1_ps(ep->beta);
      const float* bias = ep->bias;
      const int64_t brs = ep->bias_rs;
      if (ep->row_vector && brs == 0) { /* one bias row for all (a conv's) */
        const __m512 b0 = _mm512_mul_ps(beta, _mm512_maskz_loadu_ps(m0, bias));
        const __m512 b1 = NP > 1 ? _mm512_mul_ps(beta, _mm512_maskz_loadu_ps(m1, bias + 16)) : b0;
#define KILN_BIAS(i)                                  \
  if (MR > i) {                                       \
    c##i##0 = _mm512_add_ps(c##i##0, b0);             \
    if (NP > 1) c##i##1 = _mm512_add_ps(c##i##1, b1); \
  }
        KILN_R512(KILN_BIAS)
#undef KILN_BIAS
      } else if (ep->row_vector) {
#define KILN_BIAS(i)                                                                          \
  if (MR > i) {                                                                               \
    const float* bi = bias + i * brs;                                                         \
    c##i##0 = _mm512_add_ps(c##i##0, _mm512_mul_ps(beta, _mm512_maskz_loadu_ps(m0, bi)));      \
    if (NP > 1)                                                                               \
      c##i##1 = _mm512_add_ps(c##i##1, _mm512_mul_ps(beta, _mm512_maskz_loadu_ps(m1, bi + 16))); \
  }
        KILN_R512(KILN_BIAS)
#undef KILN_BIAS
      } else {
#define KILN_BIAS(i)                                            \
  if (MR > i) {                                                 \
    const __m512 bi = _mm512_set1_ps(ep->beta * bias[i * brs]); \
    c##i##0 = _mm512_add_ps(c##i##0, bi);                       \
    if (NP > 1) c##i##1 = _mm512_add_ps(c##i##1, bi);           \
  }
        KILN_R512(KILN_BIAS)
#undef KILN_BIAS
      }
    }
    if (ep->r) {
      const float* r = ep->r;
      const int64_t rrs = ep->r_rs;
#define KILN_RES(i)                                                                            \
  if (MR > i) {                                                                                \
    c##i##0 = _mm512_add_ps(c##i##0, _mm512_maskz_loadu_ps(m0, r + i * rrs));                  \
    if (NP > 1) c##i##1 = _mm512_add_ps(c##i##1, _mm512_maskz_loadu_ps(m1, r + i * rrs + 16)); \
  }
      KILN_R512(KILN_RES)
#undef KILN_RES
    }
#define KILN_ACT(i, F)                \
  if (MR > i) {                       \
    c##i##0 = F(c##i##0);             \
    if (NP > 1) c##i##1 = F(c##i##1); \
  }
#define KILN_RELU(v) _mm512_max_ps(zero, v)
#define KILN_CLIP(v) _mm512_min_ps(hi, _mm512_max_ps(lo, v))
#define KILN_RELU_I(i) KILN_ACT(i, KILN_RELU)
#define KILN_CLIP_I(i) KILN_ACT(i, KILN_CLIP)
#define KILN_SILU_I(i) KILN_ACT(i, kv_silu) /* kv is __m512 here */
    if (ep->act == KILN_ACT_RELU) {
      const __m512 zero = _mm512_setzero_ps();
      KILN_R512(KILN_RELU_I)
    } else if (ep->act == KILN_ACT_CLIP) {
      const __m512 lo = _mm512_set1_ps(ep->lo), hi = _mm512_set1_ps(ep->hi);
      KILN_R512(KILN_CLIP_I)
    } else if (ep->act == KILN_ACT_SILU) {
      KILN_R512(KILN_SILU_I)
    }
#undef KILN_RELU_I
#undef KILN_CLIP_I
#undef KILN_SILU_I
#undef KILN_RELU
#undef KILN_CLIP
#undef KILN_ACT
  }
#define KILN_STORE(i)                                                      \
  if (MR > i) {                                                            \
    _mm512_mask_storeu_ps(c + i * c_rs, m0, c##i##0);                      \
    if (NP > 1) _mm512_mask_storeu_ps(c + i * c_rs + 16, m1, c##i##1);     \
  }
  KILN_R512(KILN_STORE)
#undef KILN_STORE
}
#undef KILN_R512

#define KILN_UKR512_CASES(NP, FULL)                                                         \
  switch (mr) {                                                                             \
    case 8: kiln_ukr_avx512_body(kc, a, a_rs, a_cs, b, b_rs, b_ps, c, c_rs, m0, m1, load_c, ep, 8, NP, FULL); break; \
    case 7: kiln_ukr_avx512_body(kc, a, a_rs, a_cs, b, b_rs, b_ps, c, c_rs, m0, m1, load_c, ep, 7, NP, FULL); break; \
    case 6: kiln_ukr_avx512_body(kc, a, a_rs, a_cs, b, b_rs, b_ps, c, c_rs, m0, m1, load_c, ep, 6, NP, FULL); break; \
    case 5: kiln_ukr_avx512_body(kc, a, a_rs, a_cs, b, b_rs, b_ps, c, c_rs, m0, m1, load_c, ep, 5, NP, FULL); break; \
    case 4: kiln_ukr_avx512_body(kc, a, a_rs, a_cs, b, b_rs, b_ps, c, c_rs, m0, m1, load_c, ep, 4, NP, FULL); break; \
    case 3: kiln_ukr_avx512_body(kc, a, a_rs, a_cs, b, b_rs, b_ps, c, c_rs, m0, m1, load_c, ep, 3, NP, FULL); break; \
    case 2: kiln_ukr_avx512_body(kc, a, a_rs, a_cs, b, b_rs, b_ps, c, c_rs, m0, m1, load_c, ep, 2, NP, FULL); break; \
    default: kiln_ukr_avx512_body(kc, a, a_rs, a_cs, b, b_rs, b_ps, c, c_rs, m0, m1, load_c, ep, 1, NP, FULL); break; \
  }

static inline void kiln_ukr_avx512(int64_t kc, const float* a, int64_t a_rs,
                                               int64_t a_cs, const float* b, int64_t b_rs,
                                               int64_t b_ps, float* c, int64_t c_rs,
                                               int64_t mr, int64_t nr, int load_c,
                                               const kiln_tile_epilogue* ep) {
  const __mmask16 m0 = nr >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << nr) - 1u);
  if (nr >= 32) {
    const __mmask16 m1 = (__mmask16)0xFFFF;
    KILN_UKR512_CASES(2, 1)
  } else if (nr > 16) {
    const __mmask16 m1 = (__mmask16)((1u << (nr - 16)) - 1u);
    KILN_UKR512_CASES(2, 0)
  } else if (nr == 16) {
    const __mmask16 m1 = 0;
    KILN_UKR512_CASES(1, 1)
  } else {
    const __mmask16 m1 = 0;
    KILN_UKR512_CASES(1, 0)
  }
}
#undef KILN_UKR512_CASES
#endif /* KILN_HAVE_AVX512 */

/* The micro-kernel of this copy's path (simd.h). */
kiln_gemm_path kiln_gemm_select(void) {
  kiln_gemm_path p;
#if defined(KILN_HAVE_AVX512)
  p.ukr = kiln_ukr_avx512, p.mr = KILN_AVX512_MR, p.nr = 32, p.masks_b = 1;
#elif defined(KILN_HAVE_AVX2)
  p.ukr = kiln_ukr_avx2, p.mr = KILN_AVX2_MR, p.nr = 16, p.masks_b = 0;
#else
  p.ukr = kiln_ukr_vec, p.mr = KILN_VEC_MR, p.nr = KILN_VEC_NR, p.masks_b = 0;
#endif
  return p;
}

/* ---- packing, epilogue, driver ----------------------------------------- */

/* Packs B[k0+kk, n0+jj] for kk < kc, jj < nw (<= 16) into dst[kk*16 + jj],
 * zero for jj >= nw, from a strided view. */
static inline void kiln_pack_strided(const kiln_gemm_desc* d, int64_t k0, int64_t kc, int64_t n0,
                              int64_t nw, float* dst) {
  const float* b = d->b;
  if (d->b_cs == 1) {
    for (int64_t kk = 0; kk < kc; ++kk) {
      const float* src = b + (k0 + kk) * d->b_rs + n0;
      float* o = dst + kk * KILN_PANEL;
      int64_t jj = 0;
      for (; jj < nw; ++jj) o[jj] = src[jj];
      for (; jj < KILN_PANEL; ++jj) o[jj] = 0.0f;
    }
    return;
  }
  for (int64_t kk = 0; kk < kc; ++kk)
    for (int64_t jj = nw; jj < KILN_PANEL; ++jj) dst[kk * KILN_PANEL + jj] = 0.0f;
  for (int64_t jj = 0; jj < nw; ++jj) {
    const float* src = b + k0 * d->b_rs + (n0 + jj) * d->b_cs;
    for (int64_t kk = 0; kk < kc; ++kk) dst[kk * KILN_PANEL + jj] = src[kk * d->b_rs];
  }
}

/* Same, from the virtual im2col matrix. The nw columns split into runs that
 * share an output row; each run of each K row is a (strided) copy of one
 * input row segment with zeros where the window leaves the image. */
static inline void kiln_pack_im2col(const kiln_im2col* g, int64_t k0, int64_t kc, int64_t n0,
                             int64_t nw, float* dst) {
  int64_t run_oh[KILN_PANEL], run_ow[KILN_PANEL], run_j[KILN_PANEL + 1];
  int64_t runs = 0;
  {
    int64_t oh = n0 / g->OW, ow = n0 % g->OW, j = 0;
    while (j < nw) {
      run_oh[runs] = oh, run_ow[runs] = ow, run_j[runs] = j;
      const int64_t len = g->OW - ow < nw - j ? g->OW - ow : nw - j;
      j += len, ++runs, ++oh, ow = 0;
    }
    run_j[runs] = nw;
  }
  const int64_t taps = g->KH * g->KW;
  int64_t ic = k0 / taps, t = k0 % taps;
  int64_t kh = t / g->KW, kw = t % g->KW;
  for (int64_t kk = 0; kk < kc; ++kk) {
    float* o = dst + kk * KILN_PANEL;
    const float* xc = kiln_im2col_plane(g, ic);
    for (int64_t r = 0; r < runs; ++r) {
      float* orun = o + run_j[r];
      const int64_t len = run_j[r + 1] - run_j[r];
      const int64_t ih = run_oh[r] * g->SH - g->PT + kh * g->DH;
      if (!xc || ih < 0 || ih >= g->H) {
        for (int64_t j = 0; j < len; ++j) orun[j] = 0.0f;
        continue;
      }
      const float* xr = xc + ih * g->W;
      /* iw = (ow0 + j)*SW + off, valid when 0 <= iw < W. */
      const int64_t off = kw * g->DW - g->PL, ow0 = run_ow[r];
      int64_t j0 = 0, j1 = len;
      while (j0 < len && (ow0 + j0) * g->SW + off < 0) ++j0;
      while (j1 > j0 && (ow0 + j1 - 1) * g->SW + off >= g->W) --j1;
      for (int64_t j = 0; j < j0; ++j) orun[j] = 0.0f;
      if (g->SW == 1) {
        /* Index, not a pointer: xr + ow0 + off may lie far outside the row
         * (huge pads) even though only [j0, j1) is read. */
        const int64_t base = ow0 + off;
        for (int64_t j = j0; j < j1; ++j) orun[j] = xr[base + j];
      } else {
        for (int64_t j = j0; j < j1; ++j) orun[j] = xr[(ow0 + j) * g->SW + off];
      }
      for (int64_t j = j1; j < len; ++j) orun[j] = 0.0f;
    }
    for (int64_t j = nw; j < KILN_PANEL; ++j) o[j] = 0.0f;
    if (++kw == g->KW) {
      kw = 0;
      if (++kh == g->KH) kh = 0, ++ic;
    }
  }
}

#ifdef KILN_HAVE_AVX512
/* kiln_pack_strided for dense rows (b_cs == 1): one masked load per K row. */
static inline void kiln_pack_rows_avx512(const kiln_gemm_desc* d, int64_t k0,
                                                           int64_t kc, int64_t n0, int64_t nw,
                                                           float* dst) {
  const __mmask16 m = nw >= KILN_PANEL ? (__mmask16)0xFFFF : (__mmask16)((1u << nw) - 1u);
  const float* src = d->b + k0 * d->b_rs + n0;
  for (int64_t kk = 0; kk < kc; ++kk, src += d->b_rs)
    _mm512_storeu_ps(dst + kk * KILN_PANEL, _mm512_maskz_loadu_ps(m, src));
}
#endif

typedef void (*kiln_im2col_pack_fn)(const kiln_im2col* g, int64_t k0, int64_t kc, int64_t n0,
                                    int64_t nw, float* dst);

#ifdef KILN_HAVE_AVX512
/* kiln_pack_im2col with masked loads, for column strides 1 and 2 and windows
 * at most 16 wide: each K row of the panel is, per run of columns sharing an
 * output row, one merge-masked load of the input row (stride 2: two loads and
 * a permute picking the even elements). Lanes outside the image or the run
 * are masked off, so they are never read and stay zero. A load is issued only
 * when some lane is valid, which keeps its address within 32 floats of the
 * input row. */
static inline void kiln_pack_im2col_avx512(const kiln_im2col* g, int64_t k0,
                                                             int64_t kc, int64_t n0, int64_t nw,
                                                             float* dst) {
  if ((g->SW != 1 && g->SW != 2) || g->KW > KILN_PANEL) {
    kiln_pack_im2col(g, k0, kc, n0, nw, dst);
    return;
  }
  const int64_t SW = g->SW;
  int64_t run_oh[KILN_PANEL], shift[KILN_PANEL];
  /* Per run and kw: input lanes to load (stride 2: even bits of 32) and the
   * panel lanes they fill. */
  uint32_t load_mask[KILN_PANEL][KILN_PANEL], lane_mask[KILN_PANEL][KILN_PANEL];
  int64_t runs = 0;
  {
    int64_t oh = n0 / g->OW, ow = n0 % g->OW, j = 0;
    while (j < nw) {
      const int64_t len = g->OW - ow < nw - j ? g->OW - ow : nw - j;
      /* Panel lane jj of this run reads iw = jj*SW + shift + kw*DW. */
      run_oh[runs] = oh;
      shift[runs] = (ow - j) * SW - g->PL;
      for (int64_t kw = 0; kw < g->KW; ++kw) {
        const int64_t s = shift[runs] + kw * g->DW;
        uint32_t lanes = 0;
        for (int64_t jj = j; jj < j + len; ++jj) {
          const int64_t iw = jj * SW + s;
          if (iw >= 0 && iw < g->W) lanes |= 1u << jj;
        }
        lane_mask[runs][kw] = lanes;
        uint32_t in = lanes;
        if (SW == 2) {
          in = 0;
          for (int64_t jj = 0; jj < KILN_PANEL; ++jj)
            if (lanes >> jj & 1u) in |= 1u << (2 * jj);
        }
        load_mask[runs][kw] = in;
      }
      j += len, ++runs, ++oh, ow = 0;
    }
  }
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  const int64_t taps = g->KH * g->KW;
  int64_t ic = k0 / taps, kh = k0 % taps / g->KW, kw = k0 % taps % g->KW;
  int64_t kk = 0;
  while (kk < kc) {
    const float* rows[KILN_PANEL];
    const float* xc = kiln_im2col_plane(g, ic);
    for (int64_t r = 0; r < runs; ++r) {
      const int64_t ih = run_oh[r] * g->SH - g->PT + kh * g->DH;
      rows[r] = xc && ih >= 0 && ih < g->H ? xc + ih * g->W : NULL;
    }
    for (; kw < g->KW && kk < kc; ++kw, ++kk) {
      __m512 v = _mm512_setzero_ps();
      for (int64_t r = 0; r < runs; ++r) {
        const uint32_t m = load_mask[r][kw];
        if (!rows[r] || !m) continue;
        const float* p = kiln_simd_at(rows[r], shift[r] + kw * g->DW);
        if (SW == 1) {
          v = _mm512_mask_loadu_ps(v, (__mmask16)m, p);
        } else {
          const __m512 lo = _mm512_maskz_loadu_ps((__mmask16)(m & 0xFFFFu), p);
          const __m512 hi =
              _mm512_maskz_loadu_ps((__mmask16)(m >> 16), kiln_simd_at(p, KILN_PANEL));
          v = _mm512_mask_mov_ps(v, (__mmask16)lane_mask[r][kw],
                                 _mm512_permutex2var_ps(lo, even, hi));
        }
      }
      _mm512_storeu_ps(dst + kk * KILN_PANEL, v);
    }
    kw = 0;
    if (++kh == g->KH) kh = 0, ++ic;
  }
}
#endif

#ifndef KILN_HAVE_AVX512
/* kiln_pack_im2col with whole-vector copies, for column strides 1 and 2: a
 * K row of a full panel whose 16 columns share an output row and read only
 * inside the image (stride 2: the even lanes of twice as many floats) is
 * KILN_PANEL / KV_LANES vector copies, the common case away from the image's
 * edges; any other K row is packed as kiln_pack_im2col packs it. */
static inline void kiln_pack_im2col_vec(const kiln_im2col* g, int64_t k0, int64_t kc, int64_t n0,
                                        int64_t nw, float* dst) {
  const int64_t SW = g->SW, ow0 = n0 % g->OW, oh = n0 / g->OW;
  if ((SW != 1 && SW != 2) || nw != KILN_PANEL || ow0 + KILN_PANEL > g->OW) {
    kiln_pack_im2col(g, k0, kc, n0, nw, dst);
    return;
  }
  const int64_t taps = g->KH * g->KW;
  int64_t ic = k0 / taps, kh = k0 % taps / g->KW, kw = k0 % taps % g->KW;
  for (int64_t kk = 0; kk < kc; ++kk) {
    float* o = dst + kk * KILN_PANEL;
    const float* xc = kiln_im2col_plane(g, ic);
    const int64_t ih = oh * g->SH - g->PT + kh * g->DH;
    const int64_t iw0 = ow0 * SW - g->PL + kw * g->DW; /* lane 0's column */
    if (xc && ih >= 0 && ih < g->H && iw0 >= 0 && iw0 + KILN_PANEL * SW <= g->W) {
      const float* p = xc + ih * g->W + iw0;
      for (int64_t v = 0; v < KILN_PANEL; v += KV_LANES) {
        kv_store(o + v, SW == 1 ? kv_load(p + v)
                                : kv_even(kv_load(p + 2 * v), kv_load(p + 2 * v + KV_LANES)));
      }
    } else {
      kiln_pack_im2col(g, k0 + kk, 1, n0, nw, o);
    }
    if (++kw == g->KW) {
      kw = 0;
      if (++kh == g->KH) kh = 0, ++ic;
    }
  }
}
#endif

/* Rows m0 .. m0 + rows of the transposed im2col matrix, K columns k0 ..
 * k0 + kc: dst[i*kc + kk] = B[k0 + kk, m0 + i], zero outside the image. Per
 * output and kernel row, the KW taps are one (strided) run of an input row. */
static inline void kiln_pack_im2col_rows(const kiln_im2col* g, int64_t k0, int64_t kc,
                                         int64_t m0, int64_t rows, float* dst) {
  const int64_t taps = g->KH * g->KW;
  const int64_t ic0 = k0 / taps, kh0 = k0 % taps / g->KW, kw00 = k0 % g->KW;
  int64_t oh = m0 / g->OW, ow = m0 % g->OW;
  for (int64_t i = 0; i < rows; ++i) {
    float* out = dst + i * kc;
    const int64_t ih0 = oh * g->SH - g->PT, iw0 = ow * g->SW - g->PL;
    int64_t ic = ic0, kh = kh0, kw0 = kw00;
    for (int64_t kk = 0; kk < kc;) {
      const int64_t n = g->KW - kw0 < kc - kk ? g->KW - kw0 : kc - kk;
      const int64_t ih = ih0 + kh * g->DH;
      const float* xc = kiln_im2col_plane(g, ic);
      float* o = out + kk;
      if (!xc || ih < 0 || ih >= g->H) {
        for (int64_t j = 0; j < n; ++j) o[j] = 0.0f;
      } else {
        const float* xr = xc + ih * g->W;
        for (int64_t j = 0; j < n; ++j) {
          const int64_t iw = iw0 + (kw0 + j) * g->DW;
          o[j] = iw >= 0 && iw < g->W ? xr[iw] : 0.0f;
        }
      }
      kk += n, kw0 = 0;
      if (++kh == g->KH) kh = 0, ++ic;
    }
    if (++ow == g->OW) ow = 0, ++oh;
  }
}

#ifdef KILN_HAVE_AVX512
/* kiln_pack_im2col_rows with one masked load and one store per run (unit
 * dilation across, runs of at most 16): lanes outside the image are never
 * read and store zero. Writes up to 16 floats past rows*kc (masked stores
 * are slow on some CPUs). */
static inline void kiln_pack_im2col_rows_avx512(const kiln_im2col* g,
                                                                  int64_t k0, int64_t kc,
                                                                  int64_t m0, int64_t rows,
                                                                  float* dst) {
  if (g->DW != 1 || g->KW > KILN_PANEL) {
    kiln_pack_im2col_rows(g, k0, kc, m0, rows, dst);
    return;
  }
  const int64_t taps = g->KH * g->KW;
  const int64_t ic0 = k0 / taps, kh0 = k0 % taps / g->KW, kw00 = k0 % g->KW;
  int64_t oh = m0 / g->OW, ow = m0 % g->OW;
  for (int64_t i = 0; i < rows; ++i) {
    float* out = dst + i * kc;
    const int64_t ih0 = oh * g->SH - g->PT, iw0 = ow * g->SW - g->PL;
    /* Bit j: input column iw0 + j is inside the image (j < 32). */
    const int64_t lo = iw0 < 0 ? -iw0 : 0, hi = g->W - iw0;
    uint32_t cols = 0;
    if (hi > lo && lo < 32) cols = (hi < 32 ? (1u << hi) - 1u : ~0u) & ~((1u << lo) - 1u);
    int64_t ic = ic0, kh = kh0, kw0 = kw00;
    for (int64_t kk = 0; kk < kc;) {
      const int64_t n = g->KW - kw0 < kc - kk ? g->KW - kw0 : kc - kk;
      const int64_t ih = ih0 + kh * g->DH;
      const float* xc = kiln_im2col_plane(g, ic);
      __m512 v = _mm512_setzero_ps();
      if (xc && ih >= 0 && ih < g->H) {
        const __mmask16 m = (__mmask16)((cols >> kw0) & ((1u << n) - 1u));
        if (m) {
          v = _mm512_maskz_loadu_ps(m, kiln_simd_at(xc + ih * g->W, iw0 + kw0));
        }
      }
      /* A whole vector: the lanes past the run are zero and the next run
       * (or row) overwrites them; dst has 16 floats to spare. */
      _mm512_storeu_ps(out + kk, v);
      kk += n, kw0 = 0;
      if (++kh == g->KH) kh = 0, ++ic;
    }
    if (++ow == g->OW) ow = 0, ++oh;
  }
}
#endif

static inline kiln_im2col_pack_fn kiln_im2col_pack_rows_select(void) {
#ifdef KILN_HAVE_AVX512
  return kiln_pack_im2col_rows_avx512;
#else
  return kiln_pack_im2col_rows;
#endif
}

static inline kiln_im2col_pack_fn kiln_im2col_pack_select(void) {
#ifdef KILN_HAVE_AVX512
  return kiln_pack_im2col_avx512;
#else
  return kiln_pack_im2col_vec;
#endif
}

/* Applies the epilogue to the finished mr x nr tile at (m0, n0). */
static inline void kiln_epilogue_tile(const kiln_epilogue* ep, float* y, int64_t y_rs, int64_t m0,
                               int64_t n0, int64_t mr, int64_t nr) {
  for (int64_t i = 0; i < mr; ++i) {
    float* row = y + (m0 + i) * y_rs + n0;
    if (ep->alpha != 1.0f)
      for (int64_t j = 0; j < nr; ++j) row[j] *= ep->alpha;
    if (ep->c) {
      const float* cr = ep->c + (m0 + i) * ep->c_rs;
      const float beta = ep->beta;
      if (ep->c_cs == 0) {
        const float v = beta * cr[0];
        for (int64_t j = 0; j < nr; ++j) row[j] += v;
      } else if (ep->c_cs == 1) {
        cr += n0;
        for (int64_t j = 0; j < nr; ++j) row[j] += beta * cr[j];
      } else {
        for (int64_t j = 0; j < nr; ++j) row[j] += beta * cr[(n0 + j) * ep->c_cs];
      }
    }
    if (ep->r) {
      const float* rr = ep->r + (m0 + i) * ep->r_rs + n0;
      for (int64_t j = 0; j < nr; ++j) row[j] += rr[j];
    }
  }
  /* Rows that are whole (an NHWC conv's) take one activation pass, its
   * constants set up once (one pass per row of 96: BM_Pointwise's SiLU
   * expansion took 1340 us on avx512, one pass per block 1290). */
  if (nr == y_rs) {
    kiln_activation_inplace(y + m0 * y_rs + n0, mr * nr, ep->act, ep->act_alpha, ep->act_beta);
  } else {
    for (int64_t i = 0; i < mr; ++i)
      kiln_activation_inplace(y + (m0 + i) * y_rs + n0, nr, ep->act, ep->act_alpha, ep->act_beta);
  }
}

/* Rows are split for threads only past 6 micro-tiles of this many rows
 * (the AVX-512 MR). */
#define KILN_GEMM_MB 8
/* Row blocks of a threaded GEMM that splits its rows: each of 1, 2 or 4
 * threads takes whole blocks. */
#define KILN_GEMM_ROW_BLOCKS 4
/* Widest row stride (floats) of a B read in place. */
#define KILN_IN_PLACE_MAX_RS 1024

/* Whether the micro-kernel can apply this epilogue itself. */
static inline int kiln_epilogue_fusable(const kiln_epilogue* ep) {
  return ep->alpha == 1.0f && (!ep->c || ep->c_cs == 0 || ep->c_cs == 1) &&
         kiln_tile_act_fusable(ep->act);
}

/* The fusable epilogue ep for the tile whose top-left output is (m, n). */
static inline const kiln_tile_epilogue* kiln_tile_epilogue_at(const kiln_epilogue* ep, int64_t m,
                                                              int64_t n, kiln_tile_epilogue* te) {
  te->bias = NULL, te->bias_rs = 0, te->row_vector = 0, te->beta = ep->beta;
  if (ep->c) {
    te->row_vector = ep->c_cs == 1;
    te->bias = ep->c + m * ep->c_rs + (te->row_vector ? n : 0);
    te->bias_rs = ep->c_rs;
  }
  te->r = ep->r ? ep->r + m * ep->r_rs + n : NULL;
  te->r_rs = ep->r_rs;
  te->act = ep->act, te->lo = ep->act_alpha, te->hi = ep->act_beta;
  return te;
}

typedef struct kiln_gemm_plan {
  const kiln_gemm_desc* d;
  kiln_gemm_path path;
  int fused;      /* the micro-kernel applies the epilogue */
  int b_in_place; /* B rows are read where they are, unpacked */
  int rows_avx512; /* dense B rows packed by kiln_pack_rows_avx512 */
  kiln_im2col_pack_fn pack_im2col;
  kiln_im2col_pack_fn pack_im2col_rows; /* for a_im2col */
  int64_t nr_chunk; /* columns per micro-kernel call */
  int64_t group;    /* columns per task */
  int64_t n_groups, m_blocks; /* row block b: rows [M * b / m_blocks, M * (b + 1) / m_blocks) */
} kiln_gemm_plan;

/* At most this many micro-tiles of rows per B block: packed B's next block
 * is prefetched (kiln_gemm_next_b), and its columns go in groups of 32. */
#define KILN_GEMM_FEW_TILES 16

static inline void kiln_gemm_plan_init(kiln_gemm_plan* p, const kiln_gemm_desc* d,
                                       int threaded) {
  p->d = d;
  p->path = kiln_gemm_select();
  p->pack_im2col = kiln_im2col_pack_select();
  p->pack_im2col_rows = kiln_im2col_pack_rows_select();
  p->fused = kiln_epilogue_fusable(&d->ep);
  /* Dense B rows close together (a small layer's activations) are read in
   * place by a micro-kernel that masks its column tail; far-apart rows would
   * map to few L1 sets, so those are packed. */
  p->b_in_place = !d->b_packed && !d->im2col && d->b_cs == 1 &&
                  d->b_rs <= KILN_IN_PLACE_MAX_RS && p->path.masks_b;
#ifdef KILN_HAVE_AVX512
  p->rows_avx512 = !d->b_packed && !d->im2col && d->b_cs == 1;
#else
  p->rows_avx512 = 0;
#endif
  p->nr_chunk = p->path.nr;
  /* A prepacked B shared by few micro-tiles of rows (a 7x7 layer's 1x1
   * convolution: 49 rows, K and N in the hundreds) goes in groups of 32
   * columns: twice the tasks to share between threads (a 960 -> 320
   * projection's 5 groups of 64 split 2 against 3), and a B block of 32 KiB
   * that stays in L1 beside the tile's rows of A. EfficientNet-B0's 7x7 1x1
   * layers on 2 threads (VM, interleaved rounds) 1.06-1.30x faster on
   * avx512, its projections 1.19-1.32x on avx2; MobileNetV2's 579 -> 546 us
   * on avx512 in one session, within noise in the next. Each element's sum
   * runs over K in the same order whatever the group. */
  p->group = d->b_packed && d->M > p->path.mr && d->M <= KILN_GEMM_FEW_TILES * p->path.mr
                 ? KILN_GROUP_COLS / 2
                 : KILN_GROUP_COLS;
  p->n_groups = (d->N + p->group - 1) / p->group;
  /* Whole-M tasks pack each B block once. With threads the rows are cut
   * into KILN_GEMM_ROW_BLOCKS equal blocks, tasks ordered block by block,
   * where Y outweighs prepacked B (M >= K) or too few column groups would
   * share: the host hands each thread a run of tasks in order, so each of
   * 2 or 4 threads writes its own rows of Y, and reads its own rows of A
   * when A is a layer split the same way (a depthwise conv's output rows):
   * data in the thread's own cache, not the other core's (an expansion
   * split by columns read half of A from the other core). A B packed per
   * task (not prepacked) is packed again per block, so then only about 4
   * tasks in all. The split never changes any element's arithmetic. */
  p->m_blocks = 1;
  if (threaded && d->M > 6 * KILN_GEMM_MB) {
    if (d->b_packed && (p->n_groups < 4 || d->M >= d->K))
      p->m_blocks = KILN_GEMM_ROW_BLOCKS;
    else if (p->n_groups < 4)
      p->m_blocks = (KILN_GEMM_ROW_BLOCKS + p->n_groups - 1) / p->n_groups;
  }
}

static inline int64_t kiln_gemm_task_count(const kiln_gemm_plan* p) {
  return p->n_groups * p->m_blocks;
}

/* How many micro-tiles ahead of the one running the rows of Y are
 * prefetched for writing. A Y that is not in cache (a large NHWC
 * activation, written once) otherwise stalls each tile's stores on the
 * lines' reads: MobileNetV2's 16->96 expansion at 112x112 took 421 us in
 * the model without, 309 us with; in benchmarks/pointwise_benchmark.cc the
 * 32->16 projection with cold caches (sets 16) went from about 200 to
 * 175 us, and warm it did not slow down. */
#define KILN_GEMM_AHEAD 2

/* Prefetches `floats` floats of each of `rows` rows from `first`, `rs` apart:
 * for writing (Y) or for reading (A). WRITE is a constant after inlining,
 * as each prefetch's hint must be. */
static KILN_ALWAYS_INLINE void kiln_gemm_prefetch_rows(const float* first, int64_t rs,
                                                       int64_t rows, int64_t floats,
                                                       const int WRITE) {
  for (int64_t i = 0; i < rows; ++i) {
    const char* row = (const char*)(first + i * rs);
    for (int64_t off = 0; off < floats * (int64_t)sizeof(float); off += 64) {
      if (WRITE) KILN_PREFETCH_WRITE(row + off);
      else KILN_PREFETCH_READ(row + off);
    }
  }
}

/* Packed B's next block after (n0, k0) within tasks up to `end` of plan p:
 * the next K block of the same columns, else the first of the next task's
 * columns. A small-M GEMM (a 7x7 layer's 1x1 conv, a classifier) reads
 * each block for only a few micro-tiles, so the weights' first touch from
 * memory is most of its time: the block after is prefetched, a slice per
 * micro-tile, while this one runs. A block of no panels when there is none. */
typedef struct kiln_b_next {
  const char* first; /* the first panel's block */
  int64_t panel_stride; /* bytes between panels */
  int64_t panels;
  int64_t lines; /* 64-byte lines per panel: one K row of 16 floats each */
} kiln_b_next;

static inline kiln_b_next kiln_gemm_next_b(const kiln_gemm_plan* p, int64_t t, int64_t end,
                                           int64_t n0, int64_t k0, int64_t kc) {
  const kiln_gemm_desc* d = p->d;
  kiln_b_next b = {NULL, 0, 0, 0};
  int64_t nn0 = n0, nk0 = k0 + kc;
  if (nk0 >= d->K) {
    if (t + 1 >= end || (t + 1) / p->n_groups != t / p->n_groups) return b;
    nn0 = ((t + 1) % p->n_groups) * p->group, nk0 = 0;
  }
  const int64_t ncols = d->N - nn0 < p->group ? d->N - nn0 : p->group;
  const int64_t nkc = d->K - nk0 < KILN_KC ? d->K - nk0 : KILN_KC;
  b.first = (const char*)(d->b_packed + (nn0 / KILN_PANEL) * d->K * KILN_PANEL + nk0 * KILN_PANEL);
  b.panel_stride = d->K * KILN_PANEL * (int64_t)sizeof(float);
  b.panels = (ncols + KILN_PANEL - 1) / KILN_PANEL;
  b.lines = nkc * KILN_PANEL * (int64_t)sizeof(float) / 64;
  return b;
}

/* Prefetches lines [lo, hi) of the block, counted panel by panel, towards L2
 * only: the block (up to 64 KiB) would push the one the micro-kernels are
 * reading out of L1. MobileNetV2's 7x7 layers, whose weights come from
 * memory once per inference (BM_Pointwise sets 24, AMD EPYC Zen 4): 0.89-0.91
 * of the time on avx512, 0.89-0.96 on avx2, 0.94-0.99 on portable; the whole
 * model about 6% less in the VM. */
static inline void kiln_gemm_prefetch_b(const kiln_b_next* b, int64_t lo, int64_t hi) {
  if (lo >= hi) return;
  /* One division per call, not per line: a division per line was a fifth
   * of MobileNetV2's 960 -> 320 projection (perf, AVX-512 Zen 5). */
  int64_t line = lo % b->lines;
  const char* panel = b->first + (lo / b->lines) * b->panel_stride;
  for (int64_t l = lo; l < hi; ++l) {
    KILN_PREFETCH_READ_L2(panel + line * 64);
    if (++line == b->lines) line = 0, panel += b->panel_stride;
  }
}

/* Runs tasks [begin, end): task t is m-block t / n_groups, column group t % n_groups. */
static inline void kiln_gemm_run_tasks(const kiln_gemm_plan* p, int64_t begin, int64_t end) {
  const kiln_gemm_desc* d = p->d;
  const kiln_gemm_path path = p->path;
  float buf[KILN_KC * KILN_GROUP_COLS] KILN_ALIGN64;
  for (int64_t t = begin; t < end; ++t) {
    const int64_t block = t / p->n_groups;
    const int64_t m_lo = d->M * block / p->m_blocks, m_hi = d->M * (block + 1) / p->m_blocks;
    const int64_t n0 = (t % p->n_groups) * p->group;
    const int64_t cols = d->N - n0 < p->group ? d->N - n0 : p->group;
    if (d->K == 0) {
      for (int64_t m = m_lo; m < m_hi; ++m)
        for (int64_t j = 0; j < cols; ++j) d->y[m * d->y_rs + n0 + j] = 0.0f;
    }
    /* K in blocks that keep B's block in cache for the rows' tiles; one
     * micro-tile of rows reusing packed B never (a GEMV: a classifier, an
     * MLP's batch of one) runs K whole instead, one unbroken stream per
     * panel that the hardware prefetchers follow (the sums are the same:
     * a partial sum stored and reloaded is exact). */
    const int64_t k_block = d->b_packed && !d->a_im2col && m_hi - m_lo <= path.mr ? d->K : KILN_KC;
    for (int64_t k0 = 0; k0 < d->K; k0 += k_block) {
      const int64_t kc = d->K - k0 < k_block ? d->K - k0 : k_block;
      const float* b;
      int64_t b_rs = KILN_PANEL, b_ps;
      if (d->b_packed) {
        b = d->b_packed + (n0 / KILN_PANEL) * d->K * KILN_PANEL + k0 * KILN_PANEL;
        b_ps = d->K * KILN_PANEL;
      } else if (p->b_in_place) {
        b = d->b + k0 * d->b_rs + n0, b_rs = d->b_rs, b_ps = KILN_PANEL;
      } else {
        for (int64_t q = 0; q * KILN_PANEL < cols; ++q) {
          const int64_t c0 = n0 + q * KILN_PANEL;
          const int64_t w = cols - q * KILN_PANEL < KILN_PANEL ? cols - q * KILN_PANEL : KILN_PANEL;
          float* dst = buf + q * kc * KILN_PANEL;
          if (d->im2col) p->pack_im2col(d->im2col, k0, kc, c0, w, dst);
#ifdef KILN_HAVE_AVX512
          else if (p->rows_avx512) kiln_pack_rows_avx512(d, k0, kc, c0, w, dst);
#endif
          else kiln_pack_strided(d, k0, kc, c0, w, dst);
        }
        b = buf, b_ps = kc * KILN_PANEL;
      }
      const int last = k0 + kc >= d->K;
      int64_t a_packed_m0 = 0, a_packed_end = 0; /* rows of A in buf */
      /* Only when few micro-tiles share a block: with many, the block stays
       * in cache after the first and the hardware prefetchers keep up. Not
       * for one micro-tile either: the whole next block's prefetches would
       * go out at once, and a GEMV (a classifier, an MLP's batch of one)
       * streaming packed B ran 3x slower with them (BM_KilnSgemmPackedB
       * 1x1000x512 on AVX-512: 31 us without, 90 us with). */
      const int64_t rows = m_hi - m_lo, tiles = (rows + path.mr - 1) / path.mr;
      kiln_b_next next = {NULL, 0, 0, 0};
      if (d->b_packed && tiles > 1 && tiles <= KILN_GEMM_FEW_TILES)
        next = kiln_gemm_next_b(p, t, end, n0, k0, kc);
      const int64_t next_lines = next.panels * next.lines;
      /* A's rows are prefetched like Y's when one column group streams
       * short rows once (K <= 64, where it was measured): MobileNetV2's
       * 32 -> 16 projection at 112x112 reads its 1.6 MB input, the depthwise
       * layer's output, from L2 and L3 in 8-row tiles of 2 lines per row.
       * BM_Pointwise C:32 OC:16 with cold caches (sets 16), AMD EPYC Zen 5:
       * avx512 167 -> 127-134 us, avx2 228-236 -> 181-208; in the model (VM,
       * avx512, 5 interleaved runs) 158-241 -> 131-154 us. Prefetching A for
       * every column group of the 16 -> 96 expansion made it 3-5% slower:
       * each group rereads A, already on its way to L1. */
      const int prefetch_a = p->n_groups == 1 && !d->a_im2col && d->a_cs == 1 && kc <= 64;
      /* The rows shared out evenly over the fewest micro-tiles: a tile of
       * one row waits on its FMAs' latency about as long as a full tile
       * takes, so a 7x7 layer's 49 rows run as 7 tiles of 7 rather than
       * 6 of 8 and 1 of 1. Each row's arithmetic is the same either way. */
      for (int64_t i = 0; i < tiles; ++i) {
        const int64_t m = m_lo + i * rows / tiles, mr = m_lo + (i + 1) * rows / tiles - m;
        if (k0 == 0 && i + KILN_GEMM_AHEAD < tiles) {
          const int64_t ahead = m_lo + (i + KILN_GEMM_AHEAD) * rows / tiles;
          const int64_t ahead_end = m_lo + (i + KILN_GEMM_AHEAD + 1) * rows / tiles;
          kiln_gemm_prefetch_rows(d->y + ahead * d->y_rs + n0, d->y_rs, ahead_end - ahead, cols,
                                  1);
          if (prefetch_a)
            kiln_gemm_prefetch_rows(d->a + ahead * d->a_rs, d->a_rs, ahead_end - ahead, kc, 0);
        }
        if (next_lines > 0)
          kiln_gemm_prefetch_b(&next, i * next_lines / tiles, (i + 1) * next_lines / tiles);
        const float* a;
        int64_t a_rs, a_cs;
        if (d->a_im2col) {
          /* The im2col rows of up to 16 outputs, packed once for the
           * micro-tiles they cover. B is b_packed, so buf is free (and
           * holds the 16 floats the packer may write past them). d->a is
           * NULL here: no pointer arithmetic on it. */
          if (m + mr > a_packed_end) {
            const int64_t packed = m_hi - m < KILN_PANEL ? m_hi - m : KILN_PANEL;
            p->pack_im2col_rows(d->a_im2col, k0, kc, m, packed, buf);
            a_packed_m0 = m, a_packed_end = m + packed;
          }
          a = buf + (m - a_packed_m0) * kc, a_rs = kc, a_cs = 1;
        } else {
          a = d->a + m * d->a_rs + k0 * d->a_cs, a_rs = d->a_rs, a_cs = d->a_cs;
        }
        for (int64_t c = 0; c < cols; c += p->nr_chunk) {
          const int64_t nr = cols - c < p->nr_chunk ? cols - c : p->nr_chunk;
          kiln_tile_epilogue te;
          const kiln_tile_epilogue* ep = NULL;
          if (last && p->fused) ep = kiln_tile_epilogue_at(&d->ep, m, n0 + c, &te);
          path.ukr(kc, a, a_rs, a_cs, b + (c / KILN_PANEL) * b_ps + c % KILN_PANEL, b_rs, b_ps,
                   d->y + m * d->y_rs + n0 + c, d->y_rs, mr, nr, k0 > 0, ep);
        }
        /* An epilogue the micro-kernel cannot apply (SiLU, GELU, ...) runs
         * on the finished rows while they are in cache, not after the whole
         * task (a 112x112x96 expansion writes 4.8 MB, more than L2). */
        if (last && !p->fused) kiln_epilogue_tile(&d->ep, d->y, d->y_rs, m, n0, mr, cols);
      }
    }
    if (d->K == 0) kiln_epilogue_tile(&d->ep, d->y, d->y_rs, m_lo, n0, m_hi - m_lo, cols);
  }
}

static inline void kiln_gemm_task_body(void* ctx, int64_t begin, int64_t end) {
  kiln_gemm_run_tasks((const kiln_gemm_plan*)ctx, begin, end);
}

/* Runs one GEMM, split over the host's threads when it offers them. */
void kiln_sgemm(const kiln_gemm_desc* d, const kiln_host* host) {
  if (d->M <= 0 || d->N <= 0) return;
  /* Below ~2^19 multiply-adds a hand-off to other threads costs more than it
   * saves, unless one row meets 1 MB of B or more: a classifier at batch 1
   * waits on its weights' memory, which two threads stream twice as fast
   * (ResNet-18's 512 x 1000 layer, 2 MB, is 2^19 - 12288 multiply-adds). */
  const double k_n = (double)d->N * (double)d->K;
  const int big =
      (double)d->M * k_n >= (double)(1 << 19) || (d->M == 1 && k_n >= (double)(1 << 18));
  const int threaded = host && host->parallel_for && big;
  kiln_gemm_plan plan;
  kiln_gemm_plan_init(&plan, d, threaded);
  const int64_t tasks = kiln_gemm_task_count(&plan);
  if (threaded && tasks > 1) {
    host->parallel_for(host->user, tasks, kiln_gemm_task_body, &plan);
  } else {
    kiln_gemm_run_tasks(&plan, 0, tasks);
  }
}

