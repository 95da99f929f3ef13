/* Kiln runtime kernels: declarations and the static-parameter layout of each.
 * All tensors are dense, row-major (NCHW for images) and 4-byte aligned at
 * least; sizes and strides count elements unless a name says bytes. Output
 * bindings never alias input bindings.
 */
#ifndef KILN_KERNELS_H_
#define KILN_KERNELS_H_

#include "kiln/kernel_abi.h"
/* Empty here; an AOT bundle replaces it with defines that prefix every
 * kernel symbol with the model name, so several models link together. */
#include "kiln/symbol_prefix.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Activation applied to each output element (fused epilogue or unary op).
 * fparams named act_alpha/act_beta carry its constants. */
typedef enum kiln_activation {
  KILN_ACT_NONE = 0,
  KILN_ACT_RELU = 1,    /* max(x, 0) */
  KILN_ACT_CLIP = 2,    /* min(max(x, alpha), beta) */
  KILN_ACT_SIGMOID = 3, /* 1 / (1 + exp(-x)) */
  KILN_ACT_TANH = 4,    /* tanh(x) */
  /* Elementwise math (no constants). */
  KILN_ACT_ABS = 5, KILN_ACT_NEG = 6, KILN_ACT_EXP = 7, KILN_ACT_LOG = 8,
  KILN_ACT_SQRT = 9, KILN_ACT_RECIPROCAL = 10, KILN_ACT_FLOOR = 11,
  KILN_ACT_CEIL = 12, KILN_ACT_ROUND = 13, /* half to even */
  KILN_ACT_SIGN = 14, KILN_ACT_ERF = 15, KILN_ACT_SIN = 16, KILN_ACT_COS = 17,
  KILN_ACT_TAN = 18, KILN_ACT_SINH = 19, KILN_ACT_COSH = 20, KILN_ACT_ASIN = 21,
  KILN_ACT_ACOS = 22, KILN_ACT_ATAN = 23, KILN_ACT_ASINH = 24,
  KILN_ACT_ACOSH = 25, KILN_ACT_ATANH = 26,
  /* Activations; alpha/beta as ONNX names them unless noted. */
  KILN_ACT_HARD_SIGMOID = 27,     /* max(0, min(1, alpha*x + beta)) */
  KILN_ACT_HARD_SWISH = 28,       /* x * max(0, min(1, x/6 + 1/2)) */
  KILN_ACT_LEAKY_RELU = 29,       /* x < 0 ? alpha*x : x */
  KILN_ACT_ELU = 30,              /* x < 0 ? alpha*(exp(x)-1) : x */
  KILN_ACT_SELU = 31,             /* beta=gamma: gamma*(x <= 0 ? alpha*(exp(x)-1) : x) */
  KILN_ACT_CELU = 32,             /* max(0,x) + min(0, alpha*(exp(x/alpha)-1)) */
  KILN_ACT_SOFTPLUS = 33,         /* log(1 + exp(x)) */
  KILN_ACT_SOFTSIGN = 34,         /* x / (1 + |x|) */
  KILN_ACT_THRESHOLDED_RELU = 35, /* x > alpha ? x : 0 */
  KILN_ACT_MISH = 36,             /* x * tanh(softplus(x)) */
  KILN_ACT_SHRINK = 37,           /* alpha=lambd, beta=bias:
                                     x < -alpha ? x + beta : x > alpha ? x - beta : 0 */
  KILN_ACT_GELU = 38,             /* x * (erf(x / sqrt(2)) + 1) / 2 (ONNX Gelu, approximate
                                     "none"; what PyTorch exports as Div, Erf, Add, Mul, Mul) */
  KILN_ACT_SILU = 39,             /* x * sigmoid(x) (SiLU/Swish: what PyTorch exports as
                                     Sigmoid, Mul) */
  KILN_ACT_GELU_TANH = 40,        /* x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))) / 2
                                     (ONNX Gelu-20, approximate "tanh") */
} kiln_activation;

typedef enum kiln_binary_op {
  KILN_BINARY_ADD = 0,
  KILN_BINARY_SUB = 1,
  KILN_BINARY_MUL = 2,
  KILN_BINARY_DIV = 3,
  KILN_BINARY_MAX = 4,   /* NaN in either operand gives NaN */
  KILN_BINARY_MIN = 5,
  KILN_BINARY_POW = 6,
  KILN_BINARY_FMOD = 7,  /* C fmod: the result has the sign of A */
  KILN_BINARY_PRELU = 8, /* A < 0 ? A*B : A */
} kiln_binary_op;

typedef enum kiln_reduce_kind {
  KILN_REDUCE_SUM = 0,
  KILN_REDUCE_MEAN = 1,
  KILN_REDUCE_MAX = 2,
  KILN_REDUCE_MIN = 3,
  KILN_REDUCE_PROD = 4,
  KILN_REDUCE_L1 = 5,         /* sum |x| */
  KILN_REDUCE_L2 = 6,         /* sqrt(sum x^2) */
  KILN_REDUCE_LOG_SUM = 7,    /* log(sum x) */
  KILN_REDUCE_LOG_SUM_EXP = 8,/* log(sum exp(x)), computed stably */
  KILN_REDUCE_SUM_SQUARE = 9, /* sum x^2 */
} kiln_reduce_kind;

typedef enum kiln_pool_kind {
  KILN_POOL_MAX = 0,
  KILN_POOL_AVG = 1,
} kiln_pool_kind;

#define KILN_DECLARE_KERNEL(name)                                                \
  int kiln_##name(const int64_t* iparams, const float* fparams,                 \
                  void* const* bindings, const kiln_host* host);                \
  int kiln_##name##_check(const int64_t* iparams, uint32_t iparam_count,        \
                          const float* fparams, uint32_t fparam_count,          \
                          const uint64_t* binding_bytes);

/* conv2d_f32: 2-D convolution with groups, fused bias and activation.
 * bindings: [0] x [N,C,H,W]  [1] w [OC,C/groups,KH,KW]  [2] bias [OC]
 *           [3] y [N,OC,OH,OW]
 * iparams (18): N C H W OC OH OW KH KW stride_h stride_w pad_top pad_left
 *               dilation_h dilation_w groups activation has_bias
 * fparams (2): act_alpha act_beta
 * Input positions outside [0,H)x[0,W) read as zero; the bottom/right padding
 * is implied by OH/OW. When has_bias is 0, binding 2 is not read. */
KILN_DECLARE_KERNEL(conv2d_f32)

/* gemm_f32: Y = activation(alpha * op(A) * op(B) + beta * C), op = optional
 * transpose, C broadcast through strides.
 * bindings: [0] A ([M,K], or [K,M] if trans_a)  [1] B ([K,N], or [N,K] if trans_b)
 *           [2] C (read as C[m*c_stride_m + n*c_stride_n] when has_c)
 *           [3] Y [M,N]
 * iparams (9): M N K trans_a trans_b has_c c_stride_m c_stride_n activation
 * fparams (4): alpha beta act_alpha act_beta
 * When has_c is 0, binding 2 is not read. */
KILN_DECLARE_KERNEL(gemm_f32)

/* matmul_f32: batched Y[b] = A[b] * B[b] with numpy broadcasting over batch dims.
 * bindings: [0] A  [1] B  [2] Y [batch..., M, N] contiguous
 * iparams (4 + 3*R): M N K R  batch_dims[R]  a_batch_strides[R]  b_batch_strides[R]
 *   R <= KILN_MAX_RANK; each A matrix is [M,K] row-major starting at
 *   sum(idx[i]*a_batch_strides[i]); likewise B [K,N]; a stride of 0 broadcasts.
 * fparams: none. */
KILN_DECLARE_KERNEL(matmul_f32)

/* binary_f32: Y = A op B with broadcasting through strides.
 * bindings: [0] A  [1] B  [2] Y (contiguous, out_dims)
 * iparams (2 + 3*R): op R  out_dims[R]  a_strides[R]  b_strides[R]
 *   R in [0, KILN_MAX_RANK]; a stride of 0 broadcasts along that dim.
 * fparams: none. */
KILN_DECLARE_KERNEL(binary_f32)

/* unary_f32: Y = activation(X) elementwise.
 * bindings: [0] X [count]  [1] Y [count]
 * iparams (2): activation count
 * fparams (2): act_alpha act_beta */
KILN_DECLARE_KERNEL(unary_f32)

/* softmax_f32: softmax over the middle axis of X viewed as [outer, axis, inner].
 * bindings: [0] X  [1] Y, same shape
 * iparams (4): outer axis_len inner log (1 = LogSoftmax)
 * fparams: none. */
KILN_DECLARE_KERNEL(softmax_f32)

/* pool2d_f32: max or average pooling over NCHW.
 * bindings: [0] x [N,C,H,W]  [1] y [N,C,OH,OW]
 * iparams (18): kind N C H W OH OW KH KW stride_h stride_w pad_top pad_left
 *               pad_bottom pad_right dilation_h dilation_w count_include_pad
 * Max ignores padded positions. Average divides by the number of window
 * positions inside the input, or, with count_include_pad, inside the input
 * extended by the four pads.
 * fparams: none. */
KILN_DECLARE_KERNEL(pool2d_f32)

/* pool2d_nhwc_f32: pool2d_f32 on channels-last tensors, channels in the
 * vector lanes. bindings: [0] x [N,H,W,C]  [1] y [N,OH,OW,C]; iparams as
 * pool2d_f32's. Max equals pool2d_f32's bit for bit; an average sums its
 * window kh by kh, then kw by kw (pool2d_f32 may sum the columns first). */
KILN_DECLARE_KERNEL(pool2d_nhwc_f32)

/* global_pool_f32: reduce each of the rows of X [rows, spatial] to one value.
 * bindings: [0] X  [1] Y [rows]
 * iparams (3): kind rows spatial
 * fparams: none. */
KILN_DECLARE_KERNEL(global_pool_f32)

/* channel_affine_f32: y = x * scale[c] + shift[c] for X [N,C,spatial]
 * (inference BatchNormalization with its statistics folded into scale/shift).
 * bindings: [0] X  [1] scale [C]  [2] shift [C]  [3] Y
 * iparams (4): N C spatial activation
 * fparams (2): act_alpha act_beta */
KILN_DECLARE_KERNEL(channel_affine_f32)

/* strided_copy: copy an R-dim block of elements between strided layouts
 * (Transpose, Concat parts, Slice, Expand).
 * bindings: [0] X  [1] Y
 * iparams (4 + 3*R): elem_bytes R src_offset dst_offset  dims[R]
 *                    src_strides[R]  dst_strides[R]
 *   element idx is read from X[src_offset + sum(idx[i]*src_strides[i])] and
 *   written to Y[dst_offset + sum(idx[i]*dst_strides[i])]; offsets and strides
 *   count elements of elem_bytes bytes; dst strides are >= 0, src strides
 *   may be negative (Slice with negative steps) as long as every index
 *   reached is >= 0.
 * fparams: none. */
KILN_DECLARE_KERNEL(strided_copy)

/* copy: Y[0:bytes] = X[0:bytes].
 * bindings: [0] X  [1] Y
 * iparams (1): bytes
 * fparams: none. */
KILN_DECLARE_KERNEL(copy)

/* iteration_slice_read / iteration_slice_write: slice i of a tensor viewed
 * as [outer, count, inner_bytes], where i is the int64 iteration number a
 * LOOP wrote into binding 0 (slice count-1-i when reverse); i outside
 * [0, count) fails with KILN_ERR_OUT_OF_RANGE. Scan inputs are read and
 * Loop/Scan outputs written one iteration at a time with them.
 * read bindings:  [0] iteration int64  [1] whole  [2] slice (written)
 * write bindings: [0] iteration int64  [1] slice  [2] whole (written)
 * iparams (4): outer count inner_bytes reverse
 * fparams: none. */
KILN_DECLARE_KERNEL(iteration_slice_read)
KILN_DECLARE_KERNEL(iteration_slice_write)

/* reduce_f32: Y[o] = reduction over the reduced index space of X, for each
 * output element o (ReduceSum/Mean/Max/Min/Prod/L1/L2/LogSum/LogSumExp/
 * SumSquare with any set of axes).
 * bindings: [0] X  [1] Y [prod(out_dims)] contiguous
 * iparams (3 + 2*RO + 2*RR): kind RO RR  out_dims[RO] out_strides[RO]
 *                            red_dims[RR] red_strides[RR]
 *   kind is a kiln_reduce_kind. Output element idx (row-major over out_dims)
 *   reads X at sum(idx[i]*out_strides[i]) + sum(r[j]*red_strides[j]) for r
 *   over red_dims; RO, RR <= KILN_MAX_RANK. Mean divides by prod(red_dims);
 *   an empty reduction yields the identity (0, 1, -inf, +inf, log 0).
 * fparams: none. */
KILN_DECLARE_KERNEL(reduce_f32)

/* arg_reduce_f32: index of the max (or min) along the middle axis of
 * X [outer, n, inner]; Y int64 [outer, inner]. Ties pick the first index, or
 * the last with select_last. n must be >= 1.
 * bindings: [0] X  [1] Y
 * iparams (5): outer n inner is_min select_last
 * fparams: none. */
KILN_DECLARE_KERNEL(arg_reduce_f32)

/* layer_norm_f32: each row of X [outer, n] normalised to zero mean and unit
 * variance, then y = xhat * scale[j] + bias[j]. Optionally writes the row
 * mean and 1/sqrt(var + epsilon) (LayerNormalization outputs 1 and 2).
 * bindings: [0] X  [1] scale [n]  [2] bias [n]  [3] Y  [4] mean [outer]
 *           [5] inv_std_dev [outer]
 * iparams (4): outer n has_bias has_stats
 * fparams (1): epsilon
 * Bindings 2 (has_bias 0) and 4, 5 (has_stats 0) are then not touched. */
KILN_DECLARE_KERNEL(layer_norm_f32)

/* instance_norm_f32: each [spatial] plane of X [N, C, spatial] normalised,
 * then y = xhat * scale[c] + bias[c].
 * bindings: [0] X  [1] scale [C]  [2] bias [C]  [3] Y
 * iparams (3): N C spatial
 * fparams (1): epsilon */
KILN_DECLARE_KERNEL(instance_norm_f32)

/* lp_norm_f32: X [outer, n, inner] divided by the L1 (p = 1) or L2 (p = 2)
 * norm of each vector along the middle axis (a zero norm gives 0/0 = NaN
 * as in ONNX's reference).
 * bindings: [0] X  [1] Y
 * iparams (4): outer n inner p
 * fparams: none. */
KILN_DECLARE_KERNEL(lp_norm_f32)

/* lrn_f32: local response normalisation across channels of X [N, C, spatial]:
 * y = x / (bias + alpha/size * sum of x^2 over channels
 *     [c - (size-1)/2, c + ceil((size-1)/2)])^beta.
 * bindings: [0] X  [1] Y
 * iparams (4): N C spatial size (size >= 1)
 * fparams (3): alpha beta bias */
KILN_DECLARE_KERNEL(lrn_f32)

/* hardmax_f32: 1 at the first maximum along the middle axis of
 * X [outer, n, inner], 0 elsewhere.
 * bindings: [0] X  [1] Y
 * iparams (3): outer n inner
 * fparams: none. */
KILN_DECLARE_KERNEL(hardmax_f32)

/* gemm_pb_f32: gemm_f32 with B pre-packed by the compiler (a constant).
 * bindings, iparams, fparams: as gemm_f32, except trans_b must be 0 and
 * binding 1 holds B [K,N] in panels of 16 columns: B[k,n] is element
 * (n/16)*K*16 + k*16 + n%16, columns past N zero; ceil(N/16)*16*K floats
 * (the module marks such constants ConstantLayout PackedPanel16). */
KILN_DECLARE_KERNEL(gemm_pb_f32)

/* conv2d_res_f32: conv2d_f32 with a residual added before the activation,
 * y = act(conv(x, w) + bias + r).
 * bindings: [0] x  [1] w  [2] bias  [3] r [N,OC,OH,OW]  [4] y [N,OC,OH,OW]
 * iparams, fparams: as conv2d_f32. */
KILN_DECLARE_KERNEL(conv2d_res_f32)

/* conv2d_packed_f32: conv2d_f32 (at most 64 taps KH*KW) with the weights
 * packed by the compiler into panels of 16 output channels:
 * w[oc, ic, kh, kw] is element (oc/16)*K*16 + ((kh*KW + kw)*Cg + ic)*16 + oc%16
 * with Cg = C/groups input channels per group, K = KH*KW*Cg, channels past
 * OC zero; ceil(OC/16)*16*K floats (ConstantLayout PackedPanel16). Groups:
 * one, or each of a multiple of 16 output channels (whole panels; RegNet's
 * and ResNeXt's grouped 3x3 layers). Each output sums its products tap by
 * tap, channels in order within a tap. Chosen for small output planes.
 * bindings: [0] x  [1] packed w  [2] bias  [3] y;  iparams, fparams: as
 * conv2d_f32. */
KILN_DECLARE_KERNEL(conv2d_packed_f32)

/* conv2d_packed_res_f32: conv2d_packed_f32 with a residual, as conv2d_res_f32.
 * bindings: [0] x  [1] packed w  [2] bias  [3] r  [4] y */
KILN_DECLARE_KERNEL(conv2d_packed_res_f32)

/* Most window taps (KH*KW) conv2d_packed_f32 takes: its per-tile tables. */
#define KILN_CONVP_MAX_TAPS 64

/* Input channels up to which conv2d_packed_cl_f32 runs an NCHW x into an
 * NHWC y with the output positions in the vector lanes (an image stem), as
 * fast as conv2d_f32 writes NCHW: the compiler may store a stem's output
 * channels last. */
#define KILN_CONVP_SMALL_C 4

/* conv2d_packed_cl_f32: conv2d_packed_f32 where x and y may each be
 * channels last (NHWC: x [N,H,W,C], y [N,OH,OW,OC]), so a layer between
 * channels-last neighbours needs no transpose. iparams: conv2d_f32's, then
 * x_channels_last y_channels_last (0: NCHW, 1: NHWC). Per output the same
 * sums in the same order as conv2d_packed_f32.
 * bindings: [0] x  [1] packed w  [2] bias  [3] y */
KILN_DECLARE_KERNEL(conv2d_packed_cl_f32)

/* conv2d_packed_cl_res_f32: conv2d_packed_cl_f32 with a residual r in y's
 * layout. bindings: [0] x  [1] packed w  [2] bias  [3] r  [4] y */
KILN_DECLARE_KERNEL(conv2d_packed_cl_res_f32)

/* global_pool_nhwc_f32: global_pool_f32 over channels-last X [N, spatial, C]
 * into Y [N, C]; each channel reduced in index order, so Y equals
 * global_pool_f32 of the NCHW tensor bit for bit.
 * iparams: kind (KILN_POOL_*) N spatial C. */
KILN_DECLARE_KERNEL(global_pool_nhwc_f32)

/* conv2d_dw_nhwc_f32: depthwise conv2d_f32 (groups == C == OC) on
 * channels-last tensors, channels in the vector lanes.
 * bindings: [0] x [N,H,W,C]  [1] w [KH*KW, C] tap-major: w[(kh*KW + kw)*C + c]
 *           is conv2d_f32's w[c,0,kh,kw]  [2] bias [C]  [3] y [N,OH,OW,C]
 * iparams, fparams: as conv2d_f32. Per output: the taps inside the image in
 * (kh, kw) order, then bias, then the activation; thread-independent. */
KILN_DECLARE_KERNEL(conv2d_dw_nhwc_f32)

/* conv2d_winograd_f32: a one-group 3x3 convolution with stride 1 and
 * dilation 1 (any padding) by Winograd's F(4x4, 3x3) (kiln/conv_winograd.h
 * gives the transforms), x and y each NCHW or NHWC as conv2d_packed_cl_f32.
 * iparams: conv2d_packed_cl_f32's (KH = KW = 3, strides and dilations 1,
 * groups 1), then transformed_weights; fparams: act_alpha act_beta.
 * w, as a packed B operand in panels of 16 output channels (ConstantLayout
 * PackedPanel16, channels past OC zero):
 *   transformed_weights 1: U[f][c][oc] = (G w[oc, c] G^T)[f/6][f%6] rounded
 *     once from exact arithmetic, K = 36*C rows (k = f*C + c): element
 *     (oc/16)*36*C*16 + (f*C + c)*16 + oc%16;
 *   transformed_weights 0: the plain weights, K = 9*C rows, tap = kh*3 + kw,
 *     transformed inside the kernel (a quarter of U's bytes to read): for a
 *     plane of 8x8 or more k = c*9 + tap, element
 *     (oc/16)*9*C*16 + (c*9 + tap)*16 + oc%16; under 8x8 (kiln/conv_winograd.h
 *     kiln_winograd_plain_tap_major) k = tap*C + c, conv2d_packed_f32's
 *     layout, and the AVX-512 path runs the direct conv2d_packed_cl_f32 on
 *     them instead (faster there, slower on the other paths), with that
 *     kernel's rounding.
 * scratch: kiln_winograd_scratch_floats(N, C, OC, OH, OW) floats of working
 * memory (kiln/conv_winograd.h), arena memory the compiler plans.
 * Per output: the channels' products summed in channel order per
 * frequency, the output transform, then bias, activation; thread-independent.
 * Its rounding error exceeds a direct sum's (tests/runtime/conv_winograd_test.cc).
 * bindings: [0] x  [1] w  [2] bias  [3] y  [4] scratch */
KILN_DECLARE_KERNEL(conv2d_winograd_f32)

/* conv2d_winograd_res_f32: conv2d_winograd_f32 with a residual r in y's
 * layout, added after the bias and before the activation.
 * bindings: [0] x  [1] w  [2] bias  [3] r  [4] y  [5] scratch */
KILN_DECLARE_KERNEL(conv2d_winograd_res_f32)

/* ---- data movement, NN and recurrent (h9) ----
 * Index tensors are int32 (ib = 4) or int64 (ib = 8). Kernels that follow
 * run-time indices check each one and return KILN_ERR_OUT_OF_RANGE on a bad
 * index (after wrapping negatives once). "kind" codes for typed arithmetic:
 * 0 raw bytes, 1 f32, 2 f64, 3 i32, 4 i64. */

/* gather: Y[o, i, :] = X[o, idx[i], :], X viewed as [outer, len, inner].
 * bindings: [0] X  [1] indices [count]  [2] Y [outer, count, inner]
 * iparams (6): elem_bytes ib outer len inner count */
KILN_DECLARE_KERNEL(gather)

/* gather_elements / scatter_elements along `axis`.
 * gather:  bindings [0] data  [1] indices  [2] out (indices shape)
 * scatter: bindings [0] data  [1] indices  [2] updates (indices shape)  [3] out
 *   (out = data, then out[.., idx, ..] = (or reduction with) updates)
 * iparams (6 + 2R): elem_bytes ib R axis kind reduction  data_dims[R]  index_dims[R]
 *   reduction: 0 none, 1 add, 2 mul, 3 max, 4 min (kind must be nonzero). */
KILN_DECLARE_KERNEL(gather_elements)
KILN_DECLARE_KERNEL(scatter_elements)

/* gather_nd / scatter_nd: data [batch, dims[0..k), slice], indices
 * [batch, count, k], blocks [batch, count, slice].
 * gather:  bindings [0] data  [1] indices  [2] out (blocks)
 * scatter: bindings [0] data  [1] indices  [2] updates (blocks)  [3] out (data)
 * iparams (8 + k): elem_bytes ib kind reduction batch count k slice  dims[k] */
KILN_DECLARE_KERNEL(gather_nd)
KILN_DECLARE_KERNEL(scatter_nd)

/* pad: constant (0), edge (1), reflect (2) or wrap (3) padding; negative
 * begins crop. bindings: [0] X  [1] Y
 * iparams (4 + 3R): elem_bytes mode R fill_bits  in_dims[R] begin[R] out_dims[R]
 *   fill_bits: the constant's bytes (elem_bytes <= 8), little-endian. */
KILN_DECLARE_KERNEL(pad)

/* cumsum: running sum along one axis.
 * bindings: [0] X  [1] axis (int32/int64 scalar, read when axis_ib != 0)  [2] Y
 * iparams (6 + R): kind(1..4) axis_ib(0, 4, 8) exclusive reverse axis R  dims[R]
 *   a run-time axis outside [-R, R) fails the run with KILN_ERR_OUT_OF_RANGE. */
KILN_DECLARE_KERNEL(cumsum)

/* trilu: keep elements with col - row >= k (upper) or <= k (lower), zero the rest.
 * bindings: [0] X  [1] k (int64 scalar, read when k_binding)  [2] Y
 * iparams (7): elem_bytes batch rows cols k upper k_binding */
KILN_DECLARE_KERNEL(trilu)

/* one_hot: Y[o, d, i] = values[indices[o, i] == d] (negative indices + depth).
 * bindings: [0] indices [outer, inner]  [1] values [off, on]  [2] Y
 * iparams (5): elem_bytes idx_kind(1..4) outer depth inner */
KILN_DECLARE_KERNEL(one_hot)

/* resize_f32: separable resampling through per-axis tap tables.
 * bindings: [0] X  [1] Y
 * iparams: R  in_dims[R]  out_dims[R]  taps[R]  index[sum out_dims*taps]
 * fparams: weight[sum out_dims*taps]  extrapolation_value
 *   Y[o] = sum over tap combinations of prod_d weight * X[index...]; an index
 *   of -1 on any axis makes Y[o] the extrapolation value. */
KILN_DECLARE_KERNEL(resize_f32)

/* conv_transpose_f32: 2-D transposed convolution with groups and dilations.
 * bindings: [0] x [N,C,H,W]  [1] w [C,OC/groups,KH,KW]  [2] bias [OC]  [3] y
 * iparams (17): N C H W OC OH OW KH KW stride_h stride_w pad_top pad_left
 *               dilation_h dilation_w groups has_bias */
KILN_DECLARE_KERNEL(conv_transpose_f32)

/* lp_pool_f32: y = (sum_window |x|^p)^(1/p), padding ignored.
 * bindings: [0] x [N,C,H,W]  [1] y [N,C,OH,OW]
 * iparams (15): N C H W OH OW KH KW stride_h stride_w pad_top pad_left
 *               dilation_h dilation_w p */
KILN_DECLARE_KERNEL(lp_pool_f32)

/* einsum: Y[out letters] = sum over the other letters of A (* B), float32
 * or float64, accumulated in double; a float32 einsum that is a batch of
 * matrix products (one summed letter in both operands, at most one output
 * letter of A alone and one of B alone, Y's last letter one of those two)
 * sums in float, each product a GEMM as MatMul's.
 * bindings: [0] A  [1] B (unread when has_b is 0)  [2] Y (dense, out letters)
 * iparams (4 + 3L): L nout has_b is_f64  dims[L]  a_strides[L]  b_strides[L]
 *   letters are ordered output-first; L <= 16. */
KILN_DECLARE_KERNEL(einsum)

/* recurrent_f32: ONNX RNN (cell 0), GRU (1), LSTM (2).
 * bindings: [0] X  [1] W  [2] R  [3] B  [4] initial_h  [5] initial_c  [6] P
 *           [7] Y  [8] Y_h  [9] Y_c
 *           [10] scratch (kiln_recurrent_scratch_floats(..., packed 0) floats)
 *           [11] sequence_lens (int32 [batch], read when has_lens; clamped
 *                to [0, seq])
 * iparams (25 + batch, or 25 when has_lens is 2): cell seq batch input hidden
 *   num_dirs direction(0 fwd, 1 reverse, 2 bidirectional) layout has_b has_h0
 *   has_c0 has_p has_y has_yh has_yc linear_before_reset input_forget has_clip
 *   has_lens (0: the listed lengths, 1: binding [11], 2: every length is seq,
 *   no list)  act[6] (per direction f,g,h: 0 Sigmoid 1 Tanh 2 Relu 3 Affine
 *   4 LeakyRelu 5 ThresholdedRelu 6 ScaledTanh 7 HardSigmoid 8 Elu 9 Softsign
 *   10 Softplus)  seq_lens[batch] (the lengths used when has_lens is 0)
 * fparams (13): clip  alpha[6]  beta[6]
 * Absent optional bindings (flag 0) are not read. */
KILN_DECLARE_KERNEL(recurrent_f32)

/* recurrent_pb_f32: recurrent_f32 with W and R packed by the compiler, in the
 * layout recurrent_f32 packs them into its scratch at run time: per direction
 * and gate g, ceil(H/16) panels of 16 hidden units, panel p holding
 * M[k][p*16 + l] at (p*K + k)*16 + l (zero for p*16 + l >= H), where M is the
 * gate's block of W or R transposed (K = input or H). So binding [1] is
 * [num_dirs, G, ceil(H/16), input, 16] and [2] is [num_dirs, G, ceil(H/16), H, 16];
 * [10] holds kiln_recurrent_scratch_floats(..., packed 1) floats. Everything
 * else as recurrent_f32. */
KILN_DECLARE_KERNEL(recurrent_pb_f32)

/* Steps of one recurrence whose input projections the recurrent kernels
 * compute in one GEMM: all of them, or as many as fit 2^16 floats of gates. */
static inline int64_t kiln_recurrent_chunk(int64_t seq, int64_t gate_cols) {
  const int64_t cap = (int64_t)1 << 16;
  if (gate_cols <= 0 || seq <= cap / gate_cols) return seq;
  return cap / gate_cols > 0 ? cap / gate_cols : 1;
}

/* Floats of scratch recurrent_f32 (packed 0) and recurrent_pb_f32 (packed 1)
 * need, per direction: states h, c [H]; a combined bias, one step's gates
 * [G*Hp] each (Hp = H rounded up to 16); a row [Hp]; the input projections
 * of kiln_recurrent_chunk steps [chunk, G*Hp]; unpacked, W and R packed
 * [G*Hp, input + H]. -1 when a size is negative or the count overflows. */
static inline int64_t kiln_recurrent_scratch_floats(int64_t cell, int64_t seq, int64_t input,
                                                    int64_t hidden, int64_t dirs, int packed) {
  const int64_t lim = (int64_t)1 << 40; /* each factor below stays under 2^42 */
  if (seq < 0 || input < 0 || hidden < 0 || dirs < 0 || seq > lim || input > lim ||
      hidden > lim || dirs > 2)
    return -1;
  const int64_t gates = cell == 2 ? 4 : cell == 1 ? 3 : 1;
  const int64_t hp = (hidden + 15) / 16 * 16, cols = gates * hp;
  const int64_t chunk = kiln_recurrent_chunk(seq, cols);
  /* chunk * cols <= max(2^16, cols); cols * (input + hidden) may not fit. */
  if (!packed && input + hidden > 0 && cols > INT64_MAX / 4 / (input + hidden)) return -1;
  const int64_t weights = packed ? 0 : cols * (input + hidden);
  const int64_t per_dir = 2 * hidden + 2 * cols + hp + chunk * cols + weights;
  return per_dir > INT64_MAX / 2 ? -1 : dirs * per_dir;
}

/* ---- dtype-generic elementwise kernels (cast.c, binary_typed.c, compare.c,
 * select.c, unary_typed.c) --------------------------------------------------
 * Element types travel as kiln_dtype codes (kiln/kernel_abi.h). Broadcasting
 * works as in binary_f32: operands are addressed through per-dim element
 * strides over out_dims (0 broadcasts). */
typedef enum kiln_typed_binary_op {
  KILN_TBINARY_ADD = 0, /* integers wrap modulo 2^bits */
  KILN_TBINARY_SUB = 1,
  KILN_TBINARY_MUL = 2,
  KILN_TBINARY_DIV = 3, /* integers truncate toward zero; x/0 gives 0 */
  KILN_TBINARY_AND = 4, /* bool only */
  KILN_TBINARY_OR = 5,
  KILN_TBINARY_XOR = 6,
  KILN_TBINARY_MAX = 7,  /* floats: NaN in either operand gives NaN */
  KILN_TBINARY_MIN = 8,
  KILN_TBINARY_MOD = 9,  /* result has the sign of B (Python %); x % 0 gives 0 */
  KILN_TBINARY_FMOD = 10,/* C fmod: the result has the sign of A; integer x % 0 gives 0 */
  KILN_TBINARY_SHL = 11, /* unsigned only; shifts >= the bit width give 0 */
  KILN_TBINARY_SHR = 12,
  KILN_TBINARY_BITAND = 13, /* integers only (BitwiseAnd/Or/Xor, opset 18): on the bits */
  KILN_TBINARY_BITOR = 14,
  KILN_TBINARY_BITXOR = 15,
} kiln_typed_binary_op;

typedef enum kiln_compare_op {
  KILN_CMP_EQ = 0,
  KILN_CMP_LT = 1,
  KILN_CMP_LE = 2,
  KILN_CMP_GT = 3,
  KILN_CMP_GE = 4,
} kiln_compare_op;

typedef enum kiln_typed_unary_op {
  KILN_TUNARY_NOT = 0,   /* bool -> bool */
  KILN_TUNARY_ISNAN = 1, /* float -> bool */
  KILN_TUNARY_ISINF = 2, /* float -> bool; arg0 detect +inf, arg1 detect -inf */
  KILN_TUNARY_NEG = 3,   /* same dtype; integers wrap */
  KILN_TUNARY_ABS = 4,   /* same dtype; integers wrap (abs(INT_MIN) = INT_MIN) */
  KILN_TUNARY_BITNOT = 5, /* integers only (BitwiseNot, opset 18): every bit flipped */
} kiln_typed_unary_op;

/* cast: Y = X converted from src_dtype to dst_dtype, element by element.
 * bindings: [0] X [count]  [1] Y [count]
 * iparams (3): src_dtype dst_dtype count
 * Float to integer truncates toward zero, saturating at the target's range
 * (NaN gives 0); to bool is x != 0; integer to integer keeps the low bits;
 * float16 is rounded to nearest even.
 * fparams: none. */
KILN_DECLARE_KERNEL(cast)

/* binary_typed: Y = A op B (kiln_typed_binary_op) for one dtype, broadcasting.
 * bindings: [0] A  [1] B  [2] Y (contiguous, out_dims)
 * iparams (3 + 3*R): op dtype R  out_dims[R]  a_strides[R]  b_strides[R]
 *   arithmetic on any dtype but bool (float16 computed in float), logic ops
 *   on bool only, shifts on unsigned integers only.
 * fparams: none. */
KILN_DECLARE_KERNEL(binary_typed)

/* compare: Y (bool) = A op B (kiln_compare_op) for one input dtype, broadcasting.
 * bindings: [0] A  [1] B  [2] Y (bool, contiguous, out_dims)
 * iparams (3 + 3*R): op dtype R  out_dims[R]  a_strides[R]  b_strides[R]
 *   Comparisons involving NaN are false; uint64 compares unsigned.
 * fparams: none. */
KILN_DECLARE_KERNEL(compare)

/* where: Y = C ? A : B, broadcasting all three; any element size.
 * bindings: [0] C (bool)  [1] A  [2] B  [3] Y (contiguous, out_dims)
 * iparams (2 + 4*R): elem_bytes R  out_dims[R]  c_strides[R]  a_strides[R]
 *                    b_strides[R]
 * fparams: none. */
KILN_DECLARE_KERNEL(where)

/* unary_typed: Y = op(X) (kiln_typed_unary_op).
 * bindings: [0] X [count]  [1] Y [count]
 * iparams (5): op dtype count arg0 arg1   (dtype is X's)
 * fparams: none. */
KILN_DECLARE_KERNEL(unary_typed)

/* pow_typed: Y = A ** B where A and B may have different dtypes (not bool);
 * Y has A's dtype. Integer ** integer is exact and wraps (a negative
 * exponent gives 0 unless A is 1 or -1); otherwise pow() in double, then
 * truncated toward zero for an integer A (NaN and out of range give 0).
 * bindings: [0] A  [1] B  [2] Y (contiguous, out_dims)
 * iparams (3 + 3*R): a_dtype b_dtype R  out_dims[R]  a_strides[R]  b_strides[R]
 * fparams: none. */
KILN_DECLARE_KERNEL(pow_typed)

/* nll_loss_f32: NegativeLogLikelihoodLoss over X [N, C, D] (D = product of
 * the trailing dims, 1 for none) and target [N, D] (int32 or int64); with
 * logits, SoftmaxCrossEntropyLoss: X is first replaced by its log-softmax over
 * C, optionally written to log_prob. loss[n,d] = -X[n, t, d] * w[t] with
 * w = weight or 1; targets equal to ignore_index contribute 0 and no weight;
 * any other target outside [0, C) fails with KILN_ERR_OUT_OF_RANGE.
 * Reduction 0 writes loss [N*D], 1 its sum, 2 sum / sum of w (NaN when every
 * target is ignored).
 * bindings: [0] X  [1] target  [2] weight [C]  [3] loss  [4] log_prob [N,C,D]
 * iparams (9): N C D reduction ignore_index has_weight target_bytes logits
 *              has_log_prob
 * Bindings 2 (has_weight 0) and 4 (has_log_prob 0) are not touched.
 * fparams: none. */
KILN_DECLARE_KERNEL(nll_loss_f32)

/* reduce_typed: reduce_f32 for float64 and float16 data (computed in double),
 * and ReduceMax/ReduceMin of bool data (opset 20: any/all; over nothing,
 * false/true).
 * bindings: [0] X  [1] Y [prod(out_dims)] contiguous, X's dtype
 * iparams (4 + 2*RO + 2*RR): kind dtype RO RR  out_dims[RO] out_strides[RO]
 *                            red_dims[RR] red_strides[RR]   (as reduce_f32)
 * fparams: none. */
KILN_DECLARE_KERNEL(reduce_typed)

/* quantize_linear: Y = saturate(rint(X / scale) + zero_point) over X viewed
 * as [outer, axis, inner], with one scale/zero point per tensor or per axis
 * entry. X float32; Y and zero_point of q_dtype (uint8 or int8).
 * dequantize_linear: Y = (X - zero_point) * scale, X of q_dtype (uint8, int8
 * or int32), Y float32.
 * bindings: [0] X  [1] scale  [2] zero_point (unread without has_zp)  [3] Y
 * iparams (6): outer axis inner q_dtype has_zp per_axis
 * fparams: none. */
KILN_DECLARE_KERNEL(quantize_linear)
KILN_DECLARE_KERNEL(dequantize_linear)

/* dynamic_quantize_linear: uint8 quantization of X with scale = (max(x, 0) -
 * min(x, 0)) / 255 and zero point = saturate(rint(-min / scale)).
 * bindings: [0] X [count] f32  [1] Y [count] u8  [2] scale [1] f32
 *           [3] zero_point [1] u8
 * iparams (1): count
 * fparams: none. */
KILN_DECLARE_KERNEL(dynamic_quantize_linear)

/* pool_nd: max or average pooling over S spatial dims of X [N*C, in...] for
 * float dtypes and integers up to 32 bits (max only), through double.
 * Positions outside the input are skipped; average divides by the positions
 * inside the input, or with count_include_pad inside input + pads.
 * bindings: [0] X  [1] Y [N*C, out...], X's dtype
 * iparams (5 + 7*S): kind dtype S count_include_pad NC  in[S] out[S]
 *                    kernel[S] stride[S] dilation[S] pad_begin[S] pad_end[S]
 * fparams: none. */
KILN_DECLARE_KERNEL(pool_nd)

/* det_f32: Y[b] = det(X[b]) for a batch of M x M float32 matrices (LU with
 * partial pivoting in double); M <= 32.
 * bindings: [0] X [batch, M, M]  [1] Y [batch]
 * iparams (2): batch M
 * fparams: none. */
KILN_DECLARE_KERNEL(det_f32)

/* reverse_sequence: reverses the first lens[b] time steps of each batch
 * entry of X, viewed as [T, B, inner] or (batch_first) [B, T, inner].
 * bindings: [0] X  [1] lens [B] int64  [2] Y (X's shape)
 * iparams (5): elem_bytes batch_first T B inner
 * A length outside [0, T] fails the run with KILN_ERR_OUT_OF_RANGE.
 * fparams: none. */
KILN_DECLARE_KERNEL(reverse_sequence)

/* conv3d_f32: 3-D convolution with groups, dilations, fused bias,
 * residual and activation: y = act(conv(x, w) + bias + r). The compiler
 * routes only 3-D windows here (2-D and 1-D go to conv2d_f32). Taps outside
 * the input read zero; the end pads are implied by the output size.
 * bindings: [0] x [N,C,D,H,W]  [1] w [OC, C/groups, KD, KH, KW]
 *           [2] bias [OC] (unread when has_bias = 0)
 *           [3] r [N,OC,OD,OH,OW] (unread when has_residual = 0)
 *           [4] y [N,OC,OD,OH,OW]
 * iparams (25): N C D H W OC OD OH OW KD KH KW stride_d stride_h stride_w
 *               pad_front pad_top pad_left dilation_d dilation_h dilation_w
 *               groups activation has_bias has_residual
 * fparams (2): act_alpha act_beta (as conv2d_f32). */
KILN_DECLARE_KERNEL(conv3d_f32)

/* conv_transpose3d_f32: 3-D transposed convolution with groups and
 * dilations. Input position i reaches output i*stride - pad_begin +
 * tap*dilation, kept when inside [0, out); output_padding and output_shape
 * are resolved by the compiler into the output size and pads.
 * bindings: [0] x [N,C,D,H,W]  [1] w [C, OC/groups, KD, KH, KW]
 *           [2] bias [OC] (unread when has_bias = 0)  [3] y [N,OC,OD,OH,OW]
 * iparams (23): N C D H W OC OD OH OW KD KH KW stride_d stride_h stride_w
 *               pad_front pad_top pad_left dilation_d dilation_h dilation_w
 *               groups has_bias
 * fparams: none. */
KILN_DECLARE_KERNEL(conv_transpose3d_f32)

/* topk: the K best elements along an axis (X viewed as [outer, len, inner])
 * with their int64 indices, best first; equal values keep the lower index
 * first; floats rank NaN above every number. largest=0 takes the smallest.
 * bindings: [0] x  [1] k (int64/int32 scalar; read only when k_dtype != 0,
 *           and then it must equal K)  [2] values [outer,K,inner] (x's dtype)
 *           [3] indices [outer,K,inner] int64
 * iparams (7): dtype outer len inner K largest k_dtype (0 = k not read)
 * fparams: none. */
KILN_DECLARE_KERNEL(topk)
/* topk_bounded: topk for a model that declares no output shape: K is the
 * capacity (at most len); the run-time k (k_dtype != 0) must lie in 0..K,
 * the result is written densely as [outer, k, inner] and k goes to binding
 * 4 as one int64 (the module's result symbol).
 * bindings: as topk, then [4] k int64 [out] */
KILN_DECLARE_KERNEL(topk_bounded)

/* maxpool_argmax_f32: 2-D max pooling that also writes the flat index of
 * each maximum into x [N,C,H,W]: ((n*C+c)*H + h)*W + w for storage_order 0,
 * (n*C+c)*H*W + w*H + h for 1. First maximum wins ties; padded taps are
 * skipped. bindings: [0] x  [1] y [N,C,OH,OW]  [2] indices (int64, y's shape)
 * iparams (15): N C H W OH OW KH KW stride_h stride_w pad_top pad_left
 *               dilation_h dilation_w storage_order
 * fparams: none. */
KILN_DECLARE_KERNEL(maxpool_argmax_f32)

/* qmatmul: batched integer matmul (MatMulInteger, QLinearMatMul) with numpy
 * batch broadcasting as matmul_f32; uint8/int8 operands, exact int64 sums
 * of (A - a_zp) * (B - b_zp). y_dtype int32 stores the sum; uint8/int8
 * requantizes with round half to even and saturation:
 * y = sat(round(acc * a_scale * b_scale / y_scale) + y_zp).
 * bindings: [0] A  [1] B  [2] a_zp  [3] b_zp  [4] a_scale (f32)
 *           [5] b_scale (f32)  [6] y_scale (f32 scalar)  [7] y_zp (scalar)
 *           [8] Y [batch..., M, N]
 * iparams (11 + 3*R): a_dtype b_dtype y_dtype M N K a_zp_mode b_zp_mode
 *   a_scale_mode b_scale_mode R batch_dims[R] a_batch_strides[R]
 *   b_batch_strides[R]; modes: 0 absent, 1 one value, 2 per row of A (M) /
 *   column of B (N). Scales are read only when requantizing.
 * fparams: none. */
KILN_DECLARE_KERNEL(qmatmul)

/* qconv2d: integer 2-D convolution (ConvInteger, QLinearConv) with groups,
 * strides, dilations and begin pads; padded taps contribute zero (they read
 * x_zp). acc = bias + sum (x - x_zp) * (w - w_zp[oc]) exactly; output as
 * qmatmul (int32, or requantized with x_scale * w_scale[oc] / y_scale).
 * bindings: [0] x [N,C,H,W]  [1] w [OC,C/groups,KH,KW]  [2] x_zp  [3] w_zp
 *           [4] x_scale  [5] w_scale  [6] y_scale  [7] y_zp
 *           [8] bias [OC] int32 (when has_bias)  [9] y [N,OC,OH,OW]
 * iparams (23): x_dtype w_dtype y_dtype N C H W OC OH OW KH KW stride_h
 *   stride_w pad_top pad_left dilation_h dilation_w groups x_zp_mode
 *   w_zp_mode (2 = per output channel) w_scale_mode has_bias
 * fparams: none. */
KILN_DECLARE_KERNEL(qconv2d)

/* signal_window: Hann (kind 0), Hamming (1) or Blackman (2) window of length
 * N, periodic (denominator N) or symmetric (N - 1), computed in double.
 * bindings: [0] size (int32/int64 scalar, must equal N)  [1] y [N]
 * iparams (5): kind N periodic size_dtype out_dtype
 * fparams: none. */
KILN_DECLARE_KERNEL(signal_window)

/* mel_weight_matrix: ONNX MelWeightMatrix [spec_bins, num_mel_bins].
 * bindings: [0] num_mel_bins  [1] dft_length  [2] sample_rate (int scalars;
 *           num_mel_bins and dft_length/2 + 1 must equal the compiled sizes)
 *           [3] lower_edge_hertz  [4] upper_edge_hertz (float scalars)  [5] y
 * iparams (5): num_mel_bins spec_bins int_dtype float_dtype out_dtype
 * fparams: none. */
KILN_DECLARE_KERNEL(mel_weight_matrix)

/* mel_weight_matrix_dims: mel_weight_matrix's output dims [dft_length/2 + 1,
 * num_mel_bins] from the run-time scalars, for a model that declares no
 * output shape (num_mel_bins < 1 or dft_length < 0:
 * KILN_ERR_INVALID_ARGUMENT).
 * bindings: [0] num_mel_bins  [1] dft_length (int scalars)  [2] dims int64 [2]
 * iparams (1): int_dtype
 * fparams: none. */
KILN_DECLARE_KERNEL(mel_weight_matrix_dims)

/* shape_check: checks a shape-like run-time input against the output shape
 * the compiler fixed from the model's declared shape; KILN_OK when the value,
 * resolved with the op's ONNX semantics, gives exactly that shape, else
 * KILN_ERR_INVALID_ARGUMENT. Writes nothing.
 * bindings: [0] v [count] (int64/int32; any non-bool numeric dtype for
 *           EXACT, floats truncated toward zero as OneHot's depth)
 * iparams (6 + IR + OR): mode dtype count flag IR OR  in_dims[IR] out_dims[OR]
 *   mode (kiln_shape_check_mode):
 *   RESHAPE   v is Reshape's shape (0 copies in_dims[i] unless flag =
 *             allowzero is 1; one -1 inferred) and must resolve to out_dims;
 *   SQUEEZE   v are distinct unit axes of in_dims (negative from the back; an
 *             empty v drops every unit axis) whose removal gives out_dims;
 *   UNSQUEEZE v are distinct axes of out_dims where unit dims are inserted;
 *   EXPAND    in_dims broadcast with v gives out_dims;
 *   TILE      in_dims[d] * v[d] = out_dims[d], v[d] >= 0;
 *   EXACT     v = out_dims (Split sizes, ConstantOfShape dims, OneHot depth);
 *   SPLIT     v = out_dims, non-negative, adding up to in_dims[0] (IR = 1:
 *             the axis length; Split sizes reported by shape_resolve);
 *   RESIZE_SCALES v are Resize's float32 scales (> 0): out_dims[d] =
 *             floor(in_dims[d] * v[d]) (resize_core.h).
 * (shape_resolve: every mode.)
 *   IR, OR, count <= KILN_SHAPE_CHECK_MAX_LEN.
 * fparams: none. */
typedef enum kiln_shape_check_mode {
  KILN_SHAPE_CHECK_RESHAPE = 0,
  KILN_SHAPE_CHECK_SQUEEZE = 1,
  KILN_SHAPE_CHECK_UNSQUEEZE = 2,
  KILN_SHAPE_CHECK_EXPAND = 3,
  KILN_SHAPE_CHECK_TILE = 4,
  KILN_SHAPE_CHECK_EXACT = 5,
  KILN_SHAPE_CHECK_SPLIT = 6,
  KILN_SHAPE_CHECK_RESIZE_SCALES = 7,
} kiln_shape_check_mode;
#define KILN_SHAPE_CHECK_MAX_LEN 1024
KILN_DECLARE_KERNEL(shape_check)
/* shape_resolve: shape_check's modes for a model that declares no output
 * shape: out_dims are caps (-1: none, a length the compiler cannot bound);
 * the dims the value gives (validated by the same rules, their product
 * within int64) must each lie within them and go to binding 1 as OR int64
 * (the module's result symbols). Reshape, Squeeze, Unsqueeze and Split keep
 * the input's data; ConstantOfShape (EXACT), Expand and Tile then run their
 * own kernels on those dims. Nothing else is written.
 * bindings: [0] v [count]  [1] dims [OR] int64 [out] */
KILN_DECLARE_KERNEL(shape_resolve)

/* Run-time operator parameters (the *_rt kernels and range): Slice's
 * starts/ends/axes/steps, Pad's pads/axes and Reduce*'s axes arrive as
 * tensors at run time, while the compiler fixed the output shape from the
 * model's declared one. Each kernel resolves the values with the op's ONNX
 * semantics and returns KILN_ERR_INVALID_ARGUMENT, writing nothing, unless
 * they give exactly the compiled out_dims; otherwise it does the op with the
 * same loop as its compile-time twin. Parameter tensors are int32 or int64
 * (*_dtype, a kiln_dtype); axes count from the back when negative and may
 * not repeat; n <= R.
 *
 * slice_rt: Slice (any element type). Bounds clamp as ONNX says (to [0, d]
 * for positive steps; start to [0, d-1], end to [-1, d-1] for negative ones);
 * a zero step fails; dims not in axes are taken whole.
 * bindings: [0] X [in]  [1] starts [n]  [2] ends [n]  [3] axes [n]
 *           [4] steps [n] (the compiler binds constants for absent axes and
 *           steps)  [5] Y [out]
 * iparams (7 + 2R): elem_bytes R n starts_dtype ends_dtype axes_dtype
 *                   steps_dtype  in_dims[R] out_dims[R]
 * fparams: none. */
KILN_DECLARE_KERNEL(slice_rt)
/* slice_rt_bounded: slice_rt for a model that declares no output shape:
 * out_dims are the capacities (equal to in_dims); the dims the parameters
 * give go to binding 6 as R int64 (the module's result symbols) and Y holds
 * them densely.
 * bindings: as slice_rt, then [6] dims [R] int64 [out] */
KILN_DECLARE_KERNEL(slice_rt_bounded)

/* pad_rt: Pad (constant/edge/reflect/wrap as pad's mode; any element type of
 * 1..8 bytes). pads holds the n begins then the n ends of the listed axes;
 * negative pads crop; in + begin + end must give out_dims, other dims stay.
 * bindings: [0] X [in]  [1] pads [2n]  [2] value (elem_bytes bytes: the
 *           constant; the compiler binds zeros when absent)  [3] axes [n]
 *           (a constant 0..R-1 when absent)  [4] Y [out]
 * iparams (6 + 2R): elem_bytes mode R n pads_dtype axes_dtype  in_dims[R]
 *                   out_dims[R]
 * fparams: none. */
KILN_DECLARE_KERNEL(pad_rt)
/* pad_rt_dims: the output dims pad_rt's pads and axes give (each >= 0, the
 * element count at most 2^56), for a model that declares no output shape:
 * the module's result symbols, which pad_rt then takes as out_dims.
 * bindings: [0] pads [2n]  [1] axes [n]  [2] dims [R] int64
 * iparams (6 + R): as pad_rt without out_dims (elem_bytes and mode unread)
 * fparams: none. */
KILN_DECLARE_KERNEL(pad_rt_dims)

/* reduce_rt_f32: Reduce* of kind (kiln_reduce_kind) over the axes read at
 * run time. An empty axes tensor reduces every axis, or with
 * noop_with_empty_axes copies X unchanged. out_dims are the kept dims (and,
 * with keepdims, a 1 for each reduced one), RO of them.
 * bindings: [0] X [in] float32  [1] axes [n]  [2] Y [out] float32
 * iparams (7 + R + RO): kind keepdims noop_with_empty_axes axes_dtype n R RO
 *                       in_dims[R] out_dims[RO]
 * fparams: none. */
KILN_DECLARE_KERNEL(reduce_rt_f32)
/* reduce_rt_f32_bounded: reduce_rt_f32 for a model that declares no output
 * shape: out_dims are capacities (with keepdims the input's dims; without,
 * RO = R - n dims, each at least the largest input dim); the dims the axes
 * give go to binding 3 as RO int64 and Y holds them densely.
 * bindings: as reduce_rt_f32, then [3] dims [RO] int64 [out] */
KILN_DECLARE_KERNEL(reduce_rt_f32_bounded)

/* range: Range with run-time scalars; y[i] = start + i * delta for
 * i < n = max(ceil((limit - start) / delta), 0), which must equal the
 * compiled n (integers exactly; floats in double).
 * bindings: [0] start  [1] limit  [2] delta (scalars of dtype)  [3] Y [n]
 * iparams (2): dtype (float32/float64/int16/int32/int64) n
 * fparams: none. */
KILN_DECLARE_KERNEL(range)
/* range_count: Range's n = max(ceil((limit - start) / delta), 0) alone (a
 * zero or non-finite delta, or n beyond int64, fails with
 * KILN_ERR_SHAPE_MISMATCH), for a model that declares no output shape: the
 * module's result symbol, which range then takes as its n.
 * bindings: [0] start  [1] limit  [2] delta (scalars of dtype)  [3] n int64
 * iparams (1): dtype (as range)
 * fparams: none. */
KILN_DECLARE_KERNEL(range_count)

/* Data-dependent output lengths (NonZero, Compress): the compiler fixed the
 * output shape from the model's declared one; the kernel computes the result
 * and returns KILN_ERR_INVALID_ARGUMENT, writing nothing, unless it has
 * exactly that shape.
 *
 * nonzero: NonZero of any element type (floats by value: -0.0 is zero, NaN
 * is not; other types by their bytes). Y holds the R indices of each of the
 * count non-zero elements, Y[d][j] = index d of the j-th in row-major order.
 * bindings: [0] X [in_dims]  [1] Y int64 [R, count]
 * iparams (3 + R): dtype R (>= 1) count in_dims[R]
 * fparams: none. */
KILN_DECLARE_KERNEL(nonzero)
/* nonzero_bounded: NonZero whose output is shaped after the run: iparams as
 * nonzero with count = the capacity (the output's bound); writes the
 * indices as [R, n] in the first R*n int64 of Y and n, the real count, as
 * one int64 to binding 2 (a module's result symbol).
 * bindings: [0] X  [1] Y [R, capacity] int64  [2] n int64 */
KILN_DECLARE_KERNEL(nonzero_bounded)

/* compress: Compress of any element type (elem_bytes 1..8); X viewed as
 * [outer, axis_len, inner] ([1, all elements, 1] without an axis). The bool
 * condition (one byte each) may be shorter than axis_len; a true entry at or
 * past axis_len fails. Y = the selected slices in order.
 * bindings: [0] X  [1] condition [cond_len]  [2] Y [outer, out_count, inner]
 * iparams (6): elem_bytes outer axis_len inner cond_len out_count
 * fparams: none. */
KILN_DECLARE_KERNEL(compress)
/* compress_bounded: Compress whose output is shaped after the run: iparams
 * as compress with out_count = the capacity (the output's bound); writes
 * [outer, n, inner] at the start of Y and n as one int64 to binding 3.
 * bindings: [0] X  [1] condition  [2] Y  [3] n int64 */
KILN_DECLARE_KERNEL(compress_bounded)

/* unique: Unique of any element type; X viewed as [outer, len, inner]
 * ([1, all elements, 1] without an axis), its len slices compared whole,
 * lexicographically (numbers by value: -0.0 == 0.0, NaN after all numbers
 * and equal to NaN). Fails unless there are exactly `count` distinct
 * slices. Y = the distinct slices, ascending when sorted, else by first
 * occurrence; indices = their first occurrences; inverse = each slice's
 * position in Y; counts = occurrences. An output whose has_* is 0 is not
 * touched (bind anything with 0 bytes).
 * bindings: [0] X  [1] Y [outer, count, inner]  [2] indices int64 [count]
 *           [3] inverse int64 [len]  [4] counts int64 [count]
 *           [5] scratch int64 [2 * len]
 * iparams (9): dtype outer len inner count sorted has_indices has_inverse
 *              has_counts
 * fparams: none. */
KILN_DECLARE_KERNEL(unique)
/* unique_bounded: Unique whose outputs are shaped after the run: iparams as
 * unique with count = the capacity (the outputs' bound, len); Y
 * ([outer, n, inner] from its start), indices and counts are written for
 * the n distinct slices found, inverse in full, and n as one int64 to
 * binding 6 (a module's result symbol).
 * bindings: [0..5] as unique  [6] n int64 */
KILN_DECLARE_KERNEL(unique_bounded)

/* non_max_suppression: NonMaxSuppression over float32 boxes [B, N, 4] and
 * scores [B, C, N]; max_output_boxes_per_class (int64/int32), iou_threshold
 * and score_threshold (float32/float64) are one-element bindings read at run
 * time, their dtype 0 when absent (defaults 0, 0 and no threshold). Fails
 * unless exactly `count` boxes are selected; Y rows are (batch, class, box)
 * per batch, per class, best score first (equal scores: lower box first).
 * bindings: [0] boxes  [1] scores  [2] max_output_boxes_per_class
 *           [3] iou_threshold  [4] score_threshold  [5] Y int64 [count, 3]
 *           [6] scratch int64 [3 * N]
 * iparams (8): B N C center_point_box count max_dtype iou_dtype score_dtype
 * fparams: none. */
KILN_DECLARE_KERNEL(non_max_suppression)
/* non_max_suppression_bounded: NonMaxSuppression whose output is shaped
 * after the run: iparams as non_max_suppression with count = the capacity
 * (the output's bound); writes the n selected rows as [n, 3] from Y's start
 * and n as one int64 to binding 7 (more than the capacity fails).
 * bindings: [0..6] as non_max_suppression  [7] n int64 */
KILN_DECLARE_KERNEL(non_max_suppression_bounded)

/* dropout: Dropout with training_mode (and ratio) read at run time. Not
 * training, or ratio 0: Y = X, mask all true. Training: keep element k when
 * u_k >= ratio, u_k in [0, 1) a splitmix64 hash of the seed and k (the same
 * for any thread count); Y = kept ? X / (1 - ratio) : 0. A ratio outside
 * [0, 1) fails. X/Y float16/32/64; ratio (dtype 0 when absent: 0.5) a float
 * scalar; training_mode a bool scalar (absent: false); the 64-bit seed in
 * two 32-bit halves.
 * bindings: [0] X  [1] ratio  [2] training_mode  [3] Y  [4] mask bool
 * iparams (7): dtype count ratio_dtype has_training has_mask seed_hi seed_lo
 * fparams: none. */
KILN_DECLARE_KERNEL(dropout)

/* grid_sample_f32: ONNX GridSample (opset 16) as torch's grid_sample: each
 * output pixel samples every channel of X at grid[n, oh, ow] = (x, y) in
 * [-1, 1] units (align_corners: -1/1 are the corner pixels' centres, else
 * their outer edges). Nearest rounds ties to even; bicubic uses A = -0.75
 * and pads each of its 4x4 taps. zeros reads 0 outside X, border clamps,
 * reflection folds at those same -1/1 positions until inside. A NaN grid
 * value samples 0, an infinite one lies infinitely far out (0 under
 * reflection); any grid value is safe.
 * bindings: [0] X [N,C,H,W]  [1] grid [N,OH,OW,2]  [2] Y [N,C,OH,OW]
 * iparams (9): N C H W OH OW mode padding align_corners (H, W <= 2^40)
 * fparams: none. */
#define KILN_GRID_SAMPLE_BILINEAR 0
#define KILN_GRID_SAMPLE_NEAREST 1
#define KILN_GRID_SAMPLE_BICUBIC 2
#define KILN_GRID_SAMPLE_ZEROS 0
#define KILN_GRID_SAMPLE_BORDER 1
#define KILN_GRID_SAMPLE_REFLECTION 2
KILN_DECLARE_KERNEL(grid_sample_f32)

/* resize_rt_f32: Resize of float32 data whose scales (or roi) are run-time
 * tensors; each axis's taps are computed per output coordinate with
 * runtime/include/kiln/resize_core.h, the math behind resize_f32's tables.
 * check_scales: KILN_RESIZE_SCALES_CHECKED: floor(in_dims[d] * scales[d])
 * must equal out_dims[d] on every axis, else the kernel fails with
 * KILN_ERR_SHAPE_MISMATCH and writes nothing; KILN_RESIZE_SCALES_GIVEN
 * (run-time sizes, checked by shape_check): the compiler binds scales =
 * out_dims / in_dims; KILN_RESIZE_SCALES_FROM_SIZES: dims patched at run
 * time, the kernel takes scales = (float)out_dims / (float)in_dims itself
 * and does not read binding 2.
 * bindings: [0] X [in_dims] float32  [1] roi [2R] (starts then ends;
 *           roi_dtype; the compiler binds [0.., 1..] when absent)
 *           [2] scales [R] float32  [3] Y [out_dims] float32
 * iparams (7 + 2R): R mode (KILN_RESIZE_NEAREST/LINEAR/CUBIC) nearest_mode
 *                   coordinate_transformation_mode (resize_core.h's enums)
 *                   exclude_outside check_scales roi_dtype (float32/float64)
 *                   in_dims[R] out_dims[R]
 * fparams (2): cubic_coeff_a extrapolation_value */
#define KILN_RESIZE_SCALES_GIVEN 0
#define KILN_RESIZE_SCALES_CHECKED 1
#define KILN_RESIZE_SCALES_FROM_SIZES 2
KILN_DECLARE_KERNEL(resize_rt_f32)

/* Optimizers of the ai.onnx.preview.training domain (Adagrad, Adam,
 * Momentum) for inference: one dispatch updates one optimized float32
 * tensor X of n elements. R is the float32 learning rate and T the int64
 * update count, one element each; both may be run-time inputs.
 *
 * adagrad_f32: r = R / (1 + T*decay_factor), Gr = norm_coefficient*X + G,
 * H_new = H + Gr*Gr, X_new = X - r*Gr / (sqrt(H_new) + epsilon).
 * bindings: [0] R  [1] T  [2] X  [3] G  [4] H  [5] X_new  [6] H_new
 * iparams (1): n
 * fparams (3): norm_coefficient epsilon decay_factor */
KILN_DECLARE_KERNEL(adagrad_f32)

/* adam_f32: Gr = norm_coefficient*X + G, V_new = alpha*V + (1-alpha)*Gr,
 * H_new = beta*H + (1-beta)*Gr*Gr, r = T > 0 ? R*sqrt(1-beta^T)/(1-alpha^T)
 * : R, X_new = (1 - norm_coefficient_post) * (X - r*V_new/(sqrt(H_new)+epsilon)).
 * bindings: [0] R  [1] T  [2] X  [3] G  [4] V  [5] H  [6] X_new  [7] V_new
 *           [8] H_new
 * iparams (1): n
 * fparams (5): norm_coefficient norm_coefficient_post alpha beta epsilon */
KILN_DECLARE_KERNEL(adam_f32)

/* momentum_f32: Gr = norm_coefficient*X + G, V_new = alpha*V + b*Gr with
 * b = T > 0 ? beta : 1; X_new = X - R*V_new, or with nesterov
 * X_new = X - R*(Gr + alpha*V_new).
 * bindings: [0] R  [1] T  [2] X  [3] G  [4] V  [5] X_new  [6] V_new
 * iparams (2): n nesterov (0/1)
 * fparams (3): norm_coefficient alpha beta */
KILN_DECLARE_KERNEL(momentum_f32)

/* max_unpool: ONNX MaxUnpool of any element type (elem_bytes 1..8). X's n
 * elements go to the flat positions their int64 indices name in a tensor of
 * the inferred shape [N, C, spatial...]; that tensor sits at the origin of
 * Y (out_dims >= inferred_dims in every dim), the rest of Y is zero. An
 * index outside [0, prod(inferred_dims)) returns KILN_ERR_INVALID_ARGUMENT
 * with Y untouched.
 * bindings: [0] X [n]  [1] indices int64 [n]  [2] Y [out_dims]
 * iparams (3 + 2R): elem_bytes n R inferred_dims[R] out_dims[R] (R 1..8)
 * fparams: none. */
KILN_DECLARE_KERNEL(max_unpool)

/* roi_align_f32: ONNX RoiAlign as the ONNX reference computes it: region
 * (x1, y1, x2, y2) * spatial_scale, minus 0.5 when half_pixel (else regions
 * under 1x1 are widened to 1x1); output bin (ph, pw) averages (mode 0) or
 * takes the max (mode 1) of a grid of bilinear samples, the grid being
 * sampling_ratio per side or, when 0, ceil(region side / bins). Max mode
 * takes per sample the largest weighted corner value. A batch index outside
 * [0, N) or an adaptive grid that is NaN or too large returns
 * KILN_ERR_INVALID_ARGUMENT with Y untouched.
 * bindings: [0] X [N,C,H,W]  [1] rois [num_rois,4]  [2] batch_indices int64
 *           [num_rois]  [3] Y [num_rois,C,OH,OW]
 * iparams (10): N C H W num_rois OH OW sampling_ratio mode half_pixel
 *               (N, H, W, OH, OW >= 1)
 * fparams (1): spatial_scale */
KILN_DECLARE_KERNEL(roi_align_f32)

/* tfidf: ONNX TfIdfVectorizer on integer tokens. Per row r of X and pool
 * entry e (an n-gram of length n = len at pool[off..off+n)), count is the
 * number of (start i, skip s) with x[r, i + k*(s+1)] == pool[off+k] for all
 * k < n, s in 0..skips (a 1-gram is counted once per position); then
 * Y[r, index] += TF: count, IDF: count > 0 ? weight[e] : 0,
 * TFIDF: count * weight[e]. Y rows start at zero.
 * bindings: [0] X int32/int64 [rows, cols]  [1] pool int64 [pool_len] (constant)
 *           [2] Y float32 [rows, out_len]
 * iparams (8 + 3E): dtype rows cols skips E pool_len out_len mode
 *   then per entry: len off index (1 <= len, off + len <= pool_len,
 *   0 <= index < out_len)
 * fparams (E): weight per entry */
typedef enum kiln_tfidf_mode {
  KILN_TFIDF_TF = 0,
  KILN_TFIDF_IDF = 1,
  KILN_TFIDF_TFIDF = 2,
} kiln_tfidf_mode;
KILN_DECLARE_KERNEL(tfidf)

/* dft_f32: ONNX DFT along one axis of x [O, N_in, I, C] (C = 1 real, 2
 * complex): y[o, k, i] = scale * sum_{j < min(N_in, n)} x[o, j, i] *
 * exp(sign 2 pi i j k / n) for k in [0, K) (K = n, or n/2 + 1 onesided);
 * sign -1, scale 1 forward; sign +1, scale 1/n inverse. Double accumulation.
 * bindings: [0] x  [1] table float64 [n, 2]: cos, sin of 2 pi m / n
 *           [2] y [O, K, I, 2]
 * iparams (7): O N_in I C n K inverse
 * fparams: none. */
KILN_DECLARE_KERNEL(dft_f32)

/* stft_f32: ONNX STFT of signal [B, L, C] (C = 1 or 2): frame f of batch b
 * is signal[b, f * step + j] * window[j], j < fl; y[b, f, k] its forward DFT
 * bin k < K (K = fl/2 + 1 when onesided, else fl). step (and fl, when
 * has_frame_length) are read at run time and must give exactly F frames and
 * K bins (F = (L - fl) / step + 1, fl <= L), fl equal to window_len when
 * that is non-zero and to table_n when that is non-zero, else
 * KILN_ERR_INVALID_ARGUMENT with y untouched.
 * bindings: [0] signal  [1] frame_step (int32/int64 scalar)
 *           [2] window float32 [window_len] (unread when 0)
 *           [3] frame_length (int scalar; unread unless has_frame_length)
 *           [4] table float64 [table_n, 2] as dft_f32's (unread when 0)
 *           [5] y [B, F, K, 2]
 * iparams (11): B L C F K onesided window_len has_frame_length table_n
 *               step_dtype frame_length_dtype
 * fparams: none. */
KILN_DECLARE_KERNEL(stft_f32)

/* stft_dims: the F and K stft_f32 takes, from the run-time frame_step and
 * frame_length (or window_len), for a model that declares no output shape
 * (out of range: KILN_ERR_INVALID_ARGUMENT).
 * bindings: [0] frame_step  [1] frame_length (unread unless has_frame_length)
 *           [2] dims int64 [2]: F K
 * iparams (6): L onesided window_len has_frame_length step_dtype
 *              frame_length_dtype (as stft_f32)
 * fparams: none. */
KILN_DECLARE_KERNEL(stft_dims)

/* fill: ConstantOfShape whose element count the symbols set (the count is
 * patched at run time); y[i] = value for i < n.
 * bindings: [0] value (one element of eb bytes)  [1] Y [n]
 * iparams (2): eb (1, 2, 4 or 8) n
 * fparams: none. */
KILN_DECLARE_KERNEL(fill)

/* arange: Range over bounds the symbols set (start and n patched at run
 * time); y[i] = start + i * delta in dtype for i < n.
 * bindings: [0] Y [n]
 * iparams (4): dtype (float32/float64/int32/int64) n start delta
 * fparams: none. */
KILN_DECLARE_KERNEL(arange)

/* int_values: a size read as tensor data (x * x.shape[1]); its values,
 * patched at run time where they are symbolic, written as int64.
 * bindings: [0] Y [n] int64
 * iparams (1 + n): n values[n]
 * fparams: none. */
KILN_DECLARE_KERNEL(int_values)

#undef KILN_DECLARE_KERNEL

#ifdef __cplusplus
}
#endif

#endif /* KILN_KERNELS_H_ */
