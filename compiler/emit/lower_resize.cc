// Resize → resize_f32 with per-axis tap tables computed here from the
// compile-time scales (and roi) by runtime/include/kiln/resize_core.h, the math
// resize_rt_f32 uses for run-time scales, so the two paths cannot drift.
#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "compiler/emit/lower_ops.h"
#include "compiler/emit/resize_method.h"
#include "compiler/ir/graph.h"
#include "kiln/kernel_abi.h"

namespace kiln::compiler::emit {
namespace {

// The value `name` takes in `table`; false when it is not there.
bool Lookup(const std::map<std::string, int64_t>& table, const std::string& name, int64_t* out) {
  const auto it = table.find(name);
  if (it == table.end()) return false;
  *out = it->second;
  return true;
}

}  // namespace

absl::Status ResizeMethodOf(const LoweringContext& ctx, const ir::Node& node,
                            kiln_resize_method* m) {
  static const auto* kModes = new std::map<std::string, int64_t>{
      {"nearest", KILN_RESIZE_NEAREST}, {"linear", KILN_RESIZE_LINEAR}, {"cubic", KILN_RESIZE_CUBIC}};
  static const auto* kNearest = new std::map<std::string, int64_t>{
      {"round_prefer_floor", KILN_RESIZE_ROUND_PREFER_FLOOR},
      {"round_prefer_ceil", KILN_RESIZE_ROUND_PREFER_CEIL},
      {"floor", KILN_RESIZE_FLOOR},
      {"ceil", KILN_RESIZE_CEIL}};
  static const auto* kTransforms = new std::map<std::string, int64_t>{
      {"half_pixel", KILN_RESIZE_HALF_PIXEL},
      {"align_corners", KILN_RESIZE_ALIGN_CORNERS},
      {"asymmetric", KILN_RESIZE_ASYMMETRIC},
      {"tf_crop_and_resize", KILN_RESIZE_TF_CROP_AND_RESIZE},
      {"pytorch_half_pixel", KILN_RESIZE_PYTORCH_HALF_PIXEL},
      {"tf_half_pixel_for_nn", KILN_RESIZE_TF_HALF_PIXEL_FOR_NN},
      {"half_pixel_symmetric", KILN_RESIZE_HALF_PIXEL_SYMMETRIC}};
  const std::string mode = node.GetString("mode", "nearest");
  const std::string nearest = node.GetString("nearest_mode", "round_prefer_floor");
  const std::string ctm = node.GetString("coordinate_transformation_mode", "half_pixel");
  if (!Lookup(*kModes, mode, &m->mode)) return ctx.Unimplemented(node, absl::StrCat("mode '", mode, "'"));
  if (!Lookup(*kNearest, nearest, &m->nearest)) {
    return ctx.Unimplemented(node, absl::StrCat("nearest_mode '", nearest, "'"));
  }
  if (!Lookup(*kTransforms, ctm, &m->ctm)) {
    return ctx.Unimplemented(node, absl::StrCat("coordinate_transformation_mode '", ctm, "'"));
  }
  // antialias (opset 18) widens the linear and cubic filters when they
  // shrink an axis; upscaling and nearest sampling are unchanged by it.
  if (node.GetInt("antialias", 0) != 0 && m->mode != KILN_RESIZE_NEAREST) {
    auto it = node.attributes.find("kiln.scales");
    if (it == node.attributes.end()) {
      return ctx.Unimplemented(node, "antialias with scales known only at run time");
    }
    for (float s : it->second.floats) {
      if (s < 1.0f) return ctx.Unimplemented(node, "antialias on an axis it shrinks (scale < 1)");
    }
  }
  m->exclude_outside = node.GetInt("exclude_outside", 0) != 0 ? 1 : 0;
  m->cubic_a = node.GetFloat("cubic_coeff_a", -0.75f);
  return absl::OkStatus();
}

namespace {

struct Tap {
  int64_t index;
  double weight;
};

// Taps of output coordinate `o` on one axis; index -1 = outside (extrapolate).
std::vector<Tap> AxisTaps(const kiln_resize_method& m, int64_t in, int64_t out, double scale,
                          int64_t o, double roi_start, double roi_end) {
  int64_t index[KILN_RESIZE_MAX_TAPS];
  double weight[KILN_RESIZE_MAX_TAPS];
  const int n = kiln_resize_axis_taps(&m, in, out, scale, o, roi_start, roi_end, index, weight);
  std::vector<Tap> taps;
  for (int t = 0; t < n; ++t) taps.push_back({index[t], weight[t]});
  return taps;
}

}  // namespace

absl::Status LowerResize(LoweringContext& ctx, const ir::Node& node) {
  if (ctx.value(node.inputs[0]).dtype != ir::DType::F32) {
    return ctx.Unimplemented(node, "Resize supports float32 data only");
  }
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, 0));
  kiln_resize_method method;
  KILN_RETURN_IF_ERROR(ResizeMethodOf(ctx, node, &method));
  const size_t r = x.size();
  if (r > KILN_MAX_RANK) return ctx.Unimplemented(node, "rank is too high");
  std::vector<float> scales(r, 1.0f);
  auto it = node.attributes.find("kiln.scales");
  if (it != node.attributes.end() && it->second.floats.size() == r) scales = it->second.floats;
  std::vector<double> roi(2 * r, 0.0);
  for (size_t d = 0; d < r; ++d) roi[r + d] = 1.0;
  if (HasInput(node, 1) && ctx.graph().opset >= 11) {
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
  kernel::ResizeF32 resize;
  resize.R = static_cast<int64_t>(r);
  resize.in_dims = x;
  resize.out_dims = y;
  std::vector<int64_t>& taps_per_axis = resize.taps;
  std::vector<int64_t>& indices = resize.index;
  std::vector<float>& weights = resize.weight;
  for (size_t d = 0; d < r; ++d) {
    std::vector<std::vector<Tap>> all;
    size_t most = 1;
    for (int64_t o = 0; o < y[d]; ++o) {
      all.push_back(AxisTaps(method, x[d], y[d], scales[d], o, roi[d], roi[r + d]));
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
  resize.extrapolation_value = node.GetFloat("extrapolation_value", 0.0f);
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  return ctx.Dispatch(node, resize, {bx, by});
}

}  // namespace kiln::compiler::emit
