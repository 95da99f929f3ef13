#include "compiler/passes/shape_rules_resize_rt.h"

#include <cmath>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"
#include "compiler/passes/known_elements.h"
#include "compiler/passes/shape_rule_context.h"

namespace kiln::compiler {
namespace {

using ir::DType;
using ir::ShapeStr;
using Shape = std::vector<int64_t>;
using Ctx = ShapeRuleContext;

bool IsResize(const ir::Graph& graph, const ir::Node& node) {
  return (node.domain.empty() || node.domain == "ai.onnx") && node.op_type == "Resize" &&
         graph.opset >= 11;
}

// Input k is present with a static shape of at least one element.
bool Given(Ctx& c, size_t k) { return c.Has(k) && ir::ElementCount(c.S(k)) > 0; }

// Input k is a 1-D tensor of `n` entries of one of the dtypes a, b.
absl::Status Vector(Ctx& c, size_t k, const char* what, int64_t n, DType a, DType b,
                    const char* types) {
  if ((c.T(k) != a && c.T(k) != b) || c.Rank(k) != 1 || c.S(k)[0] != n) {
    return c.Err(absl::StrCat(what, " input '", c.In(k).name, "' must be a 1-D ", types,
                              " tensor of ", n, " entries, got ", ir::DTypeName(c.T(k)), " ",
                              ShapeStr(c.S(k))));
  }
  return absl::OkStatus();
}

absl::Status Mismatch(Ctx& c, const Shape& y, const std::string& why) {
  return c.Err(absl::StrCat("the declared output shape ", ShapeStr(y), " ", why));
}

// What both rules require: float32 data, the stretch policy without axes,
// exactly one of scales and sizes with one entry per axis, roi's form.
absl::Status CheckInputs(Ctx& c) {
  const int64_t r = c.Rank(0);
  if (c.T(0) != DType::F32) {
    return c.Err(absl::StrCat("run-time scales or roi are supported for float32 data, got ",
                              ir::DTypeName(c.T(0))));
  }
  if (c.node().HasAttr("axes")) return c.Err("the axes attribute (opset 18) is not supported");
  if (c.node().GetString("keep_aspect_ratio_policy", "stretch") != "stretch") {
    return c.Err("keep_aspect_ratio_policy other than stretch is not supported");
  }
  const bool scales = Given(c, 2), sizes = Given(c, 3);
  if (scales == sizes) return c.Err("needs exactly one of scales and sizes");
  KILN_RETURN_IF_ERROR(scales ? Vector(c, 2, "scales", r, DType::F32, DType::F32, "float32")
                              : Vector(c, 3, "sizes", r, DType::I64, DType::I64, "int64"));
  // roi is read only by tf_crop_and_resize; other modes ignore it.
  if (c.node().GetString("coordinate_transformation_mode", "half_pixel") ==
          "tf_crop_and_resize" &&
      Given(c, 1)) {
    return Vector(c, 1, "roi", 2 * r, DType::F32, DType::F64, "float32 or float64");
  }
  return absl::OkStatus();
}

absl::Status Rule(Ctx& c, const Shape& y) {
  const Shape& x = c.S(0);
  const int64_t r = c.Rank(0);
  KILN_RETURN_IF_ERROR(CheckInputs(c));
  if (static_cast<int64_t>(y.size()) != r) {
    return Mismatch(c, y, absl::StrCat("has not the ", r, " dims of the input"));
  }
  if (Given(c, 2)) {
    if (const ir::ConstantData* k = c.C(2)) {  // known scales: the shape is known too
      for (int64_t d = 0; d < r; ++d) {
        const double v = k->FloatAt(d);
        if (!(v > 0) || std::floor(static_cast<double>(x[d]) * v) != static_cast<double>(y[d])) {
          return Mismatch(c, y, absl::StrCat("is not input ", ShapeStr(x), " scaled by scales[",
                                             d, "] = ", v));
        }
      }
    }
  } else if (const ir::ConstantData* k = c.C(3)) {
    for (int64_t d = 0; d < r; ++d) {
      if (k->IntAt(d) != y[d]) return Mismatch(c, y, "is not the sizes input");
    }
  }
  if (ir::ElementCount(y) > 0) {
    for (int64_t d : x) {
      if (d == 0) return c.Err(absl::StrCat("cannot resize the empty input ", ShapeStr(x)));
    }
  }
  return c.Set(0, DType::F32, y);
}

// No declared output shape: every output dim is a length shape_resolve
// reports during the run (floor(in * scale) from run-time scales, or the
// run-time sizes), without a bound, so the output goes to the workspace's
// tail (or is the caller's buffer, grown as the run asks).
// Entries of run-time sizes known at compile time (the batch and channels
// of a Shape concatenated with computed H and W) keep their dims static, and
// so do dims a known whole-number scale multiplies (scales [1, 1] for the
// batch and channels concatenated with computed ones): floor(x * k) = x * k.
absl::Status RuleAfterRun(Ctx& c, const std::vector<ir::ConstantPtr>& known) {
  const Shape x = c.S(0);  // a copy: appending the dims output may move it
  KILN_RETURN_IF_ERROR(CheckInputs(c));
  for (int64_t d : x) {
    if (d == 0) return c.Err(absl::StrCat("cannot resize the empty input ", ShapeStr(x)));
  }
  const bool by_sizes = Given(c, 3);
  std::vector<std::optional<int64_t>> fixed =
      KnownElements(c.graph(), c.node().inputs[by_sizes ? 3 : 2], known);
  fixed.resize(x.size());
  for (size_t d = 0; d < x.size(); ++d) {
    if (!fixed[d]) continue;
    if (by_sizes && *fixed[d] < 0) {
      return c.Err(absl::StrCat("sizes[", d, "] = ", *fixed[d], " is not a size"));
    }
    if (!by_sizes) {
      if (*fixed[d] <= 0) {
        return c.Err(absl::StrCat("scales[", d, "] = ", *fixed[d], " is not positive"));
      }
      fixed[d] = c.graph().dims.Mul(x[d], *fixed[d]);
    }
  }
  KILN_ASSIGN_OR_RETURN(const ir::ValueId dims,
                        c.ReportedDimsOutput(1, static_cast<int64_t>(x.size())));
  Shape y(x.size());
  for (size_t d = 0; d < x.size(); ++d) {
    const int64_t j = static_cast<int64_t>(d);
    y[d] = fixed[d] ? *fixed[d] : c.ReportedDim(dims, j, ir::kNoBound, 0, absl::StrCat(".dim", j));
  }
  return c.Set(0, DType::F32, std::move(y));
}

}  // namespace

bool HasRuntimeResizeParams(const ir::Graph& graph, const ir::Node& node) {
  if (!IsResize(graph, node)) return false;
  for (size_t k = 1; k <= 2 && k < node.inputs.size(); ++k) {
    if (node.inputs[k] != ir::kNoValue && !graph.value(node.inputs[k]).constant) return true;
  }
  return false;
}

bool InferRuntimeResize(Ctx& c, absl::Status* status) {
  const ir::Graph& graph = c.graph();
  const ir::Node& node = c.node();
  if (!IsResize(graph, node)) return false;
  const bool params = (c.Has(1) && c.C(1) == nullptr) || (c.Has(2) && c.C(2) == nullptr);
  const bool sizes = c.Has(3) && c.C(3) == nullptr;
  const bool reports = node.GetInt("kiln.result_dims", 0) != 0;
  if (!params && !sizes) return false;
  if (!c.Has(0)) return false;
  // A declared output: only static shapes (every input's and the output's).
  // Reported dims: X may have symbolic dims (patched into both kernels), the
  // parameters' shapes must be static.
  Shape y;
  if (!c.StaticInputs(1, 3)) return false;  // roi, scales, sizes
  const bool x_static = c.In(0).has_shape && Ctx::StaticShape(c.S(0));
  if (!c.In(0).has_shape) return false;
  if (x_static && !reports && node.outputs.size() == 1 && c.DeclaredStatic(0, &y)) {
    if (!params) return false;  // run-time sizes: shape_rules_runtime.cc
    *status = Rule(c, y);
    return true;
  }
  // Without a declaration (outside control-flow bodies, whose lengths take
  // one slot each): dims reported after the run.
  if (!reports && (node.outputs.size() != 1 || !graph.scope.empty())) return false;
  *status = RuleAfterRun(c, c.known());
  return true;
}

}  // namespace kiln::compiler
