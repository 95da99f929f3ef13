#include "compiler/passes/shape_rules_data_dependent.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"
#include "compiler/passes/shape_rule_context.h"

namespace kiln::compiler {
namespace {

using ir::DType;
using ir::ShapeStr;
using Shape = std::vector<int64_t>;
using Ctx = ShapeRuleContext;

#define KILN_RETURN_IF_ERROR_DD(expr)        \
  do {                                       \
    absl::Status kiln_dd_s_ = (expr);        \
    if (!kiln_dd_s_.ok()) return kiln_dd_s_; \
  } while (0)

absl::Status Mismatch(Ctx& c, const Shape& y, const std::string& why) {
  return c.Err(absl::StrCat("the declared output shape ", ShapeStr(y), " ", why));
}

// Y [R, count] of int64 indices; count <= elements of X.
absl::Status NonZero(Ctx& c, const Shape& y) {
  const Shape& x = c.S(0);
  if (x.empty()) return c.Err("NonZero of a rank-0 input is not supported");
  if (ir::DTypeSize(c.T(0)) < 1 || ir::DTypeSize(c.T(0)) > 8) {
    return c.Err(absl::StrCat("unsupported dtype ", ir::DTypeName(c.T(0))));
  }
  if (y.size() != 2 || y[0] != c.Rank(0) || y[1] > ir::ElementCount(x)) {
    return Mismatch(c, y, absl::StrCat("is not [rank, count] of the non-zero elements of ",
                                       ShapeStr(x)));
  }
  return c.Set(0, DType::I64, y);
}

// Y is X with the axis (or X flattened) cut to the selected slices.
absl::Status Compress(Ctx& c, const Shape& y) {
  if (!c.Has(1) || !c.In(1).has_shape) return c.Err("input 1 (condition) is required");
  const Shape& x = c.S(0);
  if (c.T(1) != DType::Bool || c.Rank(1) != 1) {
    return c.Err(absl::StrCat("condition '", c.In(1).name, "' must be a 1-D bool tensor, got ",
                              ir::DTypeName(c.T(1)), " ", ShapeStr(c.S(1))));
  }
  if (ir::DTypeSize(c.T(0)) < 1 || ir::DTypeSize(c.T(0)) > 8) {
    return c.Err(absl::StrCat("unsupported dtype ", ir::DTypeName(c.T(0))));
  }
  const int64_t n = c.S(1)[0];
  bool ok;
  if (!c.node().HasAttr("axis")) {
    ok = y.size() == 1 && y[0] <= ir::ElementCount(x) && y[0] <= n;
  } else {
    int64_t axis = 0;
    KILN_RETURN_IF_ERROR_DD(c.Axis(c.node().GetInt("axis", 0), c.Rank(0), &axis));
    ok = y.size() == x.size();
    for (size_t d = 0; ok && d < x.size(); ++d) {
      const int64_t a = static_cast<int64_t>(d);
      ok = a == axis ? y[d] <= x[d] && y[d] <= n : y[d] == x[d];
    }
  }
  if (!ok) {
    return Mismatch(c, y, absl::StrCat("is not a selection of input ", ShapeStr(x),
                                       " by a condition of ", n, " entries"));
  }
  return c.Set(0, c.T(0), y);
}

}  // namespace

bool InferDataDependent(ir::Graph& graph, ir::Node& node,
                        const std::vector<ir::ConstantPtr>& known, absl::Status* status) {
  if (!node.domain.empty() && node.domain != "ai.onnx") return false;
  const std::string& op = node.op_type;
  if (op != "NonZero" && op != "Compress") return false;
  Ctx c(graph, node, known);
  if (absl::Status s = c.Need(1); !s.ok()) return *status = s, true;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (c.Has(i) && (!c.In(i).has_shape || !Ctx::StaticShape(c.S(i)))) {
      *status = c.Err(absl::StrCat("input '", c.In(i).name, "' must have a static shape"));
      return true;
    }
  }
  Shape y;
  if (!c.DeclaredStatic(0, &y)) {
    *status = c.Err(absl::StrCat(op, "'s output shape depends on the data; Kiln needs the model "
                                 "to declare a fully static output shape"));
    return true;
  }
  *status = op == "NonZero" ? NonZero(c, y) : Compress(c, y);
  return true;
}

}  // namespace kiln::compiler
