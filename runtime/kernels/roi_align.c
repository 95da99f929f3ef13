/* roi_align_f32: ONNX RoiAlign (opset 10 and 16) as the ONNX reference
 * computes it. Each output bin of each region averages (mode avg) or takes
 * the largest of (mode max) a grid of bilinear samples; a sample more than
 * one pixel outside the feature map counts as 0. In max mode a sample is the
 * largest of its four weighted corner values (w * x), not their weighted
 * sum: that is how ONNX defines the op. The regions and their batch indices
 * arrive at run time: a batch index outside [0, N), or an adaptive sampling
 * grid (sampling_ratio 0) that is not finite or too large to compute, fails
 * with KILN_ERR_INDEX_OUT_OF_RANGE before anything is written. */
#include <math.h>
#include <stdint.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"

enum {
  RA_N = KILN_IP_ROI_ALIGN_F32_N,
  RA_C = KILN_IP_ROI_ALIGN_F32_C,
  RA_H = KILN_IP_ROI_ALIGN_F32_H,
  RA_W = KILN_IP_ROI_ALIGN_F32_W,
  RA_ROIS = KILN_IP_ROI_ALIGN_F32_NUM_ROIS,
  RA_OH = KILN_IP_ROI_ALIGN_F32_OH,
  RA_OW = KILN_IP_ROI_ALIGN_F32_OW,
  RA_SAMPLING = KILN_IP_ROI_ALIGN_F32_SAMPLING_RATIO,
  RA_MODE = KILN_IP_ROI_ALIGN_F32_MODE,
  RA_HALF_PIXEL = KILN_IP_ROI_ALIGN_F32_HALF_PIXEL,
  RA_COUNT = KILN_ROI_ALIGN_F32_IPARAMS
};
_Static_assert(RA_C == RA_N + 1 && RA_H == RA_N + 2 && RA_W == RA_N + 3,
               "N, C, H and W are consecutive (the checker's product)");

/* One region in feature-map coordinates and its sampling grid. */
typedef struct {
  float start_h, start_w, bin_h, bin_w;
  int64_t grid_h, grid_w;
} ra_region;

/* The grid along one side: sampling_ratio, or ceil(extent / bins) (at
 * least 0; a reversed region has no samples). Refused when that is NaN,
 * infinite or beyond `limit`. */
static int ra_grid(float extent, int64_t bins, int64_t sampling, int64_t limit, int64_t* out) {
  if (sampling > 0) {
    *out = sampling;
    return KILN_OK;
  }
  const double g = ceil((double)extent / (double)bins);
  if (!(g <= (double)limit) || isinf(g)) return KILN_ERR_INDEX_OUT_OF_RANGE;
  *out = g > 0.0 ? (int64_t)g : 0;
  return KILN_OK;
}

static int ra_region_of(const int64_t* ip, float scale, const float* roi, int64_t limit,
                        ra_region* r) {
  const float offset = ip[RA_HALF_PIXEL] ? 0.5f : 0.0f;
  const float x0 = roi[0] * scale - offset, y0 = roi[1] * scale - offset;
  const float x1 = roi[2] * scale - offset, y1 = roi[3] * scale - offset;
  float rw = x1 - x0, rh = y1 - y0;
  if (!ip[RA_HALF_PIXEL]) { /* output_half_pixel: malformed regions become 1x1; NaN stays */
    rw = 1.0f > rw ? 1.0f : rw;
    rh = 1.0f > rh ? 1.0f : rh;
  }
  r->start_h = y0;
  r->start_w = x0;
  r->bin_h = rh / (float)ip[RA_OH];
  r->bin_w = rw / (float)ip[RA_OW];
  KILN_TRY(ra_grid(rh, ip[RA_OH], ip[RA_SAMPLING], limit, &r->grid_h));
  KILN_TRY(ra_grid(rw, ip[RA_OW], ip[RA_SAMPLING], limit, &r->grid_w));
  if (r->grid_w > 0 && r->grid_h > limit / r->grid_w) return KILN_ERR_INDEX_OUT_OF_RANGE;
  return KILN_OK;
}

/* Bilinear corners and weights of the sample at (y, x); all zero (reading
 * element 0) outside [-1, H] x [-1, W]. NaN coordinates count as outside. */
static void ra_sample(float y, float x, int64_t H, int64_t W, int64_t pos[4], float w[4]) {
  if (!(y >= -1.0f && y <= (float)H && x >= -1.0f && x <= (float)W)) {
    for (int i = 0; i < 4; ++i) pos[i] = 0, w[i] = 0.0f;
    return;
  }
  if (y < 0.0f) y = 0.0f;
  if (x < 0.0f) x = 0.0f;
  int64_t y_lo = (int64_t)y, x_lo = (int64_t)x, y_hi, x_hi;
  if (y_lo >= H - 1) {
    y_hi = y_lo = H - 1;
    y = (float)y_lo;
  } else {
    y_hi = y_lo + 1;
  }
  if (x_lo >= W - 1) {
    x_hi = x_lo = W - 1;
    x = (float)x_lo;
  } else {
    x_hi = x_lo + 1;
  }
  const float ly = y - (float)y_lo, lx = x - (float)x_lo;
  const float hy = 1.0f - ly, hx = 1.0f - lx;
  pos[0] = y_lo * W + x_lo;
  pos[1] = y_lo * W + x_hi;
  pos[2] = y_hi * W + x_lo;
  pos[3] = y_hi * W + x_hi;
  w[0] = hy * hx;
  w[1] = hy * lx;
  w[2] = ly * hx;
  w[3] = ly * lx;
}

static float ra_max4(float a, float b, float c, float d) {
  float m = a;
  if (b > m) m = b;
  if (c > m) m = c;
  if (d > m) m = d;
  return m;
}

int kiln_roi_align_f32(const int64_t* ip, const float* fp, void* const* b,
                       const kiln_host* host) {
  (void)host;
  const int64_t N = ip[RA_N], C = ip[RA_C], H = ip[RA_H], W = ip[RA_W];
  const int64_t rois = ip[RA_ROIS], OH = ip[RA_OH], OW = ip[RA_OW];
  const int is_max = ip[RA_MODE] == 1;
  const float* x = (const float*)b[0];
  const float* roi = (const float*)b[1];
  const int64_t* batch = (const int64_t*)b[2];
  float* y = (float*)b[3];
  const int64_t bins = OH * OW, plane = H * W;
  if (rois == 0 || C == 0 || bins == 0) return KILN_OK;
  /* Samples per bin such that all the work stays within KILN_MAX_WORK. */
  const int64_t limit = KILN_MAX_WORK / (rois * C * bins);
  ra_region r;
  for (int64_t n = 0; n < rois; ++n) { /* refuse before writing anything */
    if (batch[n] < 0 || batch[n] >= N) return KILN_ERR_INDEX_OUT_OF_RANGE;
    KILN_TRY(ra_region_of(ip, fp[KILN_FP_ROI_ALIGN_F32_SPATIAL_SCALE], roi + 4 * n, limit, &r));
  }
  for (int64_t n = 0; n < rois; ++n) {
    (void)ra_region_of(ip, fp[KILN_FP_ROI_ALIGN_F32_SPATIAL_SCALE], roi + 4 * n, limit, &r);
    const float* xb = x + batch[n] * C * plane;
    float* yn = y + n * C * bins;
    const int64_t count = r.grid_h * r.grid_w > 1 ? r.grid_h * r.grid_w : 1;
    for (int64_t ph = 0; ph < OH; ++ph) {
      for (int64_t pw = 0; pw < OW; ++pw) {
        float* yb = yn + ph * OW + pw;
        for (int64_t c = 0; c < C; ++c) yb[c * bins] = 0.0f;
        for (int64_t iy = 0; iy < r.grid_h; ++iy) {
          const float sy = r.start_h + (float)ph * r.bin_h +
                           ((float)iy + 0.5f) * r.bin_h / (float)r.grid_h;
          for (int64_t ix = 0; ix < r.grid_w; ++ix) {
            const float sx = r.start_w + (float)pw * r.bin_w +
                             ((float)ix + 0.5f) * r.bin_w / (float)r.grid_w;
            int64_t pos[4];
            float w[4];
            ra_sample(sy, sx, H, W, pos, w);
            const int first = iy == 0 && ix == 0;
            for (int64_t c = 0; c < C; ++c) {
              const float* xc = xb + c * plane;
              float* out = yb + c * bins;
              if (is_max) {
                const float v = ra_max4(w[0] * xc[pos[0]], w[1] * xc[pos[1]],
                                        w[2] * xc[pos[2]], w[3] * xc[pos[3]]);
                *out = first || v > *out ? v : *out;
              } else {
                *out += w[0] * xc[pos[0]] + w[1] * xc[pos[1]] + w[2] * xc[pos[2]] +
                        w[3] * xc[pos[3]];
              }
            }
          }
        }
        if (!is_max) {
          for (int64_t c = 0; c < C; ++c) yb[c * bins] /= (float)count;
        }
      }
    }
  }
  return KILN_OK;
}

int kiln_roi_align_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                             uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, RA_COUNT, fp, fparam_count,
                             KILN_ROI_ALIGN_F32_FPARAMS));
  KILN_TRY(kiln_check_nonneg(ip, RA_COUNT));
  KILN_TRY(kiln_check_enum(ip[RA_MODE], 0, 1));
  KILN_TRY(kiln_check_enum(ip[RA_HALF_PIXEL], 0, 1));
  /* Samples clamp into a non-empty map; output bins divide the region. */
  if (ip[RA_N] < 1 || ip[RA_H] < 1 || ip[RA_W] < 1 || ip[RA_OH] < 1 || ip[RA_OW] < 1) {
    return KILN_ERR_INVALID_ARGUMENT;
  }
  int64_t count, bytes;
  KILN_TRY(kiln_checked_product(ip + RA_N, 4, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[0], count));
  KILN_TRY(kiln_checked_mul(ip[RA_ROIS], 4, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[1], count));
  KILN_TRY(kiln_dense_bytes(ip[RA_ROIS], 8, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[2], bytes));
  const int64_t out[4] = {ip[RA_ROIS], ip[RA_C], ip[RA_OH], ip[RA_OW]};
  KILN_TRY(kiln_checked_product(out, 4, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[3], count));
  /* A fixed sampling grid's work; adaptive grids are bounded at run time. */
  const int64_t s = ip[RA_SAMPLING] > 0 ? ip[RA_SAMPLING] : 1;
  const int64_t loops[6] = {ip[RA_ROIS], ip[RA_OH], ip[RA_OW], s, s, ip[RA_C]};
  return kiln_check_work(loops, 6);
}
