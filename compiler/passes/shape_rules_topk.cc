#include "compiler/passes/shape_rules_topk.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"
#include "compiler/passes/shape_rule_context.h"

namespace kiln::compiler {
namespace {

using ir::DType;
using Shape = std::vector<int64_t>;
using Ctx = ShapeRuleContext;

absl::Status TopK(Ctx& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  const Shape& x = c.S(0);
  if (x.empty()) return c.Err("input must have rank >= 1");
  int64_t axis = 0, k = 0;
  KILN_RETURN_IF_ERROR(c.Axis(c.node().GetInt("axis", -1), c.Rank(0), &axis));
  bool runtime = false;
  if (!c.Has(1)) {
    if (!c.node().HasAttr("k")) return c.Err("k is required (attribute or input)");
    k = c.node().GetInt("k", 0);
  } else {
    if (c.T(1) != DType::I64 && c.T(1) != DType::I32) return c.Err("k must be int64");
    runtime = c.C(1) == nullptr;
    KILN_RETURN_IF_ERROR(c.SizeInput(1, "k", static_cast<size_t>(axis), 1, &k));
  }
  // A symbolic axis's length is known at run time only: the kernel's
  // checker refuses k beyond it then.
  if (k < 0 || (!ir::IsSymbolic(x[axis]) && k > x[axis])) {
    return c.Err(absl::StrCat("k = ", k, " is outside [0, ", x[axis], "]"));
  }
  if (c.node().GetInt("largest", 1) != 0 && c.node().GetInt("largest", 1) != 1) {
    return c.Err("largest must be 0 or 1");
  }
  c.node().SetInt("kiln.k", k);
  c.node().SetInt("kiln.k_runtime", runtime ? 1 : 0);
  c.node().SetInt("kiln.axis", axis);
  Shape out = x;
  out[axis] = k;
  KILN_RETURN_IF_ERROR(c.Set(1, DType::I64, out));
  return c.Set(0, c.T(0), std::move(out));
}

}  // namespace

bool InferTopKShapes(ir::Graph& graph, ir::Node& node, const std::vector<ir::ConstantPtr>& known,
                     absl::Status* status) {
  if (node.op_type != "TopK") return false;
  Ctx c(graph, node, known);
  *status = TopK(c);
  return true;
}

}  // namespace kiln::compiler
