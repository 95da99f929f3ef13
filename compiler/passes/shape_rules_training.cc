#include "compiler/passes/shape_rules_training.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"
#include "compiler/passes/shape_rule_context.h"

namespace kiln::compiler {
namespace {

using ir::DType;
using ir::ShapeStr;
using Ctx = ShapeRuleContext;

// R and T: one element each, float32 and int64.
absl::Status CheckScalars(Ctx& c) {
  if (c.T(0) != DType::F32 || ir::ElementCount(c.S(0)) != 1 || !Ctx::StaticShape(c.S(0))) {
    return c.Err(absl::StrCat("R must be a float32 scalar, got ", ir::DTypeName(c.T(0)), " ",
                              ShapeStr(c.S(0))));
  }
  if (c.T(1) != DType::I64 || ir::ElementCount(c.S(1)) != 1 || !Ctx::StaticShape(c.S(1))) {
    return c.Err(absl::StrCat("T must be an int64 scalar, got ", ir::DTypeName(c.T(1)), " ",
                              ShapeStr(c.S(1))));
  }
  return absl::OkStatus();
}

// Momentum has no attribute defaults in ONNX; its mode picks the update.
absl::Status CheckMomentumAttributes(Ctx& c) {
  for (const char* name : {"alpha", "beta", "norm_coefficient", "mode"}) {
    if (!c.node().HasAttr(name)) return c.Err(absl::StrCat("attribute '", name, "' is required"));
  }
  const std::string mode = c.node().GetString("mode", "");
  if (mode != "standard" && mode != "nesterov") {
    return c.Err(absl::StrCat("mode '", mode, "' is not \"standard\" or \"nesterov\""));
  }
  return absl::OkStatus();
}

absl::Status Infer(Ctx& c) {
  const ir::Node& node = c.node();
  const size_t group = static_cast<size_t>(TrainingGroupSize(node));
  const size_t outs_per = group - 1;  // every tensor but G has an updated form
  if (node.inputs.size() < 2 + group || (node.inputs.size() - 2) % group != 0) {
    return c.Err(absl::StrCat("takes R, T and groups of ", group, " tensors; got ",
                              node.inputs.size(), " inputs"));
  }
  const size_t k = (node.inputs.size() - 2) / group;
  if (node.outputs.size() != k * outs_per) {
    return c.Err(absl::StrCat(k, " optimized tensors need ", k * outs_per, " outputs; got ",
                              node.outputs.size()));
  }
  KILN_RETURN_IF_ERROR(c.Need(node.inputs.size()));
  for (size_t o = 0; o < node.outputs.size(); ++o) {
    if (!c.HasOut(o)) return c.Err(absl::StrCat("output ", o, " is required"));
  }
  KILN_RETURN_IF_ERROR(CheckScalars(c));
  if (node.op_type == "Momentum") KILN_RETURN_IF_ERROR(CheckMomentumAttributes(c));
  for (size_t i = 0; i < k; ++i) {
    const size_t x = 2 + i;
    for (size_t t = 0; t < group; ++t) {
      const size_t in = 2 + t * k + i;
      if (c.T(in) != DType::F32) {
        return c.Err(absl::StrCat("input '", c.In(in).name, "' must be float32, got ",
                                  ir::DTypeName(c.T(in))));
      }
      if (!Ctx::StaticShape(c.S(in))) {
        return absl::UnimplementedError(absl::StrCat(c.graph().source, ": node ",
                                                     node.Describe(), ": input '", c.In(in).name,
                                                     "' must have a static shape"));
      }
      if (c.S(in) != c.S(x)) {
        return c.Err(absl::StrCat("input '", c.In(in).name, "' ", ShapeStr(c.S(in)),
                                  " does not have the shape of '", c.In(x).name, "' ",
                                  ShapeStr(c.S(x))));
      }
    }
    for (size_t t = 0; t < outs_per; ++t) {
      KILN_RETURN_IF_ERROR(c.Set(t * k + i, DType::F32, c.S(x)));
    }
  }
  return absl::OkStatus();
}

}  // namespace

bool IsTrainingOp(const ir::Node& node) { return TrainingGroupSize(node) != 0; }

int TrainingGroupSize(const ir::Node& node) {
  if (node.domain != kPreviewTrainingDomain) return 0;
  if (node.op_type == "Adagrad" || node.op_type == "Momentum") return 3;
  if (node.op_type == "Adam") return 4;
  return 0;
}

bool InferTrainingShapes(ir::Graph& graph, ir::Node& node,
                         const std::vector<ir::ConstantPtr>& known, absl::Status* status) {
  if (!IsTrainingOp(node)) return false;
  Ctx c(graph, node, known);
  *status = Infer(c);
  return true;
}

}  // namespace kiln::compiler
