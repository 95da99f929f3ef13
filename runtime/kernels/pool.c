/* pool2d_f32, pool2d_nhwc_f32, global_pool_f32 and global_pool_nhwc_f32.
 * pool2d_f32 pools a plane separably on every path (vec.h): window rows,
 * then window columns, each over whole vectors of the plane's outputs
 * (runs of rows cross row ends; column taps in the padding are masked).
 * Geometries whose rows do not fit its stack buffer go tap by tap over
 * whole output rows. pool2d_nhwc_f32 combines each output position's taps
 * with the channels in the lanes. Planes (NHWC: output rows) split over
 * the host's threads. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check_util.h"
#include "host_tasks.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "simd.h"
#include "vec.h"
#include "window.h"

enum {
  P_KIND = KILN_IP_POOL2D_F32_KIND,
  P_N = KILN_IP_POOL2D_F32_N,
  P_C = KILN_IP_POOL2D_F32_C,
  P_H = KILN_IP_POOL2D_F32_H,
  P_W = KILN_IP_POOL2D_F32_W,
  P_OH = KILN_IP_POOL2D_F32_OH,
  P_OW = KILN_IP_POOL2D_F32_OW,
  P_KH = KILN_IP_POOL2D_F32_KH,
  P_KW = KILN_IP_POOL2D_F32_KW,
  P_SH = KILN_IP_POOL2D_F32_STRIDE_H,
  P_SW = KILN_IP_POOL2D_F32_STRIDE_W,
  P_PT = KILN_IP_POOL2D_F32_PAD_TOP,
  P_PL = KILN_IP_POOL2D_F32_PAD_LEFT,
  P_PB = KILN_IP_POOL2D_F32_PAD_BOTTOM,
  P_PR = KILN_IP_POOL2D_F32_PAD_RIGHT,
  P_DH = KILN_IP_POOL2D_F32_DILATION_H,
  P_DW = KILN_IP_POOL2D_F32_DILATION_W,
  P_CIP = KILN_IP_POOL2D_F32_COUNT_INCLUDE_PAD,
  P_COUNT = KILN_POOL2D_F32_IPARAMS
};
_Static_assert(KILN_IP_POOL2D_NHWC_F32_KIND == (int)P_KIND &&
                   KILN_IP_POOL2D_NHWC_F32_N == (int)P_N && KILN_IP_POOL2D_NHWC_F32_C == (int)P_C &&
                   KILN_IP_POOL2D_NHWC_F32_H == (int)P_H && KILN_IP_POOL2D_NHWC_F32_W == (int)P_W &&
                   KILN_IP_POOL2D_NHWC_F32_OH == (int)P_OH &&
                   KILN_IP_POOL2D_NHWC_F32_OW == (int)P_OW &&
                   KILN_IP_POOL2D_NHWC_F32_KH == (int)P_KH &&
                   KILN_IP_POOL2D_NHWC_F32_KW == (int)P_KW &&
                   KILN_IP_POOL2D_NHWC_F32_STRIDE_H == (int)P_SH &&
                   KILN_IP_POOL2D_NHWC_F32_STRIDE_W == (int)P_SW &&
                   KILN_IP_POOL2D_NHWC_F32_PAD_TOP == (int)P_PT &&
                   KILN_IP_POOL2D_NHWC_F32_PAD_LEFT == (int)P_PL &&
                   KILN_IP_POOL2D_NHWC_F32_PAD_BOTTOM == (int)P_PB &&
                   KILN_IP_POOL2D_NHWC_F32_PAD_RIGHT == (int)P_PR &&
                   KILN_IP_POOL2D_NHWC_F32_DILATION_H == (int)P_DH &&
                   KILN_IP_POOL2D_NHWC_F32_DILATION_W == (int)P_DW &&
                   KILN_IP_POOL2D_NHWC_F32_COUNT_INCLUDE_PAD == (int)P_CIP &&
                   KILN_POOL2D_NHWC_F32_IPARAMS == (int)P_COUNT,
               "pool2d_nhwc_f32 has pool2d_f32's parameters");

/* Floats of the separable path's buffer: one mask per window column, then
 * the window-row results of a block of output rows. */
#define KILN_POOL_BUF 2048

/* The separable path's layout of its buffer for one geometry. */
typedef struct pool_layout {
  int64_t mask_stride;    /* floats per column mask: OW + KV_LANES */
  int64_t front, back;    /* margins before and after the rows (reads of masked lanes) */
  int64_t block_rows;     /* output rows per block */
  int flat;               /* W == SW * OW: a block's outputs form one run */
} pool_layout;

/* Whether pool_planes_separable takes this geometry, and its layout: every
 * buffer float it reads (a last vector's lanes past the outputs, a stride-2
 * block's second vector, the column taps left of column 0) lies inside the
 * buffer, and at least one output row's window rows fit. */
static int separable_layout(const int64_t* ip, pool_layout* l) {
  const int64_t W = ip[P_W], OW = ip[P_OW], SW = ip[P_SW], KW = ip[P_KW], DW = ip[P_DW];
  const int64_t PL = ip[P_PL];
  if (OW > KILN_POOL_BUF || SW > KILN_POOL_BUF || KW > KILN_POOL_BUF || DW > KILN_POOL_BUF ||
      PL > KILN_POOL_BUF || W > KILN_POOL_BUF)
    return 0;
  l->mask_stride = OW + KV_LANES;
  l->front = PL;
  l->back = SW * OW + (KW - 1) * DW + 2 * KV_LANES;
  const int64_t used = KW * l->mask_stride + l->front + l->back;
  if (used + W > KILN_POOL_BUF) return 0;
  l->block_rows = (KILN_POOL_BUF - used) / W;
  l->flat = W == SW * OW;
  return 1;
}

/* Output row yr of sums (window rows kh0 .. kh1 from ih0) into averages:
 * each over its window's rows times columns in the padded input
 * (count_include_pad) or in the input. An interior window's columns are KW
 * without counting. A window wholly in the padding averages nothing: 0. */
static void pool_average_row(const int64_t* ip, float* yr, int64_t ih0, int64_t kh0,
                             int64_t kh1) {
  const int64_t W = ip[P_W], KW = ip[P_KW], SW = ip[P_SW], DW = ip[P_DW], PL = ip[P_PL];
  const int cip = (int)ip[P_CIP];
  const int64_t rows =
      cip ? kiln_window_count(ih0, ip[P_DH], ip[P_KH], -ip[P_PT], ip[P_H] + ip[P_PB]) : kh1 - kh0;
  const int64_t lo = cip ? -PL : 0, hi = cip ? W + ip[P_PR] : W;
  for (int64_t ow = 0; ow < ip[P_OW]; ++ow) {
    const int64_t iw0 = ow * SW - PL;
    const int64_t cols = iw0 >= lo && iw0 + (KW - 1) * DW < hi
                             ? KW
                             : kiln_window_count(iw0, DW, KW, lo, hi);
    yr[ow] = rows * cols > 0 ? yr[ow] / (float)(rows * cols) : 0.0f;
  }
}

/* Window column kw's mask over output columns c in [0, OW + KV_LANES),
 * column c % OW: for max 0 where the tap lies in the input and -inf where
 * it lies in the padding (added: the tap can then never win, since
 * kv_max(v, m) is v > m ? v : m and -inf + v is -inf or NaN); for average
 * all ones or zero bits (and-ed: padding adds +0). */
static void pool_column_masks(const int64_t* ip, const pool_layout* l, float* mask) {
  const int64_t W = ip[P_W], OW = ip[P_OW], SW = ip[P_SW], DW = ip[P_DW], PL = ip[P_PL];
  const int is_max = ip[P_KIND] == KILN_POOL_MAX;
  const uint32_t ones = 0xFFFFFFFFu, zero = 0;
  float on, off;
  if (is_max) {
    on = 0.0f, off = -INFINITY;
  } else {
    memcpy(&on, &ones, sizeof on);
    memcpy(&off, &zero, sizeof off);
  }
  for (int64_t kw = 0; kw < ip[P_KW]; ++kw) {
    float* m = mask + kw * l->mask_stride;
    for (int64_t c = 0, ow = 0; c < l->mask_stride; ++c, ow = ow + 1 == OW ? 0 : ow + 1) {
      const int64_t iw = ow * SW + kw * DW - PL;
      m[c] = iw >= 0 && iw < W ? on : off;
    }
  }
}

/* Output rows [oh0, oh1) of one plane, window rows first: row t of `v`
 * (W floats) combines input rows ih0 + kh*DH over the window rows inside
 * the input. With stride 1 the rows whose windows lie wholly inside form
 * one contiguous run, combined KV_LANES floats at a time across row ends. */
static KILN_ALWAYS_INLINE void pool_window_rows(const int64_t* ip, const float* xp, float* v,
                                                int64_t oh0, int64_t oh1, int is_max) {
  const int64_t H = ip[P_H], W = ip[P_W], KH = ip[P_KH], SH = ip[P_SH], DH = ip[P_DH];
  const int64_t PT = ip[P_PT];
  const kv init = kv_set1(is_max ? -INFINITY : 0.0f);
  for (int64_t oh = oh0; oh < oh1;) {
    const int64_t ih0 = oh * SH - PT;
    int64_t kh0, kh1, run = 1;
    kiln_window_range(ih0, DH, KH, 0, H, &kh0, &kh1);
    if (SH == 1 && kh0 == 0 && kh1 == KH) {
      /* Interior rows: window inside the input while ih0 + (KH-1)*DH < H. */
      const int64_t last = H - 1 - (KH - 1) * DH + PT; /* last interior oh */
      run = (last < oh1 - 1 ? last : oh1 - 1) - oh + 1;
    }
    const int64_t n = run * W;
    float* vr = v + (oh - oh0) * W;
    for (int64_t i = 0; i < n; i += KV_LANES) {
      const int64_t lanes = n - i < KV_LANES ? n - i : KV_LANES;
      kv acc = init;
      for (int64_t kh = kh0; kh < kh1; ++kh) {
        const float* p = xp + (ih0 + kh * DH) * W + i;
        const kv x = lanes == KV_LANES ? kv_load(p) : kv_load_n(p, lanes);
        acc = is_max ? kv_max(x, acc) : kv_add(acc, x);
      }
      if (lanes == KV_LANES) kv_store(vr + i, acc);
      else kv_store_n(vr + i, acc, lanes);
    }
    oh += run;
  }
}

/* n outputs y[j], output column j % OW, from window-row results
 * whose output column 0 starts at `v`: each combines v[j*SW + kw*DW - PL]
 * over the window columns, the taps in the padding masked off. */
static KILN_ALWAYS_INLINE void pool_window_cols(const int64_t* ip, const pool_layout* l,
                                                const float* mask, const float* v, float* y,
                                                int64_t n, int is_max) {
  const int64_t W = ip[P_W], OW = ip[P_OW], SW = ip[P_SW], KW = ip[P_KW], DW = ip[P_DW];
  const int64_t PL = ip[P_PL];
  const kv init = kv_set1(is_max ? -INFINITY : 0.0f);
  int64_t c = 0;
  for (int64_t j = 0; j < n; j += KV_LANES) {
    kv acc = init;
    for (int64_t kw = 0; kw < KW; ++kw) {
      const int64_t d = kw * DW - PL;
      const float* r = v + j * SW + d;
      kv x = SW == 1 ? kv_load(r) : kv_even(kv_load(r), kv_load(r + KV_LANES));
      if (d < 0 || (OW - 1) * SW + d >= W) { /* some columns' tap in the padding */
        const kv m = kv_load(mask + kw * l->mask_stride + c);
        x = is_max ? kv_add(x, m) : kv_from_bits(kvi_and(kv_as_bits(x), kv_as_bits(m)));
      }
      acc = is_max ? kv_max(x, acc) : kv_add(acc, x);
    }
    if (n - j >= KV_LANES) kv_store(y + j, acc);
    else kv_store_n(y + j, acc, n - j);
    for (c += KV_LANES; c >= OW;) c -= OW;
  }
}

/* The same outputs one at a time: strides beyond 2. */
static void pool_window_cols_scalar(const int64_t* ip, const float* v, float* y, int64_t n) {
  const int64_t W = ip[P_W], OW = ip[P_OW], SW = ip[P_SW], KW = ip[P_KW], DW = ip[P_DW];
  const int64_t PL = ip[P_PL];
  const int is_max = ip[P_KIND] == KILN_POOL_MAX;
  for (int64_t j = 0; j < n; ++j) {
    const int64_t row = j / OW, ow = j % OW;
    float acc = is_max ? -INFINITY : 0.0f;
    for (int64_t kw = 0; kw < KW; ++kw) {
      const int64_t iw = ow * SW + kw * DW - PL;
      if (iw < 0 || iw >= W) continue;
      const float x = v[row * W + iw];
      acc = is_max ? (x > acc ? x : acc) : acc + x;
    }
    y[j] = acc;
  }
}

/* Window columns of output rows [oh0, oh1) from their window rows at v:
 * the whole block as one run when its rows lie back to back (W == SW *
 * OW), else row by row. An average is each output's sum of column sums
 * over its count. */
static KILN_ALWAYS_INLINE void pool_block_cols(const int64_t* ip, const pool_layout* l,
                                               const float* mask, const float* v, float* yp,
                                               int64_t oh0, int64_t oh1, int is_max) {
  const int64_t W = ip[P_W], OW = ip[P_OW];
  float* y = yp + oh0 * OW;
  if (ip[P_SW] > 2) {
    for (int64_t t = 0; t < oh1 - oh0; ++t) pool_window_cols_scalar(ip, v + t * W, y + t * OW, OW);
  } else if (l->flat) {
    pool_window_cols(ip, l, mask, v, y, (oh1 - oh0) * OW, is_max);
  } else {
    for (int64_t t = 0; t < oh1 - oh0; ++t)
      pool_window_cols(ip, l, mask, v + t * W, y + t * OW, OW, is_max);
  }
  if (is_max) return;
  for (int64_t oh = oh0; oh < oh1; ++oh) {
    const int64_t ih0 = oh * ip[P_SH] - ip[P_PT];
    int64_t kh0, kh1;
    kiln_window_range(ih0, ip[P_DH], ip[P_KH], 0, ip[P_H], &kh0, &kh1);
    pool_average_row(ip, yp + oh * OW, ih0, kh0, kh1);
  }
}

/* Planes [begin, end), separably, a block of output rows at a time:
 * window rows into v, then window columns. */
static KILN_ALWAYS_INLINE void pool_planes_separable(const int64_t* ip, const pool_layout* l,
                                                     const float* mask, const float* x,
                                                     float* y, int64_t begin, int64_t end,
                                                     float* v, int is_max) {
  const int64_t in_plane = ip[P_H] * ip[P_W], OH = ip[P_OH], out_plane = OH * ip[P_OW];
  for (int64_t p = begin; p < end; ++p) {
    for (int64_t oh0 = 0; oh0 < OH; oh0 += l->block_rows) {
      const int64_t oh1 = oh0 + l->block_rows < OH ? oh0 + l->block_rows : OH;
      pool_window_rows(ip, x + p * in_plane, v, oh0, oh1, is_max);
      pool_block_cols(ip, l, mask, v, y + p * out_plane, oh0, oh1, is_max);
    }
  }
}

/* One plane, tap by tap over whole output rows: the geometries whose rows
 * do not fit the separable path's buffer. */
static void pool_plane_direct(const int64_t* ip, const float* xp, float* yp) {
  const int64_t is_max = ip[P_KIND] == KILN_POOL_MAX;
  const int64_t H = ip[P_H], W = ip[P_W];
  const int64_t OH = ip[P_OH], OW = ip[P_OW], KH = ip[P_KH], KW = ip[P_KW];
  const int64_t SH = ip[P_SH], SW = ip[P_SW], PT = ip[P_PT], PL = ip[P_PL];
  const int64_t DH = ip[P_DH], DW = ip[P_DW];
  for (int64_t oh = 0; oh < OH; ++oh) {
    float* yr = yp + oh * OW;
    const int64_t ih0 = oh * SH - PT;
    int64_t kh0, kh1;
    kiln_window_range(ih0, DH, KH, 0, H, &kh0, &kh1);
    const float init = is_max ? -INFINITY : 0.0f;
    for (int64_t ow = 0; ow < OW; ++ow) yr[ow] = init;
    for (int64_t kh = kh0; kh < kh1; ++kh) {
      const float* xr = xp + (ih0 + kh * DH) * W;
      for (int64_t kw = 0; kw < KW; ++kw) {
        const int64_t off = kw * DW - PL; /* iw = ow*SW + off */
        int64_t o0, o1;
        kiln_window_range(off, SW, OW, 0, W, &o0, &o1);
        if (is_max) {
          for (int64_t ow = o0; ow < o1; ++ow) {
            const float v = xr[ow * SW + off];
            yr[ow] = v > yr[ow] ? v : yr[ow];
          }
        } else {
          for (int64_t ow = o0; ow < o1; ++ow) yr[ow] += xr[ow * SW + off];
        }
      }
    }
    if (!is_max) pool_average_row(ip, yr, ih0, kh0, kh1);
  }
}

typedef struct pool_job {
  const int64_t* ip;
  const float* x;
  float* y;
  const pool_layout* layout; /* pool_planes_separable's, or NULL: the direct loop */
} pool_job;

static void pool_planes(void* ctx, int64_t begin, int64_t end) {
  const pool_job* j = (const pool_job*)ctx;
  const int64_t* ip = j->ip;
  const pool_layout* l = j->layout;
  if (l == NULL) {
    const int64_t in_plane = ip[P_H] * ip[P_W], out_plane = ip[P_OH] * ip[P_OW];
    for (int64_t p = begin; p < end; ++p)
      pool_plane_direct(ip, j->x + p * in_plane, j->y + p * out_plane);
    return;
  }
  float buf[KILN_POOL_BUF] KILN_ALIGN64;
  /* Margins and rows past a short last block are read only into masked
   * lanes; zeros keep those reads defined. */
  for (int64_t i = 0; i < KILN_POOL_BUF; ++i) buf[i] = 0.0f;
  pool_column_masks(ip, l, buf);
  float* v = buf + ip[P_KW] * l->mask_stride + l->front;
  if (ip[P_KIND] == KILN_POOL_MAX) pool_planes_separable(ip, l, buf, j->x, j->y, begin, end, v, 1);
  else pool_planes_separable(ip, l, buf, j->x, j->y, begin, end, v, 0);
}

/* Runs `body` over `tasks` (planes, or NHWC rows) of the layer: small
 * layers stay on one thread, where the hand-off would cost more. */
static void pool_run(const int64_t* ip, void* const* bindings, const kiln_host* host,
                     const pool_layout* layout, int64_t tasks,
                     void (*body)(void*, int64_t, int64_t)) {
  pool_job j;
  j.ip = ip;
  j.x = (const float*)bindings[0];
  j.y = (float*)bindings[1];
  j.layout = layout;
  const double work = (double)ip[P_N] * ip[P_C] * ip[P_OH] * ip[P_OW] * ip[P_KH] * ip[P_KW];
  kiln_run_tasks(host, tasks, work, (double)(1 << 18), body, &j);
}

int kiln_pool2d_f32(const int64_t* ip, const float* fp, void* const* bindings,
                    const kiln_host* host) {
  (void)fp;
  pool_layout l;
  pool_run(ip, bindings, host, separable_layout(ip, &l) ? &l : NULL, ip[P_N] * ip[P_C],
           pool_planes);
  return KILN_OK;
}

/* Channels [c0, c0 + nv * KV_LANES) of one output position: its window's
 * taps at xr + (kh * DH * W + kw * DW) * C over kh in [0, rows), kw in
 * [0, cols), nv (<= 4) independent chains so that the taps' max/add
 * latency overlaps; `lanes` < KV_LANES reads and writes only the first
 * lanes of a single vector. */
static KILN_ALWAYS_INLINE void pool_nhwc_taps(const float* xr, float* yo, int64_t row_step,
                                              int64_t col_step, int64_t rows, int64_t cols,
                                              int nv, int64_t lanes, kv count, int is_max) {
  const kv init = kv_set1(is_max ? -INFINITY : 0.0f);
  kv acc[4] = {init, init, init, init};
  for (int64_t kh = 0; kh < rows; ++kh) {
    const float* p = xr + kh * row_step;
    for (int64_t kw = 0; kw < cols; ++kw, p += col_step) {
      for (int v = 0; v < nv; ++v) {
        const kv x = lanes == KV_LANES ? kv_load(p + v * KV_LANES) : kv_load_n(p, lanes);
        acc[v] = is_max ? kv_max(x, acc[v]) : kv_add(acc[v], x);
      }
    }
  }
  for (int v = 0; v < nv; ++v) {
    const kv out = is_max ? acc[v] : kv_div(acc[v], count);
    if (lanes == KV_LANES) kv_store(yo + v * KV_LANES, out);
    else kv_store_n(yo, out, lanes);
  }
}

/* pool2d_nhwc_f32's rows: task t is output row t % OH of image t / OH. Each
 * output position combines its window's taps (kh, then kw, inside the
 * input only) with the channels in the vector lanes, four vectors at a
 * time; an average divides by the count pool_average_row would use (a
 * window wholly in the padding averages nothing: 0). */
static KILN_ALWAYS_INLINE void pool_nhwc_rows_body(const pool_job* j, int64_t begin, int64_t end,
                                                   int is_max) {
  const int64_t* ip = j->ip;
  const int64_t C = ip[P_C], H = ip[P_H], W = ip[P_W], OH = ip[P_OH], OW = ip[P_OW];
  const int64_t KH = ip[P_KH], KW = ip[P_KW], SH = ip[P_SH], SW = ip[P_SW];
  const int64_t PT = ip[P_PT], PL = ip[P_PL], DH = ip[P_DH], DW = ip[P_DW];
  const int cip = (int)ip[P_CIP];
  const int64_t row_step = DH * W * C, col_step = DW * C;
  for (int64_t t = begin; t < end; ++t) {
    const int64_t n = t / OH, oh = t % OH, ih0 = oh * SH - PT;
    int64_t kh0, kh1;
    kiln_window_range(ih0, DH, KH, 0, H, &kh0, &kh1);
    const int64_t rows =
        cip ? kiln_window_count(ih0, DH, KH, -PT, H + ip[P_PB]) : kh1 - kh0;
    const float* xn = j->x + n * H * W * C;
    float* yr = j->y + (n * OH + oh) * OW * C;
    for (int64_t ow = 0; ow < OW; ++ow) {
      const int64_t iw0 = ow * SW - PL;
      int64_t kw0, kw1;
      kiln_window_range(iw0, DW, KW, 0, W, &kw0, &kw1);
      const int64_t cols =
          cip ? kiln_window_count(iw0, DW, KW, -PL, W + ip[P_PR]) : kw1 - kw0;
      const kv count = kv_set1((float)(rows * cols));
      const int64_t taps_h = kh1 - kh0, taps_w = kw1 - kw0;
      float* yo = yr + ow * C;
      if (taps_h * taps_w == 0) { /* wholly in the padding: -inf, or an average of 0 */
        for (int64_t c = 0; c < C; ++c) yo[c] = is_max ? -INFINITY : 0.0f;
        continue;
      }
      const float* xr = xn + ((ih0 + kh0 * DH) * W + iw0 + kw0 * DW) * C;
      int64_t c0 = 0;
      for (; c0 + 4 * KV_LANES <= C; c0 += 4 * KV_LANES)
        pool_nhwc_taps(xr + c0, yo + c0, row_step, col_step, taps_h, taps_w, 4, KV_LANES, count,
                       is_max);
      for (; c0 + KV_LANES <= C; c0 += KV_LANES)
        pool_nhwc_taps(xr + c0, yo + c0, row_step, col_step, taps_h, taps_w, 1, KV_LANES, count,
                       is_max);
      if (c0 < C)
        pool_nhwc_taps(xr + c0, yo + c0, row_step, col_step, taps_h, taps_w, 1, C - c0, count,
                       is_max);
    }
  }
}

static void pool_nhwc_rows(void* ctx, int64_t begin, int64_t end) {
  const pool_job* j = (const pool_job*)ctx;
  if (j->ip[P_KIND] == KILN_POOL_MAX) pool_nhwc_rows_body(j, begin, end, 1);
  else pool_nhwc_rows_body(j, begin, end, 0);
}

int kiln_pool2d_nhwc_f32(const int64_t* ip, const float* fp, void* const* bindings,
                         const kiln_host* host) {
  (void)fp;
  pool_run(ip, bindings, host, NULL, ip[P_N] * ip[P_OH], pool_nhwc_rows);
  return KILN_OK;
}

/* One spatial axis with explicit pads: `out` may be the floor-mode count or
 * anything up to the ceil-mode count, as long as the last window starts
 * inside the padded input. Also keeps every index the kernel forms in int64. */
static int pool_axis_check(int64_t in, int64_t k, int64_t stride, int64_t pad0,
                           int64_t pad1, int64_t dil, int64_t out) {
  int64_t ek, padded, t;
  KILN_TRY(kiln_checked_mul(k - 1, dil, &ek));
  KILN_TRY(kiln_checked_add(ek, 1, &ek));
  KILN_TRY(kiln_checked_add(in, pad0, &padded));
  KILN_TRY(kiln_checked_add(padded, pad1, &padded));
  if (padded < ek) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t floor_out = (padded - ek) / stride + 1;
  const int64_t ceil_out = floor_out + ((padded - ek) % stride != 0);
  if (out < floor_out || out > ceil_out) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_checked_mul(out, stride, &t));
  if (t - stride >= padded) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_checked_add(t, ek, &t));
  KILN_TRY(kiln_checked_add(t, padded, &t));
  KILN_TRY(kiln_checked_add(t, stride, &t));
  KILN_TRY(kiln_checked_add(t, dil, &t));
  return KILN_OK;
}

int kiln_pool2d_f32_check(const int64_t* ip, uint32_t iparam_count,
                          const float* fp, uint32_t fparam_count,
                          const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, P_COUNT, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, P_COUNT));
  KILN_TRY(kiln_check_enum(ip[P_KIND], KILN_POOL_MAX, KILN_POOL_AVG));
  KILN_TRY(kiln_check_enum(ip[P_CIP], 0, 1));
  if (ip[P_KH] == 0 || ip[P_KW] == 0 || ip[P_SH] == 0 || ip[P_SW] == 0 ||
      ip[P_DH] == 0 || ip[P_DW] == 0)
    return KILN_ERR_INVALID_ARGUMENT;
  int64_t taps; /* the average divisor is at most KH*KW */
  KILN_TRY(kiln_checked_mul(ip[P_KH], ip[P_KW], &taps));
  KILN_TRY(pool_axis_check(ip[P_H], ip[P_KH], ip[P_SH], ip[P_PT], ip[P_PB],
                           ip[P_DH], ip[P_OH]));
  KILN_TRY(pool_axis_check(ip[P_W], ip[P_KW], ip[P_SW], ip[P_PL], ip[P_PR],
                           ip[P_DW], ip[P_OW]));
  const int64_t loops[6] = {ip[P_N], ip[P_C], ip[P_OH], ip[P_OW], ip[P_KH], ip[P_KW]};
  KILN_TRY(kiln_check_work(loops, 6));
  const int64_t x_dims[4] = {ip[P_N], ip[P_C], ip[P_H], ip[P_W]};
  const int64_t y_dims[4] = {ip[P_N], ip[P_C], ip[P_OH], ip[P_OW]};
  int64_t in_count, out_count;
  KILN_TRY(kiln_checked_product(x_dims, 4, &in_count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[0], in_count));
  KILN_TRY(kiln_checked_product(y_dims, 4, &out_count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[1], out_count));
  /* Taps in the padding read nothing: at most KILN_MAX_REUSE reads per element. */
  return kiln_check_reuse(kiln_work_of(loops, 6), in_count + out_count);
}

/* The same parameters and binding sizes as pool2d_f32: only the order of
 * the elements differs. */
int kiln_pool2d_nhwc_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                               uint32_t fparam_count, const uint64_t* binding_bytes) {
  return kiln_pool2d_f32_check(ip, iparam_count, fp, fparam_count, binding_bytes);
}

/* A global average pool sums each channel in KILN_GLOBAL_POOL_BLOCKS blocks
 * of pixels, each in index order, and adds the blocks' sums in block order:
 * threads then each reduce their own rows of the image, and the NCHW and
 * NHWC kernels give the same bits on any partition. */
#define KILN_GLOBAL_POOL_BLOCKS 4

/* One past block b's last pixel of `spatial` (0 for b = -1). */
static inline int64_t kiln_global_pool_block_end(int64_t spatial, int64_t b) {
  return spatial * (b + 1) / KILN_GLOBAL_POOL_BLOCKS;
}

int kiln_global_pool_f32(const int64_t* ip, const float* fp, void* const* bindings,
                         const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t rows = ip[KILN_IP_GLOBAL_POOL_F32_ROWS],
                spatial = ip[KILN_IP_GLOBAL_POOL_F32_SPATIAL];
  const float* x = (const float*)bindings[0];
  float* y = (float*)bindings[1];
  if (ip[KILN_IP_GLOBAL_POOL_F32_KIND] == KILN_POOL_MAX) {
    for (int64_t r = 0; r < rows; ++r) {
      const float* xr = x + r * spatial;
      float m = -INFINITY;
      for (int64_t i = 0; i < spatial; ++i) m = xr[i] > m ? xr[i] : m;
      y[r] = m;
    }
  } else {
    /* Eight rows at a time: eight independent chains of adds instead of
     * one. Each row is summed as global_pool_nhwc_f32 sums a channel: per
     * block of pixels in index order, the blocks' sums in block order. */
    int64_t r = 0;
    for (; r + 8 <= rows; r += 8) {
      float s[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
      for (int64_t b = 0; b < KILN_GLOBAL_POOL_BLOCKS; ++b) {
        float t[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
        const int64_t i1 = kiln_global_pool_block_end(spatial, b);
        for (int64_t i = kiln_global_pool_block_end(spatial, b - 1); i < i1; ++i)
          for (int q = 0; q < 8; ++q) t[q] += x[(r + q) * spatial + i];
        for (int q = 0; q < 8; ++q) s[q] += t[q];
      }
      for (int q = 0; q < 8; ++q) y[r + q] = spatial > 0 ? s[q] / (float)spatial : NAN;
    }
    for (; r < rows; ++r) {
      const float* xr = x + r * spatial;
      float s = 0.0f;
      for (int64_t b = 0; b < KILN_GLOBAL_POOL_BLOCKS; ++b) {
        float t = 0.0f;
        const int64_t i1 = kiln_global_pool_block_end(spatial, b);
        for (int64_t i = kiln_global_pool_block_end(spatial, b - 1); i < i1; ++i) t += xr[i];
        s += t;
      }
      y[r] = spatial > 0 ? s / (float)spatial : NAN; /* mean of nothing */
    }
  }
  return KILN_OK;
}

_Static_assert(KILN_IP_GLOBAL_POOL_F32_SPATIAL == KILN_IP_GLOBAL_POOL_F32_ROWS + 1,
               "rows and spatial are consecutive (the checker's product)");

int kiln_global_pool_f32_check(const int64_t* ip, uint32_t iparam_count,
                               const float* fp, uint32_t fparam_count,
                               const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, KILN_GLOBAL_POOL_F32_IPARAMS, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, KILN_GLOBAL_POOL_F32_IPARAMS));
  KILN_TRY(kiln_check_enum(ip[KILN_IP_GLOBAL_POOL_F32_KIND], KILN_POOL_MAX, KILN_POOL_AVG));
  /* Work is bounded by the bindings: rows by Y (written even when spatial
   * is 0), rows x spatial by X. */
  int64_t count;
  KILN_TRY(kiln_checked_product(ip + KILN_IP_GLOBAL_POOL_F32_ROWS, 2, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[0], count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[1], ip[KILN_IP_GLOBAL_POOL_F32_ROWS]));
  return KILN_OK;
}

/* Channels of one image whose block results global_pool_nhwc_f32 keeps on
 * the stack at a time (4 KiB). */
#define GLOBAL_POOL_SLAB 256

/* One block of pixels of an NHWC image, channels [c0, c0 + w) of C: for
 * each channel its max, or its sum in pixel order, into out[0 .. w). */
typedef struct gpool_job {
  const float* x; /* the image */
  int64_t spatial, C, c0, w;
  int is_max;
  float (*out)[GLOBAL_POOL_SLAB]; /* out[b]: block b's results */
} gpool_job;

static void gpool_block(const gpool_job* j, int64_t b) {
  const int64_t p0 = kiln_global_pool_block_end(j->spatial, b - 1),
                p1 = kiln_global_pool_block_end(j->spatial, b), C = j->C;
  float* out = j->out[b];
  /* 4 vectors of channels at a time, their chains in registers. */
  for (int64_t c = 0; c < j->w; c += 4 * KV_LANES) {
    int64_t n[4];
    kv acc[4];
    for (int v = 0; v < 4; ++v) {
      const int64_t left = j->w - c - KV_LANES * v;
      n[v] = left >= KV_LANES ? KV_LANES : left > 0 ? left : 0;
      acc[v] = j->is_max ? kv_set1(-INFINITY) : kv_zero();
    }
    const float* px = j->x + p0 * C + j->c0 + c;
    if (n[3] == KV_LANES && j->is_max) {
      for (int64_t i = p0; i < p1; ++i, px += C)
        for (int v = 0; v < 4; ++v) acc[v] = kv_max(kv_load(px + KV_LANES * v), acc[v]);
    } else if (n[3] == KV_LANES) {
      for (int64_t i = p0; i < p1; ++i, px += C)
        for (int v = 0; v < 4; ++v) acc[v] = kv_add(acc[v], kv_load(px + KV_LANES * v));
    } else {
      for (int64_t i = p0; i < p1; ++i, px += C)
        for (int v = 0; v < 4 && n[v] > 0; ++v) {
          const float* p = px + KV_LANES * v;
          const kv x = n[v] == KV_LANES ? kv_load(p) : kv_load_n(p, n[v]);
          acc[v] = j->is_max ? kv_max(x, acc[v]) : kv_add(acc[v], x);
        }
    }
    for (int v = 0; v < 4 && n[v] > 0; ++v) {
      if (n[v] == KV_LANES) kv_store(out + c + KV_LANES * v, acc[v]);
      else kv_store_n(out + c + KV_LANES * v, acc[v], n[v]);
    }
  }
}

static void gpool_blocks(void* ctx, int64_t begin, int64_t end) {
  for (int64_t b = begin; b < end; ++b) gpool_block((const gpool_job*)ctx, b);
}

int kiln_global_pool_nhwc_f32(const int64_t* ip, const float* fp, void* const* bindings,
                              const kiln_host* host) {
  (void)fp;
  const int64_t N = ip[KILN_IP_GLOBAL_POOL_NHWC_F32_N],
                spatial = ip[KILN_IP_GLOBAL_POOL_NHWC_F32_SPATIAL],
                C = ip[KILN_IP_GLOBAL_POOL_NHWC_F32_C];
  const float* x = (const float*)bindings[0];
  float* y = (float*)bindings[1];
  float out[KILN_GLOBAL_POOL_BLOCKS][GLOBAL_POOL_SLAB];
  gpool_job j;
  j.spatial = spatial, j.C = C, j.out = out;
  j.is_max = ip[KILN_IP_GLOBAL_POOL_NHWC_F32_KIND] == KILN_POOL_MAX;
  for (int64_t n = 0; n < N; ++n) {
    j.x = x + n * spatial * C;
    float* yn = y + n * C;
    for (j.c0 = 0; j.c0 < C; j.c0 += GLOBAL_POOL_SLAB) {
      j.w = C - j.c0 < GLOBAL_POOL_SLAB ? C - j.c0 : GLOBAL_POOL_SLAB;
      /* On threads, blocks of pixels in order: each thread reduces the rows
       * the layer before (split by rows) wrote on it. */
      kiln_run_tasks(host, KILN_GLOBAL_POOL_BLOCKS, (double)spatial * (double)j.w,
                     (double)(1 << 16), gpool_blocks, &j);
      for (int64_t c = 0; c < j.w; ++c) {
        float s = j.is_max ? -INFINITY : 0.0f;
        for (int64_t b = 0; b < KILN_GLOBAL_POOL_BLOCKS; ++b)
          s = j.is_max ? (out[b][c] > s ? out[b][c] : s) : s + out[b][c];
        yn[j.c0 + c] = j.is_max ? s : spatial > 0 ? s / (float)spatial : NAN; /* mean of nothing */
      }
    }
  }
  return KILN_OK;
}

int kiln_global_pool_nhwc_f32_check(const int64_t* ip, uint32_t iparam_count,
                                    const float* fp, uint32_t fparam_count,
                                    const uint64_t* binding_bytes) {
  KILN_TRY(
      kiln_check_counts(ip, iparam_count, KILN_GLOBAL_POOL_NHWC_F32_IPARAMS, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, KILN_GLOBAL_POOL_NHWC_F32_IPARAMS));
  KILN_TRY(kiln_check_enum(ip[KILN_IP_GLOBAL_POOL_NHWC_F32_KIND], KILN_POOL_MAX, KILN_POOL_AVG));
  const int64_t x_dims[3] = {ip[KILN_IP_GLOBAL_POOL_NHWC_F32_N],
                             ip[KILN_IP_GLOBAL_POOL_NHWC_F32_SPATIAL],
                             ip[KILN_IP_GLOBAL_POOL_NHWC_F32_C]},
                y_dims[2] = {ip[KILN_IP_GLOBAL_POOL_NHWC_F32_N],
                             ip[KILN_IP_GLOBAL_POOL_NHWC_F32_C]};
  int64_t count;
  KILN_TRY(kiln_checked_product(x_dims, 3, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[0], count));
  KILN_TRY(kiln_checked_product(y_dims, 2, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[1], count));
  return KILN_OK;
}
