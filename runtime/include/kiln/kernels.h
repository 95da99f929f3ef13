/* Kiln runtime kernels: declarations and the static-parameter layout of each.
 * All tensors are dense, row-major (NCHW for images) and 4-byte aligned at
 * least; sizes and strides count elements unless a name says bytes. Output
 * bindings never alias input bindings.
 */
#ifndef KILN_KERNELS_H_
#define KILN_KERNELS_H_

#include "kiln/kernel_abi.h"

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
} kiln_activation;

typedef enum kiln_binary_op {
  KILN_BINARY_ADD = 0,
  KILN_BINARY_SUB = 1,
  KILN_BINARY_MUL = 2,
  KILN_BINARY_DIV = 3,
} kiln_binary_op;

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
 *   count elements of elem_bytes bytes; strides are >= 0.
 * fparams: none. */
KILN_DECLARE_KERNEL(strided_copy)

/* copy: Y[0:bytes] = X[0:bytes].
 * bindings: [0] X  [1] Y
 * iparams (1): bytes
 * fparams: none. */
KILN_DECLARE_KERNEL(copy)

#undef KILN_DECLARE_KERNEL

#ifdef __cplusplus
}
#endif

#endif /* KILN_KERNELS_H_ */
