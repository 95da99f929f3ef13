/* grid_sample_f32: ONNX GridSample (opset 16) on 4-D float32 input, the
 * same arithmetic as torch.nn.functional.grid_sample, which the ONNX
 * operator defers to. Each output pixel reads (x, y) from the grid in
 * [-1, 1] units, maps it to input pixels, and interpolates every channel
 * from the same taps.
 *
 * The grid is run-time data, so every coordinate is made safe before it
 * becomes an index: a NaN one samples 0, everything else is clamped to
 * +-KILN_GS_FAR (exactly representable, and outside every image: the
 * checker refuses H or W beyond it, as the compiler does any dim) before the
 * float-to-int conversion, and each tap is bounds-checked against H and W
 * before it is read. */
#include <math.h>
#include <stdint.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"

enum {
  GS_N = KILN_IP_GRID_SAMPLE_F32_N,
  GS_C = KILN_IP_GRID_SAMPLE_F32_C,
  GS_H = KILN_IP_GRID_SAMPLE_F32_H,
  GS_W = KILN_IP_GRID_SAMPLE_F32_W,
  GS_OH = KILN_IP_GRID_SAMPLE_F32_OH,
  GS_OW = KILN_IP_GRID_SAMPLE_F32_OW,
  GS_MODE = KILN_IP_GRID_SAMPLE_F32_MODE,
  GS_PADDING = KILN_IP_GRID_SAMPLE_F32_PADDING,
  GS_ALIGN = KILN_IP_GRID_SAMPLE_F32_ALIGN_CORNERS,
  GS_COUNT = KILN_GRID_SAMPLE_F32_IPARAMS
};
_Static_assert(GS_C == GS_N + 1 && GS_H == GS_N + 2 && GS_W == GS_N + 3,
               "N, C, H and W are consecutive (the checker's product)");

#define KILN_GS_FAR 1099511627776.0f /* 2^40 */
#define KILN_GS_MAX_DIM (INT64_C(1) << 40)
#define KILN_GS_CUBIC_A (-0.75f)

/* One spatial axis of the input: its size and how grid units map onto it. */
typedef struct gs_axis {
  int64_t size;
  float scale, shift; /* pixel = (g + 1) * scale + shift */
  float lo, hi;       /* reflection bounds, in pixels */
  int padding;
} gs_axis;

static gs_axis gs_make_axis(int64_t size, int padding, int align) {
  gs_axis a;
  a.size = size;
  a.padding = padding;
  if (align) {
    /* -1 and 1 are the centres of the corner pixels. */
    a.scale = (float)(size - 1) / 2.0f;
    a.shift = 0.0f;
    a.lo = 0.0f;
    a.hi = (float)(size - 1);
  } else {
    /* -1 and 1 are the outer edges of the corner pixels. */
    a.scale = (float)size / 2.0f;
    a.shift = -0.5f;
    a.lo = -0.5f;
    a.hi = (float)size - 0.5f;
  }
  return a;
}

/* NaN stays NaN (it never compares), so the caller can refuse it. */
static float gs_clip(float c, float hi) { return c < 0.0f ? 0.0f : (c > hi ? hi : c); }

/* Folds c back into [lo, hi] as many times as it takes; +-inf has no
 * defined fold and becomes NaN. */
static float gs_reflect(float c, float lo, float hi) {
  const float span = hi - lo;
  if (!(span > 0.0f)) return lo;
  const float r = fmodf(fabsf(c - lo), 2.0f * span);
  return (r <= span ? r : 2.0f * span - r) + lo;
}

/* The padding mode's coordinate mapping (zeros leaves c alone: its taps
 * outside the image are skipped instead). */
static float gs_pad(const gs_axis* a, float c) {
  const float last = (float)(a->size - 1);
  if (a->padding == KILN_GRID_SAMPLE_BORDER) return gs_clip(c, last);
  if (a->padding == KILN_GRID_SAMPLE_REFLECTION) return gs_clip(gs_reflect(c, a->lo, a->hi), last);
  return c;
}

/* c (not NaN) limited to +-KILN_GS_FAR, where converting to int64 is defined. */
static float gs_near(float c) {
  return c < -KILN_GS_FAR ? -KILN_GS_FAR : (c > KILN_GS_FAR ? KILN_GS_FAR : c);
}

/* floor(c) as an index, or -1 when outside [0, size). c is not NaN. */
static int64_t gs_index(const gs_axis* a, float c) {
  const int64_t i = (int64_t)floorf(gs_near(c));
  return (i >= 0 && i < a->size) ? i : -1;
}

static float gs_cubic_near(float t) { /* |t| <= 1 */
  return ((KILN_GS_CUBIC_A + 2.0f) * t - (KILN_GS_CUBIC_A + 3.0f)) * t * t + 1.0f;
}

static float gs_cubic_far(float t) { /* 1 < |t| < 2 */
  return ((KILN_GS_CUBIC_A * t - 5.0f * KILN_GS_CUBIC_A) * t + 8.0f * KILN_GS_CUBIC_A) * t -
         4.0f * KILN_GS_CUBIC_A;
}

/* The taps along one axis for grid value g: idx[k] (-1 = reads 0) with
 * weight w[k], k < the mode's tap count. Returns 0 when the sample is NaN. */
static int gs_taps(const gs_axis* a, int mode, float g, int64_t idx[4], float w[4]) {
  float c = (g + 1.0f) * a->scale + a->shift;
  if (mode == KILN_GRID_SAMPLE_BICUBIC) {
    /* The padding applies to each tap, not to the sample point. */
    if (isnan(c) || (isinf(c) && a->padding == KILN_GRID_SAMPLE_REFLECTION)) return 0;
    c = gs_near(c);
    const float c0 = floorf(c), t = c - c0;
    w[0] = gs_cubic_far(t + 1.0f);
    w[1] = gs_cubic_near(t);
    w[2] = gs_cubic_near(1.0f - t);
    w[3] = gs_cubic_far(2.0f - t);
    for (int k = 0; k < 4; ++k) {
      const float p = gs_pad(a, c0 + (float)(k - 1));
      idx[k] = isnan(p) ? -1 : gs_index(a, p);
    }
    return 1;
  }
  c = gs_pad(a, c);
  if (isnan(c)) return 0;
  c = gs_near(c); /* an infinite c would make the weights NaN */
  if (mode == KILN_GRID_SAMPLE_NEAREST) {
    /* Ties to even, as the default rounding mode does. */
    idx[0] = gs_index(a, nearbyintf(c));
    w[0] = 1.0f;
    return 1;
  }
  const float c0 = floorf(c), t = c - c0;
  idx[0] = gs_index(a, c0);
  idx[1] = gs_index(a, c0 + 1.0f);
  w[0] = 1.0f - t;
  w[1] = t;
  return 1;
}

int kiln_grid_sample_f32(const int64_t* ip, const float* fp, void* const* bindings,
                         const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t N = ip[GS_N], C = ip[GS_C], H = ip[GS_H], W = ip[GS_W];
  const int64_t OH = ip[GS_OH], OW = ip[GS_OW];
  const int mode = (int)ip[GS_MODE];
  const int taps = mode == KILN_GRID_SAMPLE_BICUBIC ? 4 : mode == KILN_GRID_SAMPLE_NEAREST ? 1 : 2;
  const gs_axis ax = gs_make_axis(W, (int)ip[GS_PADDING], ip[GS_ALIGN] != 0);
  const gs_axis ay = gs_make_axis(H, (int)ip[GS_PADDING], ip[GS_ALIGN] != 0);
  const float* x = (const float*)bindings[0];
  const float* grid = (const float*)bindings[1];
  float* y = (float*)bindings[2];
  const int64_t plane = H * W, out_plane = OH * OW;
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t p = 0; p < out_plane; ++p) {
      const float* g = grid + (n * out_plane + p) * 2;
      int64_t xi[4] = {-1, -1, -1, -1}, yi[4] = {-1, -1, -1, -1};
      float wx[4] = {0, 0, 0, 0}, wy[4] = {0, 0, 0, 0};
      const int ok = gs_taps(&ax, mode, g[0], xi, wx) && gs_taps(&ay, mode, g[1], yi, wy);
      for (int64_t c = 0; c < C; ++c) {
        const float* src = x + (n * C + c) * plane;
        float acc = 0.0f;
        for (int i = 0; ok && i < taps; ++i) {
          if (yi[i] < 0) continue;
          const float* row = src + yi[i] * W;
          float r = 0.0f;
          for (int j = 0; j < taps; ++j) {
            if (xi[j] >= 0) r += wx[j] * row[xi[j]];
          }
          acc += wy[i] * r;
        }
        y[(n * C + c) * out_plane + p] = acc;
      }
    }
  }
  return KILN_OK;
}

int kiln_grid_sample_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                               uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, GS_COUNT, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, GS_COUNT));
  KILN_TRY(kiln_check_enum(ip[GS_MODE], KILN_GRID_SAMPLE_BILINEAR, KILN_GRID_SAMPLE_BICUBIC));
  KILN_TRY(kiln_check_enum(ip[GS_PADDING], KILN_GRID_SAMPLE_ZEROS, KILN_GRID_SAMPLE_REFLECTION));
  KILN_TRY(kiln_check_enum(ip[GS_ALIGN], 0, 1));
  if (ip[GS_H] > KILN_GS_MAX_DIM || ip[GS_W] > KILN_GS_MAX_DIM) return KILN_ERR_OUT_OF_RANGE;
  /* Loops: n, output pixel, channel (taps are at most 16 per channel). An
   * empty X leaves them bounded by nothing else. */
  const int64_t loops[4] = {ip[GS_N], ip[GS_OH], ip[GS_OW], ip[GS_C]};
  KILN_TRY(kiln_check_work(loops, 4));
  int64_t count;
  KILN_TRY(kiln_checked_product(ip + GS_N, 4, &count)); /* N C H W */
  KILN_TRY(kiln_check_f32_binding(binding_bytes[0], count));
  const int64_t grid_dims[4] = {ip[GS_N], ip[GS_OH], ip[GS_OW], 2};
  KILN_TRY(kiln_checked_product(grid_dims, 4, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[1], count));
  const int64_t out_dims[4] = {ip[GS_N], ip[GS_C], ip[GS_OH], ip[GS_OW]};
  KILN_TRY(kiln_checked_product(out_dims, 4, &count));
  return kiln_check_f32_binding(binding_bytes[2], count);
}
