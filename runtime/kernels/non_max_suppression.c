/* non_max_suppression: ONNX NonMaxSuppression, whose output length depends
 * on the data. For each batch and class, the boxes scoring above
 * score_threshold (all boxes when it is absent; never a NaN score) are
 * taken best score first, equal scores lower box index first, and a box is
 * kept unless its IoU with a box kept before exceeds iou_threshold, up to
 * max_output_boxes_per_class (absent or <= 0: none). The output lists
 * (batch, class, box) per kept box: batch-major, then class, then the
 * order kept. Boxes are [y1, x1, y2, x2] with either diagonal
 * (center_point_box 0) or [x_center, y_center, width, height] (1); a box
 * of no area overlaps nothing.
 * The compiler fixed the number of kept boxes from the model's declared
 * output; the kernel counts them first and fails with
 * KILN_ERR_SHAPE_MISMATCH, writing no output, unless there are exactly
 * that many. The per-class candidate order, sort buffer and kept list live
 * in a scratch binding of 3 * N int64 (no heap).
 * non_max_suppression_bounded: the same for an output shaped after the run:
 * count is the capacity (the output's bound); the rows are written in one
 * pass and the real count goes as one int64 to binding 7. */
#include <stdint.h>
#include <string.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "sort_util.h"
#include "typed_util.h"

enum {
  NMS_B = KILN_IP_NON_MAX_SUPPRESSION_B,
  NMS_N = KILN_IP_NON_MAX_SUPPRESSION_N,
  NMS_C = KILN_IP_NON_MAX_SUPPRESSION_C,
  NMS_CENTER = KILN_IP_NON_MAX_SUPPRESSION_CENTER_POINT_BOX,
  NMS_COUNT = KILN_IP_NON_MAX_SUPPRESSION_COUNT,
  NMS_MAX_DTYPE = KILN_IP_NON_MAX_SUPPRESSION_MAX_DTYPE,
  NMS_IOU_DTYPE = KILN_IP_NON_MAX_SUPPRESSION_IOU_DTYPE,
  NMS_SCORE_DTYPE = KILN_IP_NON_MAX_SUPPRESSION_SCORE_DTYPE,
  NMS_NPARAMS = KILN_NON_MAX_SUPPRESSION_IPARAMS
};
_Static_assert(KILN_IP_NON_MAX_SUPPRESSION_BOUNDED_B == (int)NMS_B &&
                   KILN_IP_NON_MAX_SUPPRESSION_BOUNDED_N == (int)NMS_N &&
                   KILN_IP_NON_MAX_SUPPRESSION_BOUNDED_C == (int)NMS_C &&
                   KILN_IP_NON_MAX_SUPPRESSION_BOUNDED_CENTER_POINT_BOX == (int)NMS_CENTER &&
                   KILN_IP_NON_MAX_SUPPRESSION_BOUNDED_COUNT == (int)NMS_COUNT &&
                   KILN_IP_NON_MAX_SUPPRESSION_BOUNDED_MAX_DTYPE == (int)NMS_MAX_DTYPE &&
                   KILN_IP_NON_MAX_SUPPRESSION_BOUNDED_IOU_DTYPE == (int)NMS_IOU_DTYPE &&
                   KILN_IP_NON_MAX_SUPPRESSION_BOUNDED_SCORE_DTYPE == (int)NMS_SCORE_DTYPE &&
                   KILN_NON_MAX_SUPPRESSION_BOUNDED_IPARAMS == (int)NMS_NPARAMS,
               "non_max_suppression_bounded has non_max_suppression's parameters");
enum { NMS_BOXES, NMS_SCORES, NMS_MAX, NMS_IOU, NMS_SCORE_THR, NMS_Y, NMS_SCRATCH, NMS_RESULT };

typedef struct nms_box {
  float x_min, y_min, x_max, y_max;
} nms_box;

static nms_box nms_load_box(const float* p, int center) {
  nms_box b;
  if (center) {
    const float half_w = p[2] / 2.0f, half_h = p[3] / 2.0f;
    b.x_min = p[0] - half_w, b.x_max = p[0] + half_w;
    b.y_min = p[1] - half_h, b.y_max = p[1] + half_h;
  } else {
    b.y_min = p[0] < p[2] ? p[0] : p[2], b.y_max = p[0] < p[2] ? p[2] : p[0];
    b.x_min = p[1] < p[3] ? p[1] : p[3], b.x_max = p[1] < p[3] ? p[3] : p[1];
  }
  return b;
}

/* IoU(a, b) > threshold; boxes without area or overlap never suppress. */
static int nms_suppresses(nms_box a, nms_box b, float threshold) {
  const float ix0 = a.x_min > b.x_min ? a.x_min : b.x_min;
  const float iy0 = a.y_min > b.y_min ? a.y_min : b.y_min;
  const float ix1 = a.x_max < b.x_max ? a.x_max : b.x_max;
  const float iy1 = a.y_max < b.y_max ? a.y_max : b.y_max;
  const float iw = ix1 - ix0 > 0.0f ? ix1 - ix0 : 0.0f, ih = iy1 - iy0 > 0.0f ? iy1 - iy0 : 0.0f;
  const float inter = iw * ih;
  if (!(inter > 0.0f)) return 0;
  const float area_a = (a.x_max - a.x_min) * (a.y_max - a.y_min);
  const float area_b = (b.x_max - b.x_min) * (b.y_max - b.y_min);
  const float uni = area_a + area_b - inter;
  if (!(area_a > 0.0f) || !(area_b > 0.0f) || !(uni > 0.0f)) return 0;
  return inter / uni > threshold;
}

static int nms_higher(const void* ctx, int64_t a, int64_t b) {
  const float* s = (const float*)ctx;
  return s[a] > s[b];
}

typedef struct nms_args {
  const float* boxes;
  const float* scores;
  int64_t B, N, C, max_out;
  int center, has_score_thr;
  float iou_thr, score_thr;
  int64_t* scratch;
} nms_args;

/* Keeps boxes for batch b, class c into kept[]; returns how many. */
static int64_t nms_class(const nms_args* a, int64_t b, int64_t c, int64_t* kept) {
  const float* scores = a->scores + (b * a->C + c) * a->N;
  const float* boxes = a->boxes + b * a->N * 4;
  int64_t* order = a->scratch;
  int64_t m = 0;
  for (int64_t i = 0; i < a->N; ++i) {
    const float s = scores[i];
    if (s != s || (a->has_score_thr && !(s > a->score_thr))) continue;
    order[m++] = i;
  }
  kiln_stable_sort_indices(order, a->scratch + a->N, m, nms_higher, scores);
  int64_t n_kept = 0;
  for (int64_t k = 0; k < m && n_kept < a->max_out; ++k) {
    const nms_box cand = nms_load_box(boxes + order[k] * 4, a->center);
    int keep = 1;
    for (int64_t j = 0; j < n_kept && keep; ++j) {
      keep = !nms_suppresses(cand, nms_load_box(boxes + kept[j] * 4, a->center), a->iou_thr);
    }
    if (keep) kept[n_kept++] = order[k];
  }
  return n_kept;
}

/* The run's arguments: static parameters and the run-time scalars. */
static nms_args nms_args_of(const int64_t* ip, void* const* bindings) {
  nms_args a;
  a.boxes = (const float*)bindings[NMS_BOXES];
  a.scores = (const float*)bindings[NMS_SCORES];
  a.B = ip[NMS_B], a.N = ip[NMS_N], a.C = ip[NMS_C];
  a.center = ip[NMS_CENTER] != 0;
  a.max_out = 0;
  if (ip[NMS_MAX_DTYPE] != 0) {
    a.max_out = (int64_t)kiln_load_bits(bindings[NMS_MAX], ip[NMS_MAX_DTYPE], 0);
  }
  a.iou_thr = ip[NMS_IOU_DTYPE] ? (float)kiln_load_f(bindings[NMS_IOU], ip[NMS_IOU_DTYPE], 0)
                                : 0.0f;
  a.has_score_thr = ip[NMS_SCORE_DTYPE] != 0;
  a.score_thr = a.has_score_thr
                    ? (float)kiln_load_f(bindings[NMS_SCORE_THR], ip[NMS_SCORE_DTYPE], 0)
                    : 0.0f;
  a.scratch = (int64_t*)bindings[NMS_SCRATCH];
  return a;
}

int kiln_non_max_suppression(const int64_t* ip, const float* fp, void* const* bindings,
                             const kiln_host* host) {
  (void)fp;
  (void)host;
  const nms_args a = nms_args_of(ip, bindings);
  int64_t* kept = a.scratch + 2 * a.N;
  /* First count, so a different number fails before anything is written. */
  int64_t total = 0;
  for (int64_t b = 0; b < a.B; ++b) {
    for (int64_t c = 0; c < a.C; ++c) total += nms_class(&a, b, c, kept);
  }
  if (total != ip[NMS_COUNT]) return KILN_ERR_SHAPE_MISMATCH;
  int64_t* y = (int64_t*)bindings[NMS_Y];
  for (int64_t b = 0; b < a.B; ++b) {
    for (int64_t c = 0; c < a.C; ++c) {
      const int64_t n_kept = nms_class(&a, b, c, kept);
      for (int64_t j = 0; j < n_kept; ++j, y += 3) y[0] = b, y[1] = c, y[2] = kept[j];
    }
  }
  return KILN_OK;
}

/* non_max_suppression_bounded: ip[NMS_COUNT] is the capacity, checked
 * before each class's rows are written; the real count goes to binding 7. */
int kiln_non_max_suppression_bounded(const int64_t* ip, const float* fp, void* const* bindings,
                                     const kiln_host* host) {
  (void)fp;
  (void)host;
  const nms_args a = nms_args_of(ip, bindings);
  int64_t* kept = a.scratch + 2 * a.N;
  int64_t* y = (int64_t*)bindings[NMS_Y];
  int64_t total = 0;
  for (int64_t b = 0; b < a.B; ++b) {
    for (int64_t c = 0; c < a.C; ++c) {
      const int64_t n_kept = nms_class(&a, b, c, kept);
      if (n_kept > ip[NMS_COUNT] - total) return KILN_ERR_SHAPE_MISMATCH;
      for (int64_t j = 0; j < n_kept; ++j, y += 3) y[0] = b, y[1] = c, y[2] = kept[j];
      total += n_kept;
    }
  }
  memcpy(bindings[NMS_RESULT], &total, sizeof total);
  return KILN_OK;
}

/* A scalar parameter input: absent (dtype 0) or one element of a listed type. */
static int nms_check_scalar(int64_t t, int is_float, uint64_t have) {
  if (t == 0) return KILN_OK;
  const int ok = is_float ? (t == KILN_DTYPE_F32 || t == KILN_DTYPE_F64)
                          : (t == KILN_DTYPE_I64 || t == KILN_DTYPE_I32);
  if (!ok) return KILN_ERR_INVALID_ARGUMENT;
  return kiln_check_binding(have, kiln_dtype_size(t));
}

/* `bounded`: count is a capacity, which may exceed B*C*N when N is a length
 * found during the run (the buffers are planned at its bound). */
static int nms_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                     uint32_t fparam_count, const uint64_t* binding_bytes, int bounded) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, NMS_NPARAMS, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, NMS_NPARAMS));
  KILN_TRY(kiln_check_enum(ip[NMS_CENTER], 0, 1));
  KILN_TRY(nms_check_scalar(ip[NMS_MAX_DTYPE], 0, binding_bytes[NMS_MAX]));
  KILN_TRY(nms_check_scalar(ip[NMS_IOU_DTYPE], 1, binding_bytes[NMS_IOU]));
  KILN_TRY(nms_check_scalar(ip[NMS_SCORE_DTYPE], 1, binding_bytes[NMS_SCORE_THR]));
  const int64_t B = ip[NMS_B], N = ip[NMS_N], C = ip[NMS_C];
  int64_t count, bytes;
  /* Twice per class: a sort of N scores, then each candidate against up to
   * N kept boxes. */
  const int64_t work[5] = {2, B, C, N, N + kiln_sort_passes(N)};
  KILN_TRY(kiln_check_work(work, 5));
  const int64_t boxes[3] = {B, N, 4}, scores[3] = {B, C, N};
  KILN_TRY(kiln_checked_product(boxes, 3, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[NMS_BOXES], count));
  KILN_TRY(kiln_checked_product(scores, 3, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[NMS_SCORES], count));
  if (!bounded && ip[NMS_COUNT] > count) return KILN_ERR_INVALID_ARGUMENT; /* at most every box */
  KILN_TRY(kiln_dense_bytes(ip[NMS_COUNT], 24, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[NMS_Y], bytes));
  KILN_TRY(kiln_dense_bytes(N, 24, &bytes));
  return kiln_check_binding(binding_bytes[NMS_SCRATCH], bytes);
}

int kiln_non_max_suppression_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                                   uint32_t fparam_count, const uint64_t* binding_bytes) {
  return nms_check(ip, iparam_count, fp, fparam_count, binding_bytes, 0);
}

int kiln_non_max_suppression_bounded_check(const int64_t* ip, uint32_t iparam_count,
                                           const float* fp, uint32_t fparam_count,
                                           const uint64_t* binding_bytes) {
  KILN_TRY(nms_check(ip, iparam_count, fp, fparam_count, binding_bytes, 1));
  return kiln_check_binding(binding_bytes[NMS_RESULT], (int64_t)sizeof(int64_t));
}
