/* The Resize sampling math shared by the compiler (compiler/emit/
 * lower_resize.cc builds resize_f32's tap tables with it from compile-time
 * scales) and resize_rt_f32 (resize_rt.c, taps computed per output
 * coordinate from scales/roi read at run time), so the two cannot drift.
 * It follows the ONNX reference (onnx/backend/test/case/node/resize.py):
 * output coordinate o maps to x_ori by the coordinate transformation mode;
 * the taps are the n input positions nearest to x_ori (n = 2 for
 * nearest/linear, 4 for cubic; ties to the lower one; edge clamped) with
 * coefficients from the fractional part. Shared by runtime/kernels and the
 * compiler, so public; an AOT bundle copies it with the other headers.
 * Plain C that also compiles as C++. */
#ifndef KILN_RESIZE_CORE_H_
#define KILN_RESIZE_CORE_H_

#include <math.h>
#include <stdint.h>

#include "kiln/kernel_abi.h"

/* Interpolation modes. */
enum { KILN_RESIZE_NEAREST = 0, KILN_RESIZE_LINEAR = 1, KILN_RESIZE_CUBIC = 2 };

/* nearest_mode. */
enum {
  KILN_RESIZE_ROUND_PREFER_FLOOR = 0,
  KILN_RESIZE_ROUND_PREFER_CEIL = 1,
  KILN_RESIZE_FLOOR = 2,
  KILN_RESIZE_CEIL = 3
};

/* coordinate_transformation_mode. */
enum {
  KILN_RESIZE_HALF_PIXEL = 0,
  KILN_RESIZE_ALIGN_CORNERS = 1,
  KILN_RESIZE_ASYMMETRIC = 2,
  KILN_RESIZE_TF_CROP_AND_RESIZE = 3,
  KILN_RESIZE_PYTORCH_HALF_PIXEL = 4,
  KILN_RESIZE_TF_HALF_PIXEL_FOR_NN = 5,
  KILN_RESIZE_HALF_PIXEL_SYMMETRIC = 6 /* opset 19 */
};

/* At most this many taps per axis (cubic). */
#define KILN_RESIZE_MAX_TAPS 4

/* How an axis is sampled: the op's attributes. */
typedef struct {
  int64_t mode;    /* KILN_RESIZE_NEAREST .. KILN_RESIZE_CUBIC */
  int64_t nearest; /* KILN_RESIZE_ROUND_PREFER_FLOOR .. KILN_RESIZE_CEIL */
  int64_t ctm;     /* KILN_RESIZE_HALF_PIXEL .. KILN_RESIZE_HALF_PIXEL_SYMMETRIC */
  int64_t exclude_outside;
  double cubic_a;
} kiln_resize_method;

/* Coefficients of the n = 2 (nearest, linear) or 4 (cubic) neighbours for
 * the fractional part `ratio` in (0, 1]; returns n. */
/* ONNX's output length for a scale: floor(in * scale), in double as the
 * reference computes it. 0 when the scale is not positive (or NaN) or the
 * length is beyond int64. */
static inline int kiln_resize_scaled_length(int64_t in, double scale, int64_t* out) {
  if (!(scale > 0)) return 0;
  const double v = floor((double)in * scale);
  if (!(v < 9223372036854775808.0)) return 0;
  *out = (int64_t)v;
  return 1;
}

static inline int kiln_resize_coeffs(const kiln_resize_method* m, double ratio, double* c) {
  if (m->mode == KILN_RESIZE_NEAREST) {
    int up; /* 1: the upper neighbour */
    if (ratio == 1.0) up = 1;
    else if (m->nearest == KILN_RESIZE_ROUND_PREFER_CEIL) up = ratio >= 0.5;
    else if (m->nearest == KILN_RESIZE_FLOOR) up = 0;
    else if (m->nearest == KILN_RESIZE_CEIL) up = 1;
    else up = ratio > 0.5; /* round_prefer_floor */
    c[0] = up ? 0.0 : 1.0;
    c[1] = up ? 1.0 : 0.0;
    return 2;
  }
  if (m->mode == KILN_RESIZE_LINEAR) {
    c[0] = 1 - ratio;
    c[1] = ratio;
    return 2;
  }
  const double a = m->cubic_a, r = ratio, q = 1 - ratio;
  c[0] = ((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a;
  c[1] = ((a + 2) * r - (a + 3)) * r * r + 1;
  c[2] = ((a + 2) * q - (a + 3)) * q * q + 1;
  c[3] = ((a * (q + 1) - 5 * a) * (q + 1) + 8 * a) * (q + 1) - 4 * a;
  return 4;
}

/* x_ori of output coordinate o on an axis of `in` input and `out` output
 * elements with `scale` (and, for tf_crop_and_resize, roi [start, end]). */
static inline double kiln_resize_source(const kiln_resize_method* m, int64_t in, int64_t out,
                                        double scale, int64_t o, double roi_start,
                                        double roi_end) {
  const double out_w = scale * (double)in, x = (double)o, span = (double)(in - 1);
  switch (m->ctm) {
    case KILN_RESIZE_ALIGN_CORNERS:
      return out_w == 1 ? 0.0 : x * span / (out_w - 1);
    case KILN_RESIZE_ASYMMETRIC:
      return x / scale;
    case KILN_RESIZE_TF_CROP_AND_RESIZE:
      return out == 1 ? 0.5 * (roi_start + roi_end) * span
                      : roi_start * span + x * (roi_end - roi_start) * span / (double)(out - 1);
    case KILN_RESIZE_PYTORCH_HALF_PIXEL:
      return out_w == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
    case KILN_RESIZE_TF_HALF_PIXEL_FOR_NN:
      return (x + 0.5) / scale;
    case KILN_RESIZE_HALF_PIXEL_SYMMETRIC: {
      /* half_pixel, shifted so that the rounding of the output size is
       * shared equally by both ends of the axis. */
      const double adjustment = (double)out / out_w;
      return 0.5 * (double)in * (1 - adjustment) + (x + 0.5) / scale - 0.5;
    }
    default: /* half_pixel */
      return (x + 0.5) / scale - 0.5;
  }
}

/* The taps of output coordinate o on one axis (in >= 1): index[t] with
 * weight[t], t < the count returned (1..KILN_RESIZE_MAX_TAPS), in ascending
 * neighbour order, zero weights dropped and repeated (edge-clamped) indices
 * merged. A single tap of index -1 marks a coordinate outside the input
 * (tf_crop_and_resize), whose element takes the extrapolation value. */
static inline int kiln_resize_axis_taps(const kiln_resize_method* m, int64_t in, int64_t out,
                                        double scale, int64_t o, double roi_start,
                                        double roi_end, int64_t* index, double* weight) {
  double xo = kiln_resize_source(m, in, out, scale, o, roi_start, roi_end);
  if (m->ctm == KILN_RESIZE_TF_CROP_AND_RESIZE && (xo < 0 || xo > (double)(in - 1))) {
    index[0] = -1;
    weight[0] = 1.0;
    return 1;
  }
  /* A crafted roi or scale can make xo NaN or huge; far outside the input
   * every tap clamps to an edge anyway, and int64 conversions stay defined. */
  if (!(fabs(xo) <= 1e12)) xo = isnan(xo) ? 0.0 : (xo < 0 ? -1e12 : 1e12);
  const double fl = floor(xo);
  const double ratio = xo == fl ? 1.0 : xo - fl;
  double c[KILN_RESIZE_MAX_TAPS];
  const int n = kiln_resize_coeffs(m, ratio, c);
  /* The n positions nearest to xo, ties to the lower one, in order. */
  const int64_t base = (int64_t)fl - (xo == fl ? n / 2 : n / 2 - 1);
  double sum = 0;
  for (int t = 0; t < n; ++t) {
    const int64_t idx = base + t;
    if (m->exclude_outside && (idx < 0 || idx >= in)) c[t] = 0;
    sum += c[t];
  }
  int count = 0;
  for (int t = 0; t < n; ++t) {
    const double w = m->exclude_outside && sum != 0 ? c[t] / sum : c[t];
    if (w == 0) continue;
    int64_t idx = base + t;
    idx = idx < 0 ? 0 : idx > in - 1 ? in - 1 : idx;
    int merged = 0;
    for (int k = 0; k < count; ++k) {
      if (index[k] == idx) weight[k] += w, merged = 1;
    }
    if (!merged) index[count] = idx, weight[count] = w, ++count;
  }
  if (count == 0) index[0] = 0, weight[0] = 0.0, count = 1;
  return count;
}

/* One output element: the sum over every combination of the R axes' taps
 * (idx[d][t], w[d][t], t < n[d]) of the weights' product times X at those
 * indices (istr: X's element strides); the extrapolation value where an
 * axis's taps mark the outside. Weights are float (resize_f32's tables
 * hold float), products and the sum double. */
static inline float kiln_resize_element(int64_t R, const int64_t* const* idx,
                                        const float* const* w, const int64_t* n,
                                        const int64_t* istr, const float* x,
                                        float extrapolation) {
  int64_t t[KILN_MAX_RANK] = {0};
  double acc = 0.0;
  for (int64_t d = 0; d < R; ++d) {
    if (idx[d][0] < 0) return extrapolation;
  }
  for (;;) { /* an odometer over t[d] */
    int64_t off = 0;
    double p = 1.0;
    for (int64_t d = 0; d < R; ++d) {
      const int64_t i = idx[d][t[d]];
      off += (i < 0 ? 0 : i) * istr[d];
      p *= w[d][t[d]];
    }
    if (p != 0.0) acc += p * x[off];
    int64_t d = R - 1;
    for (; d >= 0; --d) {
      if (++t[d] < n[d]) break;
      t[d] = 0;
    }
    if (d < 0) break;
  }
  return (float)acc;
}

#endif /* KILN_RESIZE_CORE_H_ */
