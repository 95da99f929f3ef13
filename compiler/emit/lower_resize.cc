// Resize → resize_f32 with per-axis tap tables computed here, following the
// ONNX reference (onnx/reference/ops/op_resize.py): each output coordinate
// maps to x_ori by the coordinate transformation mode; the taps are the n
// nearest input positions (n = 2 for nearest/linear, 4 for cubic, edge
// clamped) with coefficients from the fractional part.
#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "compiler/emit/lower_ops.h"
#include "compiler/ir/graph.h"
#include "kiln/kernel_abi.h"

namespace kiln::compiler::emit {
namespace {

struct Tap {
  int64_t index;
  double weight;
};

std::vector<double> Coeffs(const std::string& mode, const std::string& nearest, double ratio,
                           double a) {
  if (mode == "nearest") {
    if (ratio == 1.0) return {0, 1};
    if (nearest == "round_prefer_ceil") return {ratio < 0.5 ? 1.0 : 0.0, ratio >= 0.5 ? 1.0 : 0.0};
    if (nearest == "floor") return {1, 0};
    if (nearest == "ceil") return {0, 1};
    return {ratio <= 0.5 ? 1.0 : 0.0, ratio > 0.5 ? 1.0 : 0.0};  // round_prefer_floor
  }
  if (mode == "linear") return {1 - ratio, ratio};
  const double r = ratio, q = 1 - ratio;
  return {((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
          ((a + 2) * r - (a + 3)) * r * r + 1, ((a + 2) * q - (a + 3)) * q * q + 1,
          ((a * (q + 1) - 5 * a) * (q + 1) + 8 * a) * (q + 1) - 4 * a};
}

// Taps of output coordinate `o` on one axis; index -1 = outside (extrapolate).
std::vector<Tap> AxisTaps(const ir::Node& node, int64_t in, int64_t out, double scale, int64_t o,
                          double roi_start, double roi_end) {
  const std::string ctm = node.GetString("coordinate_transformation_mode", "half_pixel");
  const std::string mode = node.GetString("mode", "nearest");
  const double out_w = scale * static_cast<double>(in);
  const double x = static_cast<double>(o);
  double xo;
  if (ctm == "align_corners") {
    xo = out_w == 1 ? 0.0 : x * (in - 1) / (out_w - 1);
  } else if (ctm == "asymmetric") {
    xo = x / scale;
  } else if (ctm == "tf_crop_and_resize") {
    xo = out == 1 ? (roi_end - roi_start) * (in - 1) / 2
                  : roi_start * (in - 1) + x * (roi_end - roi_start) * (in - 1) / (out - 1);
  } else if (ctm == "pytorch_half_pixel") {
    xo = out_w == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
  } else if (ctm == "tf_half_pixel_for_nn") {
    xo = (x + 0.5) / scale;
  } else {  // half_pixel
    xo = (x + 0.5) / scale - 0.5;
  }
  if (ctm == "tf_crop_and_resize" && (xo < 0 || xo > in - 1)) return {{-1, 1.0}};
  // A crafted roi or scale can make xo NaN or huge; far outside the input
  // every tap clamps to an edge anyway, and int64 conversions stay defined.
  if (!(std::fabs(xo) <= 1e12)) xo = std::isnan(xo) ? 0.0 : std::copysign(1e12, xo);
  const double fl = std::floor(xo);
  const double ratio = xo == fl ? 1.0 : xo - fl;
  std::vector<double> c = Coeffs(mode, node.GetString("nearest_mode", "round_prefer_floor"), ratio,
                                 node.GetFloat("cubic_coeff_a", -0.75f));
  const int64_t n = static_cast<int64_t>(c.size());
  // The n positions nearest to xo, ties to the lower one, in order.
  const int64_t base = xo == fl ? static_cast<int64_t>(fl) - n / 2
                                : static_cast<int64_t>(fl) - (n / 2 - 1);
  const bool exclude = node.GetInt("exclude_outside", 0) != 0;
  double sum = 0;
  for (int64_t t = 0; t < n; ++t) {
    const int64_t idx = base + t;
    if (exclude && (idx < 0 || idx >= in)) c[t] = 0;
    sum += c[t];
  }
  std::vector<Tap> taps;
  for (int64_t t = 0; t < n; ++t) {
    const double w = exclude && sum != 0 ? c[t] / sum : c[t];
    if (w == 0) continue;
    const int64_t idx = std::clamp<int64_t>(base + t, 0, in - 1);
    bool merged = false;
    for (Tap& tp : taps) {
      if (tp.index == idx) tp.weight += w, merged = true;
    }
    if (!merged) taps.push_back({idx, w});
  }
  if (taps.empty()) taps.push_back({0, 0.0});
  return taps;
}

absl::Status LowerResize(LoweringContext& ctx, const ir::Node& node) {
  if (ctx.value(node.inputs[0]).dtype != ir::DType::F32) {
    return ctx.Unimplemented(node, "Resize supports float32 data only");
  }
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, 0));
  const std::string mode = node.GetString("mode", "nearest");
  if (mode != "nearest" && mode != "linear" && mode != "cubic") {
    return ctx.Unimplemented(node, absl::StrCat("mode '", mode, "'"));
  }
  const size_t r = x.size();
  if (r > KILN_MAX_RANK) return ctx.Unimplemented(node, "rank is too high");
  std::vector<float> scales(r, 1.0f);
  auto it = node.attributes.find("kiln.scales");
  if (it != node.attributes.end() && it->second.floats.size() == r) scales = it->second.floats;
  std::vector<double> roi(2 * r, 0.0);
  for (size_t d = 0; d < r; ++d) roi[r + d] = 1.0;
  if (node.inputs.size() > 1 && node.inputs[1] != ir::kNoValue && ctx.graph().opset >= 11) {
    const ir::ConstantPtr& c = ctx.value(node.inputs[1]).constant;
    if (c && c->element_count() == static_cast<int64_t>(2 * r)) {
      for (size_t k = 0; k < 2 * r; ++k) roi[k] = c->FloatAt(static_cast<int64_t>(k));
    }
  }
  // The tap tables grow with the output extent of each axis; past this the
  // module would hold more table than any real model's activations.
  constexpr int64_t kMaxTapRows = int64_t{1} << 20;
  int64_t rows = 0;
  for (int64_t d : y) {
    if (d > kMaxTapRows - rows) {
      return ctx.Unimplemented(node, absl::StrCat("output extents sum past ", kMaxTapRows));
    }
    rows += d;
  }
  std::vector<int64_t> ip = {static_cast<int64_t>(r)};
  ip.insert(ip.end(), x.begin(), x.end());
  ip.insert(ip.end(), y.begin(), y.end());
  std::vector<int64_t> taps_per_axis, indices;
  std::vector<float> weights;
  for (size_t d = 0; d < r; ++d) {
    std::vector<std::vector<Tap>> all;
    size_t most = 1;
    for (int64_t o = 0; o < y[d]; ++o) {
      all.push_back(AxisTaps(node, x[d], y[d], scales[d], o, roi[d], roi[r + d]));
      most = std::max(most, all.back().size());
    }
    taps_per_axis.push_back(static_cast<int64_t>(most));
    for (auto& t : all) {
      t.resize(most, Tap{t[0].index < 0 ? -1 : 0, 0.0});
      for (const Tap& tp : t) {
        indices.push_back(tp.index);
        weights.push_back(static_cast<float>(tp.weight));
      }
    }
  }
  ip.insert(ip.end(), taps_per_axis.begin(), taps_per_axis.end());
  ip.insert(ip.end(), indices.begin(), indices.end());
  weights.push_back(node.GetFloat("extrapolation_value", 0.0f));
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  return ctx.Dispatch(node, "resize_f32", std::move(ip), std::move(weights), {bx, by});
}

}  // namespace

void RegisterResizeLowerings(LoweringTable& table) { table["Resize"] = LowerResize; }

}  // namespace kiln::compiler::emit
