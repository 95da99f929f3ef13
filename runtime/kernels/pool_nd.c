/* pool_nd: MaxPool / AveragePool over any number of spatial dims and any
 * float or small integer dtype (values pass through double, exact for
 * them): the cases pool2d_f32 does not take (3-D windows, uint8 images).
 * A plain odometer walk over output and window positions; float32 windows
 * of up to 3 dims (video networks' 3-D pools) walk the same taps in the same
 * order with each axis's inside range found once per output instead of a
 * test per tap, so their results are the walk's. A float32 max pool over
 * rows of at most PN_ROW_MAX is separable instead: per output row, the
 * elementwise maximum of the input rows its windows reach (vectors, vec.h),
 * then each output's window along that row. The same values, NaN wherever
 * the walk gives NaN; only which of several maximal zeros (+0, -0) or NaNs
 * is kept may differ. */
#include <math.h>
#include <stdint.h>

#include "check_util.h"
#include "host_tasks.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "typed_util.h"
#include "vec.h"
#include "window.h"

/* The longest input row the separable max pool folds on the stack. */
#define PN_ROW_MAX 1024

enum {
  PN_KIND = KILN_IP_POOL_ND_KIND,
  PN_DTYPE = KILN_IP_POOL_ND_DTYPE,
  PN_S = KILN_IP_POOL_ND_S,
  PN_COUNT_PAD = KILN_IP_POOL_ND_COUNT_INCLUDE_PAD,
  PN_NC = KILN_IP_POOL_ND_NC,
  PN_HEAD = KILN_IP_POOL_ND_IN
};

static int next_index(int64_t* idx, const int64_t* dims, int64_t n) {
  for (int64_t d = n - 1; d >= 0; --d) {
    if (++idx[d] < dims[d]) return 1;
    idx[d] = 0;
  }
  return 0;
}

/* float32, up to 3 dims, as 3 (leading axes of one position). */
typedef struct pn_f32_job {
  int64_t kind, count_pad;
  int64_t in[3], out[3], k[3], stride[3], dil[3], pb[3], pe[3];
  const float* x;
  float* y;
} pn_f32_job;

/* acc = v where v is NaN or above acc (the walk's update), per lane. */
static KILN_ALWAYS_INLINE kv pn_max_step(kv acc, kv v) {
  acc = kv_select(kv_lt(acc, v), v, acc);
  return kv_select(kv_le(v, v), acc, v); /* v <= v fails only for NaN */
}

static KILN_ALWAYS_INLINE float pn_max_step1(float acc, float v) {
  return v != v || v > acc ? v : acc;
}

/* One output row (o0, o1) of a float32 max pool: row[w] = the maximum over
 * the inside taps of axes 0 and 1 of x at column w, then each output's
 * inside taps along the row. */
static void pn_max_row(const pn_f32_job* j, const float* x, float* y, int64_t b0,
                       const int64_t* lo, const int64_t* hi, int64_t b1, float* row) {
  const int64_t W = j->in[2];
  int first = 1;
  for (int64_t t0 = lo[0]; t0 < hi[0]; ++t0) {
    const int64_t r0 = (b0 + t0 * j->dil[0]) * j->in[1];
    for (int64_t t1 = lo[1]; t1 < hi[1]; ++t1) {
      const float* xr = x + (r0 + b1 + t1 * j->dil[1]) * W;
      int64_t w = 0;
      if (first) {
        for (; w < W; ++w) row[w] = xr[w];
        first = 0;
        continue;
      }
      for (; w + KV_LANES <= W; w += KV_LANES)
        kv_store(row + w, pn_max_step(kv_load(row + w), kv_load(xr + w)));
      for (; w < W; ++w) row[w] = pn_max_step1(row[w], xr[w]);
    }
  }
  for (int64_t o2 = 0; o2 < j->out[2]; ++o2) {
    const int64_t b2 = o2 * j->stride[2] - j->pb[2];
    int64_t lo2, hi2;
    kiln_window_range(b2, j->dil[2], j->k[2], 0, W, &lo2, &hi2);
    float acc = -INFINITY;
    if (!first)
      for (int64_t t2 = lo2; t2 < hi2; ++t2) acc = pn_max_step1(acc, row[b2 + t2 * j->dil[2]]);
    y[o2] = acc;
  }
}

static void pn_f32_planes(void* ctx, int64_t begin, int64_t end) {
  const pn_f32_job* j = (const pn_f32_job*)ctx;
  const int64_t in_plane = j->in[0] * j->in[1] * j->in[2];
  const int64_t out_plane = j->out[0] * j->out[1] * j->out[2];
  for (int64_t p = begin; p < end; ++p) {
    const float* x = j->x + p * in_plane;
    float* y = j->y + p * out_plane;
    for (int64_t o0 = 0; o0 < j->out[0]; ++o0) {
      /* Per axis: the taps inside the input [lo, hi), and how many lie
       * inside input + pads (average's count_include_pad divisor). */
      int64_t lo[3], hi[3], padded0, padded1;
      const int64_t b0 = o0 * j->stride[0] - j->pb[0];
      kiln_window_range(b0, j->dil[0], j->k[0], 0, j->in[0], &lo[0], &hi[0]);
      padded0 = kiln_window_count(b0, j->dil[0], j->k[0], -j->pb[0], j->in[0] + j->pe[0]);
      for (int64_t o1 = 0; o1 < j->out[1]; ++o1) {
        const int64_t b1 = o1 * j->stride[1] - j->pb[1];
        kiln_window_range(b1, j->dil[1], j->k[1], 0, j->in[1], &lo[1], &hi[1]);
        if (j->kind == KILN_POOL_MAX && j->in[2] <= PN_ROW_MAX) {
          float row[PN_ROW_MAX];
          pn_max_row(j, x, y, b0, lo, hi, b1, row);
          y += j->out[2];
          continue;
        }
        padded1 = kiln_window_count(b1, j->dil[1], j->k[1], -j->pb[1], j->in[1] + j->pe[1]);
        for (int64_t o2 = 0; o2 < j->out[2]; ++o2, ++y) {
          const int64_t b2 = o2 * j->stride[2] - j->pb[2];
          kiln_window_range(b2, j->dil[2], j->k[2], 0, j->in[2], &lo[2], &hi[2]);
          double acc = j->kind == KILN_POOL_MAX ? -INFINITY : 0.0;
          const int64_t count = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
          /* Offsets in integers: only inside taps' addresses are formed. */
          for (int64_t t0 = lo[0]; count > 0 && t0 < hi[0]; ++t0) {
            const int64_t r0 = (b0 + t0 * j->dil[0]) * j->in[1];
            for (int64_t t1 = lo[1]; t1 < hi[1]; ++t1) {
              const int64_t r1 = (r0 + b1 + t1 * j->dil[1]) * j->in[2] + b2;
              if (j->kind == KILN_POOL_MAX) {
                for (int64_t t2 = lo[2]; t2 < hi[2]; ++t2) {
                  const double v = x[r1 + t2 * j->dil[2]];
                  if (v != v || v > acc) acc = v;
                }
              } else {
                for (int64_t t2 = lo[2]; t2 < hi[2]; ++t2) acc += x[r1 + t2 * j->dil[2]];
              }
            }
          }
          if (j->kind == KILN_POOL_AVG) {
            const int64_t div =
                j->count_pad ? padded0 * padded1 *
                                   kiln_window_count(b2, j->dil[2], j->k[2], -j->pb[2],
                                                     j->in[2] + j->pe[2])
                             : count;
            acc = div > 0 ? acc / (double)div : 0.0;
          }
          *y = (float)acc;
        }
      }
    }
  }
}

int kiln_pool_nd(const int64_t* ip, const float* fp, void* const* bindings,
                 const kiln_host* host) {
  (void)fp;
  const int64_t kind = ip[PN_KIND], t = ip[PN_DTYPE], S = ip[PN_S], NC = ip[PN_NC];
  const int64_t* in = ip + PN_HEAD;
  const int64_t* out = in + S;
  const int64_t* k = out + S;
  const int64_t* stride = k + S;
  const int64_t* dil = stride + S;
  const int64_t* pb = dil + S;
  const int64_t* pe = pb + S;
  const void* X = bindings[0];
  void* Y = bindings[1];
  int64_t in_plane = 1, out_plane = 1;
  for (int64_t d = 0; d < S; ++d) in_plane *= in[d], out_plane *= out[d];
  if (in_plane == 0 || out_plane == 0) return KILN_OK;
  if (t == KILN_DTYPE_F32 && S <= 3) {
    pn_f32_job j;
    j.kind = kind, j.count_pad = ip[PN_COUNT_PAD];
    j.x = (const float*)X, j.y = (float*)Y;
    for (int64_t d = 0; d < 3; ++d) {
      const int64_t a = d - (3 - S); /* the input's axis, or < 0: a unit axis */
      j.in[d] = a < 0 ? 1 : in[a], j.out[d] = a < 0 ? 1 : out[a], j.k[d] = a < 0 ? 1 : k[a];
      j.stride[d] = a < 0 ? 1 : stride[a], j.dil[d] = a < 0 ? 1 : dil[a];
      j.pb[d] = a < 0 ? 0 : pb[a], j.pe[d] = a < 0 ? 0 : pe[a];
    }
    double taps = 1;
    for (int64_t d = 0; d < S; ++d) taps *= (double)k[d];
    kiln_run_tasks(host, NC, (double)NC * (double)out_plane * taps, (double)(1 << 17),
                   pn_f32_planes, &j);
    return KILN_OK;
  }
  const int is_float = kiln_dtype_is_float(t);
  for (int64_t p = 0; p < NC; ++p) {
    int64_t o[KILN_MAX_RANK] = {0};
    int64_t yo = p * out_plane;
    do {
      int64_t w[KILN_MAX_RANK] = {0};
      double acc = kind == KILN_POOL_MAX ? -INFINITY : 0.0;
      int64_t count = 0, padded_count = 0;
      do {
        int64_t off = 0, inside = 1, in_padded = 1;
        for (int64_t d = 0; d < S; ++d) {
          const int64_t pos = o[d] * stride[d] - pb[d] + w[d] * dil[d];
          if (pos < 0 || pos >= in[d]) inside = 0;
          if (pos < -pb[d] || pos >= in[d] + pe[d]) in_padded = 0;
          /* Only a tap inside the input has an offset (outside, pos may be
           * anything the checked sums allow and off * in[d] would overflow). */
          if (inside) off = off * in[d] + pos;
        }
        padded_count += in_padded;
        if (!inside) continue;
        const double v = kiln_load_f(X, t, p * in_plane + off);
        ++count;
        if (kind == KILN_POOL_MAX) {
          if (v != v || v > acc) acc = v;
        } else {
          acc += v;
        }
      } while (next_index(w, k, S));
      if (kind == KILN_POOL_MAX && count == 0 && !is_float) acc = 0; /* no -inf in integers */
      if (kind == KILN_POOL_AVG) {
        const int64_t div = ip[PN_COUNT_PAD] ? padded_count : count;
        acc = div > 0 ? acc / (double)div : 0.0;
      }
      if (is_float) {
        kiln_store_f(Y, t, yo, acc);
      } else {
        kiln_store_bits(Y, t, yo, (uint64_t)(int64_t)acc);
      }
      ++yo;
    } while (next_index(o, out, S));
  }
  return KILN_OK;
}

int kiln_pool_nd_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                       uint32_t fparam_count, const uint64_t* binding_bytes) {
  if (ip == NULL || iparam_count < PN_HEAD) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t S = ip[PN_S];
  if (S < 1 || S > KILN_MAX_RANK) return KILN_ERR_INVALID_ARGUMENT;
  const uint32_t want = (uint32_t)(PN_HEAD + 7 * S);
  KILN_TRY(kiln_check_counts(ip, iparam_count, want, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, want));
  KILN_TRY(kiln_check_enum(ip[PN_KIND], KILN_POOL_MAX, KILN_POOL_AVG));
  KILN_TRY(kiln_check_enum(ip[PN_COUNT_PAD], 0, 1));
  const int64_t t = ip[PN_DTYPE], eb = kiln_dtype_size(t);
  /* Exact through double: floats and integers of up to 32 bits. */
  if (eb == 0 || t == KILN_DTYPE_BOOL || t == KILN_DTYPE_I64 || t == KILN_DTYPE_U64)
    return KILN_ERR_INVALID_ARGUMENT;
  if (ip[PN_KIND] == KILN_POOL_AVG && !kiln_dtype_is_float(t)) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t* in = ip + PN_HEAD;
  const int64_t* out = in + S;
  const int64_t* k = out + S;
  for (int64_t d = 0; d < S; ++d) {
    if (k[d] < 1 || in[S * 3 + d] < 1 || in[S * 4 + d] < 1) return KILN_ERR_INVALID_ARGUMENT;
    /* Every window position computed must fit int64 (pads, strides, dilations). */
    int64_t a, b, c;
    KILN_TRY(kiln_checked_mul(out[d], in[S * 3 + d], &a));
    KILN_TRY(kiln_checked_mul(k[d], in[S * 4 + d], &b));
    KILN_TRY(kiln_checked_add(a, b, &c));
    KILN_TRY(kiln_checked_add(in[d], in[S * 6 + d], &c));
  }
  /* NC x output positions x window taps: the window is bounded by no binding
   * (taps outside the input are skipped, not read), so a huge window over
   * a few elements would spin; like any window pool it may re-read each
   * element at most KILN_MAX_REUSE times. An empty plane returns before any
   * loop; NC == 0 runs none. */
  int64_t in_count, out_count, plane, out_plane, bytes;
  KILN_TRY(kiln_checked_product(in, S, &plane));
  KILN_TRY(kiln_checked_product(out, S, &out_plane));
  KILN_TRY(kiln_checked_mul(plane, ip[PN_NC], &in_count));
  KILN_TRY(kiln_checked_mul(out_plane, ip[PN_NC], &out_count));
  if (plane > 0 && out_plane > 0 && ip[PN_NC] > 0) {
    int64_t loops[1 + 2 * KILN_MAX_RANK];
    loops[0] = ip[PN_NC];
    for (int64_t d = 0; d < 2 * S; ++d) loops[1 + d] = out[d]; /* out, then k */
    KILN_TRY(kiln_check_work(loops, 1 + 2 * S));
    KILN_TRY(kiln_check_reuse(kiln_work_of(loops, 1 + 2 * S), in_count + out_count));
  }
  KILN_TRY(kiln_dense_bytes(in_count, eb, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[0], bytes));
  KILN_TRY(kiln_dense_bytes(out_count, eb, &bytes));
  return kiln_check_binding(binding_bytes[1], bytes);
}
