#include "compiler/emit/lower_winograd.h"

#include <cstring>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/emit/lower_ops.h"
#include "compiler/emit/panel_packing.h"
#include "kiln/conv_winograd.h"

namespace kiln::compiler::emit {
namespace {

// G of F(4x4, 3x3) (kiln/conv_winograd.h).
constexpr double kG[KILN_WINOGRAD_A][3] = {{1.0 / 4, 0, 0},
                                           {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                           {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                           {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                           {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                           {0, 0, 1}};

}  // namespace

ir::ConstantPtr WinogradWeights(const ir::ConstantData& w, int64_t oc, int64_t c) {
  // U as a row-major [36*C, OC] matrix, then in panels.
  ir::ConstantData u;
  u.dtype = ir::DType::F32;
  u.shape = {KILN_WINOGRAD_FREQS * c, oc};
  std::vector<float> values(static_cast<size_t>(KILN_WINOGRAD_FREQS * c * oc));
  const float* g = w.data<float>();
  for (int64_t o = 0; o < oc; ++o) {
    for (int64_t ic = 0; ic < c; ++ic) {
      const float* k = g + (o * c + ic) * 9;
      double gk[KILN_WINOGRAD_A][3];  // G k
      for (int i = 0; i < KILN_WINOGRAD_A; ++i) {
        for (int b = 0; b < 3; ++b) {
          gk[i][b] = kG[i][0] * k[b] + kG[i][1] * k[3 + b] + kG[i][2] * k[6 + b];
        }
      }
      for (int i = 0; i < KILN_WINOGRAD_A; ++i) {
        for (int j = 0; j < KILN_WINOGRAD_A; ++j) {
          const double v = gk[i][0] * kG[j][0] + gk[i][1] * kG[j][1] + gk[i][2] * kG[j][2];
          values[((i * KILN_WINOGRAD_A + j) * c + ic) * oc + o] = static_cast<float>(v);
        }
      }
    }
  }
  u.bytes.resize(values.size() * sizeof(float));
  if (!values.empty()) std::memcpy(u.bytes.data(), values.data(), u.bytes.size());
  return PackPanels16(u, KILN_WINOGRAD_FREQS * c, oc,
                      [oc](int64_t k, int64_t o) { return k * oc + o; });
}

absl::Status LowerWinogradConv(LoweringContext& ctx, const ir::Node& node,
                               const kernel::Conv2dPackedClF32& conv, const Binding& x,
                               const Binding& y) {
  if (node.outputs.size() != 2 || node.outputs[1] == ir::kNoValue ||
      node.GetInt("kiln.scratch", 0) != 1) {
    return ctx.Invalid(node, "the Winograd scratch output is missing");
  }
  const ir::Value& wv = ctx.value(node.inputs[1]);
  if (wv.constant == nullptr || wv.shape.size() != 4 || wv.shape[2] != 3 || wv.shape[3] != 3) {
    return ctx.Error(absl::StatusCode::kInternal, node,
                     "a Winograd conv needs constant 3x3 weights");
  }
  const int64_t oc = wv.shape[0], c = wv.shape[1];
  // "kiln.winograd" 1: U made here; 2: the plain weights in panels, K = 9*C,
  // for the kernel to transform: channel-major (w's own order), or on a
  // plane under 8x8 tap-major, conv2d_packed_f32's layout, which the
  // AVX-512 path runs directly (kernels.h).
  const bool transformed = node.GetInt("kiln.winograd", 1) == 1;
  kernel::Conv2dWinogradF32 params(conv);
  params.transformed_weights = transformed ? 1 : 0;
  const Binding u =
      transformed ? ctx.BindNewConstant(absl::StrCat(wv.name, ".winograd"),
                                        WinogradWeights(*wv.constant, oc, c),
                                        /*layout=PackedPanel16*/ 1)
                  : ctx.BindNewConstant(absl::StrCat(wv.name, ".winograd_plain"),
                                        kiln_winograd_plain_tap_major(conv.OH.value, conv.OW.value)
                                            ? PackConvPanels16(*wv.constant, 9, c, oc)
                                            : PackPanels16(*wv.constant, 9 * c, oc,
                                                           [c](int64_t k, int64_t o) {
                                                             return o * 9 * c + k;
                                                           }),
                                        /*layout=PackedPanel16*/ 1);
  const bool has_bias = HasInput(node, 2);
  Binding bias = u;  // unread when there is no bias
  if (has_bias) {
    KILN_ASSIGN_OR_RETURN(bias, ctx.Bind(node, node.inputs[2]));
  }
  KILN_ASSIGN_OR_RETURN(Binding scratch, ctx.Bind(node, node.outputs[1]));
  const int64_t unread = has_bias ? -1 : 0;
  // A residual fused by dispatch formation (input 3).
  if (HasInput(node, 3)) {
    KILN_ASSIGN_OR_RETURN(Binding r, ctx.Bind(node, node.inputs[3]));
    return ctx.Dispatch(node, kernel::Conv2dWinogradResF32(params), {x, u, bias, r, y, scratch},
                        {-1, -1, unread, -1, -1, -1});
  }
  return ctx.Dispatch(node, params, {x, u, bias, y, scratch}, {-1, -1, unread, -1, -1});
}

}  // namespace kiln::compiler::emit
