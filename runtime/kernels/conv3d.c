/* conv3d_f32 and conv_transpose3d_f32: 3-D convolution and transposed
 * convolution (groups, strides, dilations, begin pads; the end pads are
 * implied by the output size). A 1-D or 2-D window is the case with unit
 * leading dims; the compiler only routes 3-D windows here, since conv2d.c's
 * kernels are much faster for 2-D.
 *
 * The convolution is one GEMM (sgemm.h) per image, group and output depth
 * (per image and group for a 1x1x1 unit-stride window, B the input itself):
 * Y[oc, od, (oh, ow)] = W[oc, (c, kd, kh, kw)] * B[(c, kd, kh, kw), (oh, ow)],
 * the weights read in place (their own K order) and B the input's im2col
 * matrix through the depth axis of kiln_im2col. A depthwise layer (one
 * channel per group) has too short a K for that and runs the direct loops
 * the transpose uses: each output plane (n, oc) finished by one task, the
 * innermost loop over one row's positions whose partner index lies inside
 * the other tensor, so no bounds test runs per element. */
#include <stdint.h>

#include "activation.h"
#include "check_util.h"
#include "host_tasks.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "sgemm.h"

enum {
  C3_N = KILN_IP_CONV3D_F32_N,
  C3_C = KILN_IP_CONV3D_F32_C,
  C3_D = KILN_IP_CONV3D_F32_D,
  C3_H = KILN_IP_CONV3D_F32_H,
  C3_W = KILN_IP_CONV3D_F32_W,
  C3_OC = KILN_IP_CONV3D_F32_OC,
  C3_OD = KILN_IP_CONV3D_F32_OD,
  C3_OH = KILN_IP_CONV3D_F32_OH,
  C3_OW = KILN_IP_CONV3D_F32_OW,
  C3_KD = KILN_IP_CONV3D_F32_KD,
  C3_KH = KILN_IP_CONV3D_F32_KH,
  C3_KW = KILN_IP_CONV3D_F32_KW,
  C3_SD = KILN_IP_CONV3D_F32_STRIDE_D,
  C3_SH = KILN_IP_CONV3D_F32_STRIDE_H,
  C3_SW = KILN_IP_CONV3D_F32_STRIDE_W,
  C3_PD = KILN_IP_CONV3D_F32_PAD_FRONT,
  C3_PH = KILN_IP_CONV3D_F32_PAD_TOP,
  C3_PW = KILN_IP_CONV3D_F32_PAD_LEFT,
  C3_DD = KILN_IP_CONV3D_F32_DILATION_D,
  C3_DH = KILN_IP_CONV3D_F32_DILATION_H,
  C3_DW = KILN_IP_CONV3D_F32_DILATION_W,
  C3_GROUPS = KILN_IP_CONV3D_F32_GROUPS,
  C3_ACT = KILN_IP_CONV3D_F32_ACTIVATION,
  C3_HAS_BIAS = KILN_IP_CONV3D_F32_HAS_BIAS,
  C3_HAS_RES = KILN_IP_CONV3D_F32_HAS_RESIDUAL,
  C3_COUNT = KILN_CONV3D_F32_IPARAMS
};

enum {
  T3_N = KILN_IP_CONV_TRANSPOSE3D_F32_N,
  T3_C = KILN_IP_CONV_TRANSPOSE3D_F32_C,
  T3_D = KILN_IP_CONV_TRANSPOSE3D_F32_D,
  T3_H = KILN_IP_CONV_TRANSPOSE3D_F32_H,
  T3_W = KILN_IP_CONV_TRANSPOSE3D_F32_W,
  T3_OC = KILN_IP_CONV_TRANSPOSE3D_F32_OC,
  T3_OD = KILN_IP_CONV_TRANSPOSE3D_F32_OD,
  T3_OH = KILN_IP_CONV_TRANSPOSE3D_F32_OH,
  T3_OW = KILN_IP_CONV_TRANSPOSE3D_F32_OW,
  T3_KD = KILN_IP_CONV_TRANSPOSE3D_F32_KD,
  T3_KH = KILN_IP_CONV_TRANSPOSE3D_F32_KH,
  T3_KW = KILN_IP_CONV_TRANSPOSE3D_F32_KW,
  T3_SD = KILN_IP_CONV_TRANSPOSE3D_F32_STRIDE_D,
  T3_SH = KILN_IP_CONV_TRANSPOSE3D_F32_STRIDE_H,
  T3_SW = KILN_IP_CONV_TRANSPOSE3D_F32_STRIDE_W,
  T3_PD = KILN_IP_CONV_TRANSPOSE3D_F32_PAD_FRONT,
  T3_PH = KILN_IP_CONV_TRANSPOSE3D_F32_PAD_TOP,
  T3_PW = KILN_IP_CONV_TRANSPOSE3D_F32_PAD_LEFT,
  T3_DD = KILN_IP_CONV_TRANSPOSE3D_F32_DILATION_D,
  T3_DH = KILN_IP_CONV_TRANSPOSE3D_F32_DILATION_H,
  T3_DW = KILN_IP_CONV_TRANSPOSE3D_F32_DILATION_W,
  T3_GROUPS = KILN_IP_CONV_TRANSPOSE3D_F32_GROUPS,
  T3_HAS_BIAS = KILN_IP_CONV_TRANSPOSE3D_F32_HAS_BIAS,
  T3_COUNT = KILN_CONV_TRANSPOSE3D_F32_IPARAMS
};

/* The transpose's layout is conv3d's up to groups, so one checker serves both. */
_Static_assert((int)T3_N == (int)C3_N && (int)T3_C == (int)C3_C && (int)T3_D == (int)C3_D &&
                   (int)T3_H == (int)C3_H && (int)T3_W == (int)C3_W && (int)T3_OC == (int)C3_OC &&
                   (int)T3_OD == (int)C3_OD && (int)T3_OH == (int)C3_OH &&
                   (int)T3_OW == (int)C3_OW && (int)T3_KD == (int)C3_KD &&
                   (int)T3_KH == (int)C3_KH && (int)T3_KW == (int)C3_KW &&
                   (int)T3_SD == (int)C3_SD && (int)T3_SH == (int)C3_SH &&
                   (int)T3_SW == (int)C3_SW && (int)T3_PD == (int)C3_PD &&
                   (int)T3_PH == (int)C3_PH && (int)T3_PW == (int)C3_PW &&
                   (int)T3_DD == (int)C3_DD && (int)T3_DH == (int)C3_DH &&
                   (int)T3_DW == (int)C3_DW && (int)T3_GROUPS == (int)C3_GROUPS,
               "shared leading layout");
/* The checker reads each triple (depth, height, width) as C3_D + d, d < 3. */
_Static_assert(C3_W == C3_D + 2 && C3_OW == C3_OD + 2 && C3_KW == C3_KD + 2 &&
                   C3_SW == C3_SD + 2 && C3_PW == C3_PD + 2 && C3_DW == C3_DD + 2,
               "each spatial triple is consecutive");

/* The positions i in [0, count) for which i*stride + off lies in [0, limit)
 * form [*lo, *hi) (empty when *lo >= *hi). stride >= 1. */
static void c3_span(int64_t off, int64_t stride, int64_t limit, int64_t count,
                    int64_t* lo, int64_t* hi) {
  const int64_t l = off >= 0 ? 0 : (-off + stride - 1) / stride;
  const int64_t h = limit - off <= 0 ? 0 : (limit - off - 1) / stride + 1;
  *lo = l;
  *hi = h < count ? h : count;
}

/* The geometry of one call; both kernels share it. */
typedef struct c3_job {
  const int64_t* ip;
  const float *x, *w, *bias, *res;
  float* y;
  float act_alpha, act_beta;
  int64_t act;
} c3_job;

static void conv3d_planes(void* ctx, int64_t begin, int64_t end) {
  const c3_job* j = (const c3_job*)ctx;
  const int64_t* ip = j->ip;
  const int64_t C = ip[C3_C], D = ip[C3_D], H = ip[C3_H], W = ip[C3_W];
  const int64_t OC = ip[C3_OC], OD = ip[C3_OD], OH = ip[C3_OH], OW = ip[C3_OW];
  const int64_t KD = ip[C3_KD], KH = ip[C3_KH], KW = ip[C3_KW];
  const int64_t SD = ip[C3_SD], SH = ip[C3_SH], SW = ip[C3_SW];
  const int64_t PD = ip[C3_PD], PH = ip[C3_PH], PW = ip[C3_PW];
  const int64_t DD = ip[C3_DD], DH = ip[C3_DH], DW = ip[C3_DW];
  const int64_t G = ip[C3_GROUPS];
  const int64_t cg = C / G, ocg = OC / G;
  const int64_t in_plane = D * H * W, out_plane = OD * OH * OW, taps = KD * KH * KW;
  for (int64_t p = begin; p < end; ++p) {
    const int64_t n = p / OC, oc = p % OC, g = oc / ocg;
    float* yp = j->y + p * out_plane;
    const float b = j->bias ? j->bias[oc] : 0.0f;
    if (j->res) {
      const float* rp = j->res + p * out_plane;
      for (int64_t i = 0; i < out_plane; ++i) yp[i] = b + rp[i];
    } else {
      for (int64_t i = 0; i < out_plane; ++i) yp[i] = b;
    }
    if (in_plane > 0 && out_plane > 0) {
      for (int64_t ci = 0; ci < cg; ++ci) {
        const float* xp = j->x + (n * C + g * cg + ci) * in_plane;
        const float* wp = j->w + (oc * cg + ci) * taps;
        for (int64_t kd = 0; kd < KD; ++kd) {
          for (int64_t kh = 0; kh < KH; ++kh) {
            for (int64_t kw = 0; kw < KW; ++kw) {
              const float wv = wp[(kd * KH + kh) * KW + kw];
              const int64_t offw = kw * DW - PW;
              int64_t lo, hi;
              c3_span(offw, SW, W, OW, &lo, &hi);
              if (lo >= hi) continue;
              for (int64_t od = 0; od < OD; ++od) {
                const int64_t id = od * SD - PD + kd * DD;
                if (id < 0 || id >= D) continue;
                for (int64_t oh = 0; oh < OH; ++oh) {
                  const int64_t ih = oh * SH - PH + kh * DH;
                  if (ih < 0 || ih >= H) continue;
                  const float* xr = xp + (id * H + ih) * W + lo * SW + offw;
                  float* yr = yp + (od * OH + oh) * OW + lo;
                  for (int64_t i = 0; i < hi - lo; ++i) yr[i] += wv * xr[i * SW];
                }
              }
            }
          }
        }
      }
    }
    if (j->act != KILN_ACT_NONE) {
      kiln_activation_apply(yp, yp, out_plane, j->act, j->act_alpha, j->act_beta);
    }
  }
}

static void conv_transpose3d_planes(void* ctx, int64_t begin, int64_t end) {
  const c3_job* j = (const c3_job*)ctx;
  const int64_t* ip = j->ip;
  const int64_t C = ip[T3_C], D = ip[T3_D], H = ip[T3_H], W = ip[T3_W];
  const int64_t OC = ip[T3_OC], OD = ip[T3_OD], OH = ip[T3_OH], OW = ip[T3_OW];
  const int64_t KD = ip[T3_KD], KH = ip[T3_KH], KW = ip[T3_KW];
  const int64_t SD = ip[T3_SD], SH = ip[T3_SH], SW = ip[T3_SW];
  const int64_t PD = ip[T3_PD], PH = ip[T3_PH], PW = ip[T3_PW];
  const int64_t DD = ip[T3_DD], DH = ip[T3_DH], DW = ip[T3_DW];
  const int64_t G = ip[T3_GROUPS];
  const int64_t cg = C / G, ocg = OC / G;
  const int64_t in_plane = D * H * W, out_plane = OD * OH * OW, taps = KD * KH * KW;
  for (int64_t p = begin; p < end; ++p) {
    const int64_t n = p / OC, oc = p % OC, g = oc / ocg, o = oc % ocg;
    float* yp = j->y + p * out_plane;
    const float b = j->bias ? j->bias[oc] : 0.0f;
    for (int64_t i = 0; i < out_plane; ++i) yp[i] = b;
    if (in_plane == 0 || out_plane == 0) continue;
    for (int64_t ci = 0; ci < cg; ++ci) {
      const int64_t c = g * cg + ci;
      const float* xp = j->x + (n * C + c) * in_plane;
      const float* wp = j->w + (c * ocg + o) * taps;
      for (int64_t kd = 0; kd < KD; ++kd) {
        for (int64_t kh = 0; kh < KH; ++kh) {
          for (int64_t kw = 0; kw < KW; ++kw) {
            const float wv = wp[(kd * KH + kh) * KW + kw];
            const int64_t offw = kw * DW - PW;
            int64_t lo, hi;
            c3_span(offw, SW, OW, W, &lo, &hi);
            if (lo >= hi) continue;
            for (int64_t id = 0; id < D; ++id) {
              const int64_t od = id * SD - PD + kd * DD;
              if (od < 0 || od >= OD) continue;
              for (int64_t ih = 0; ih < H; ++ih) {
                const int64_t oh = ih * SH - PH + kh * DH;
                if (oh < 0 || oh >= OH) continue;
                const float* xr = xp + (id * H + ih) * W + lo;
                float* yr = yp + (od * OH + oh) * OW + lo * SW + offw;
                for (int64_t i = 0; i < hi - lo; ++i) yr[i * SW] += wv * xr[i];
              }
            }
          }
        }
      }
    }
  }
}

/* The GEMMs of conv3d_f32: per output element the sum over (c, kd, kh, kw)
 * in that order (the padding adds zeros), then bias, residual, activation
 * (kiln_epilogue's order). */
static void conv3d_gemm(const c3_job* j, const kiln_host* host) {
  const int64_t* ip = j->ip;
  const int64_t C = ip[C3_C], D = ip[C3_D], H = ip[C3_H], W = ip[C3_W];
  const int64_t OC = ip[C3_OC], OD = ip[C3_OD], OH = ip[C3_OH], OW = ip[C3_OW];
  const int64_t G = ip[C3_GROUPS], cg = C / G, ocg = OC / G;
  const int64_t K = cg * ip[C3_KD] * ip[C3_KH] * ip[C3_KW];
  const int64_t in_volume = D * H * W, out_plane = OH * OW, out_volume = OD * out_plane;
  kiln_im2col col;
  col.H = H, col.W = W, col.OW = OW, col.KH = ip[C3_KH], col.KW = ip[C3_KW];
  col.SH = ip[C3_SH], col.SW = ip[C3_SW], col.PT = ip[C3_PH], col.PL = ip[C3_PW];
  col.DH = ip[C3_DH], col.DW = ip[C3_DW];
  col.KD = ip[C3_KD], col.D = D, col.DD = ip[C3_DD];
  kiln_gemm_desc d = {0};
  d.M = ocg, d.N = out_plane, d.K = K;
  d.a_rs = K, d.a_cs = 1;
  d.im2col = &col;
  d.y_rs = out_volume; /* one output channel's depth slices are out_plane apart */
  d.ep.alpha = 1.0f, d.ep.beta = 1.0f;
  d.ep.c_rs = 1, d.ep.c_cs = 0;
  d.ep.r_rs = out_volume;
  d.ep.act = j->act, d.ep.act_alpha = j->act_alpha, d.ep.act_beta = j->act_beta;
  /* A 1x1x1 unit-stride unpadded window (S3D's and I3D's branch
   * projections) reads each group's input in place as B, all depths in one
   * GEMM: the same K order, so the same sums, without an im2col pass. */
  const int pointwise = K == cg && ip[C3_SD] == 1 && ip[C3_SH] == 1 && ip[C3_SW] == 1 &&
                        ip[C3_PD] == 0 && ip[C3_PH] == 0 && ip[C3_PW] == 0 && OD == D &&
                        OH == H && OW == W;
  if (pointwise) {
    d.N = out_volume;
    d.im2col = NULL;
    d.b_rs = in_volume, d.b_cs = 1;
  }
  for (int64_t n = 0; n < ip[C3_N]; ++n) {
    for (int64_t g = 0; g < G; ++g) {
      const float* xg = j->x + (n * C + g * cg) * in_volume;
      d.a = j->w + g * ocg * K;
      d.ep.c = j->bias ? j->bias + g * ocg : NULL;
      if (pointwise) d.b = xg;
      col.x = xg;
      for (int64_t od = 0; od < (pointwise ? 1 : OD); ++od) {
        col.ID0 = od * ip[C3_SD] - ip[C3_PD];
        const int64_t y_off = (n * OC + g * ocg) * out_volume + od * out_plane;
        d.y = j->y + y_off;
        d.ep.r = j->res ? j->res + y_off : NULL;
        kiln_sgemm(&d, host);
      }
    }
  }
}

int kiln_conv3d_f32(const int64_t* ip, const float* fp, void* const* bindings,
                    const kiln_host* host) {
  c3_job j;
  j.ip = ip;
  j.x = (const float*)bindings[0];
  j.w = (const float*)bindings[1];
  j.bias = ip[C3_HAS_BIAS] ? (const float*)bindings[2] : NULL;
  j.res = ip[C3_HAS_RES] ? (const float*)bindings[3] : NULL;
  j.y = (float*)bindings[4];
  j.act = ip[C3_ACT], j.act_alpha = fp[KILN_FP_CONV3D_F32_ACT_ALPHA],
  j.act_beta = fp[KILN_FP_CONV3D_F32_ACT_BETA];
  if (ip[C3_C] / ip[C3_GROUPS] > 1 || ip[C3_OC] / ip[C3_GROUPS] > 1) {
    conv3d_gemm(&j, host);
    return KILN_OK;
  }
  const double macs = (double)ip[C3_N] * (double)ip[C3_OC] * (double)(ip[C3_C] / ip[C3_GROUPS]) *
                      (double)ip[C3_OD] * (double)ip[C3_OH] * (double)ip[C3_OW] *
                      (double)ip[C3_KD] * (double)ip[C3_KH] * (double)ip[C3_KW];
  kiln_run_tasks(host, ip[C3_N] * ip[C3_OC], macs, (double)(1 << 17), conv3d_planes, &j);
  return KILN_OK;
}

int kiln_conv_transpose3d_f32(const int64_t* ip, const float* fp, void* const* bindings,
                              const kiln_host* host) {
  (void)fp;
  c3_job j;
  j.ip = ip;
  j.x = (const float*)bindings[0];
  j.w = (const float*)bindings[1];
  j.bias = ip[T3_HAS_BIAS] ? (const float*)bindings[2] : NULL;
  j.res = NULL;
  j.y = (float*)bindings[3];
  j.act = KILN_ACT_NONE, j.act_alpha = 0.0f, j.act_beta = 0.0f;
  const double macs = (double)ip[T3_N] * (double)ip[T3_C] * (double)(ip[T3_OC] / ip[T3_GROUPS]) *
                      (double)ip[T3_D] * (double)ip[T3_H] * (double)ip[T3_W] *
                      (double)ip[T3_KD] * (double)ip[T3_KH] * (double)ip[T3_KW];
  kiln_run_tasks(host, ip[T3_N] * ip[T3_OC], macs, (double)(1 << 17), conv_transpose3d_planes,
                 &j);
  return KILN_OK;
}

/* One spatial axis: every index either kernel forms (a position times its
 * stride, plus taps times the dilation, minus or plus the pad, against the
 * other tensor's extent) stays in int64. */
static int c3_axis_check(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t pad,
                         int64_t dil) {
  if (k < 1 || stride < 1 || dil < 1) return KILN_ERR_INVALID_ARGUMENT;
  int64_t a, b, t;
  KILN_TRY(kiln_checked_mul(in > out ? in : out, stride, &a));
  KILN_TRY(kiln_checked_mul(k, dil, &b));
  KILN_TRY(kiln_checked_add(a, b, &t));
  KILN_TRY(kiln_checked_add(t, pad, &t));
  KILN_TRY(kiln_checked_add(t, in > out ? in : out, &t));
  KILN_TRY(kiln_checked_add(t, stride, &t));
  return KILN_OK;
}

/* The checks both kernels share, on the common leading layout
 * (N C D H W OC OD OH OW KD KH KW strides[3] pads[3] dilations[3] groups),
 * plus the loop bound and the x, w, bias and y bindings. */
static int c3_common_check(const int64_t* ip, int has_bias, int transpose,
                           const uint64_t* binding_bytes, int y_binding) {
  const int64_t N = ip[C3_N], C = ip[C3_C], OC = ip[C3_OC], G = ip[C3_GROUPS];
  if (G < 1 || C % G != 0 || OC % G != 0) return KILN_ERR_INVALID_ARGUMENT;
  for (int d = 0; d < 3; ++d) {
    KILN_TRY(c3_axis_check(ip[C3_D + d], ip[C3_OD + d], ip[C3_KD + d], ip[C3_SD + d],
                           ip[C3_PD + d], ip[C3_DD + d]));
  }
  /* Conv walks output positions, the transpose input positions; both run
   * every tap of every channel pair and fill each output plane first. */
  const int64_t* walk = transpose ? ip + C3_D : ip + C3_OD;
  const int64_t loops[9] = {N, OC, C / G, ip[C3_KD], ip[C3_KH], ip[C3_KW],
                            walk[0], walk[1], walk[2]};
  KILN_TRY(kiln_check_work(loops, 9));
  const int64_t fill[5] = {N, OC, ip[C3_OD], ip[C3_OH], ip[C3_OW]};
  KILN_TRY(kiln_check_work(fill, 5));
  const int64_t x_dims[5] = {N, C, ip[C3_D], ip[C3_H], ip[C3_W]};
  const int64_t w_dims[5] = {transpose ? C : OC, transpose ? OC / G : C / G, ip[C3_KD],
                             ip[C3_KH], ip[C3_KW]};
  int64_t count;
  KILN_TRY(kiln_checked_product(x_dims, 5, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[0], count));
  KILN_TRY(kiln_checked_product(w_dims, 5, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[1], count));
  if (has_bias) KILN_TRY(kiln_check_f32_binding(binding_bytes[2], OC));
  KILN_TRY(kiln_checked_product(fill, 5, &count));
  return kiln_check_f32_binding(binding_bytes[y_binding], count);
}

int kiln_conv3d_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                          uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(
      kiln_check_counts(ip, iparam_count, C3_COUNT, fp, fparam_count, KILN_CONV3D_F32_FPARAMS));
  KILN_TRY(kiln_check_nonneg(ip, C3_COUNT));
  KILN_TRY(kiln_check_enum(ip[C3_ACT], KILN_ACT_NONE, KILN_ACT_LAST));
  KILN_TRY(kiln_check_enum(ip[C3_HAS_BIAS], 0, 1));
  KILN_TRY(kiln_check_enum(ip[C3_HAS_RES], 0, 1));
  KILN_TRY(c3_common_check(ip, (int)ip[C3_HAS_BIAS], 0, binding_bytes, 4));
  if (ip[C3_HAS_RES]) {
    /* The residual has y's shape. */
    const int64_t r_dims[5] = {ip[C3_N], ip[C3_OC], ip[C3_OD], ip[C3_OH], ip[C3_OW]};
    int64_t count;
    KILN_TRY(kiln_checked_product(r_dims, 5, &count));
    KILN_TRY(kiln_check_f32_binding(binding_bytes[3], count));
  }
  return KILN_OK;
}

int kiln_conv_transpose3d_f32_check(const int64_t* ip, uint32_t iparam_count,
                                    const float* fp, uint32_t fparam_count,
                                    const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, T3_COUNT, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, T3_COUNT));
  KILN_TRY(kiln_check_enum(ip[T3_HAS_BIAS], 0, 1));
  return c3_common_check(ip, (int)ip[T3_HAS_BIAS], 1, binding_bytes, 3);
}
