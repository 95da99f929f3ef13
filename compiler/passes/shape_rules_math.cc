#include "compiler/passes/shape_rules_math.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/ir/graph_util.h"
#include "compiler/passes/shape_rule_context.h"

namespace kiln::compiler {

absl::Status ElementwiseSameShape(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  return c.Set(0, c.T(0), c.S(0));
}

absl::Status BroadcastInputs(ShapeRuleContext& c, const std::vector<size_t>& ins, std::vector<int64_t>* out) {
  std::vector<int64_t> acc = c.S(ins[0]);
  for (size_t k = 1; k < ins.size(); ++k) {
    std::vector<int64_t> next;
    if (!ir::BroadcastShapes(acc, c.S(ins[k]), &next, &c.dims())) {
      std::vector<std::string> shapes;
      for (size_t i : ins) shapes.push_back(ir::ShapeStr(c.S(i)));
      return c.Err(absl::StrCat("shapes ", absl::StrJoin(shapes, " and "),
                                " cannot be broadcast together"));
    }
    acc = std::move(next);
  }
  *out = std::move(acc);
  return absl::OkStatus();
}


absl::Status ElementwiseBroadcast(ShapeRuleContext& c) {
  const size_t n = c.node().inputs.size();
  if (n == 0) return c.Err("needs at least one input");
  KILN_RETURN_IF_ERROR(c.Need(n));
  const std::string& op = c.node().op_type;
  ShapeRuleContext::Shape acc = c.S(0);
  std::vector<std::string> shapes = {ir::ShapeStr(c.S(0))};
  for (size_t k = 1; k < n; ++k) {
    if (op != "Pow" && c.T(k) != c.T(0)) {
      return c.Err(absl::StrCat("input dtypes differ: ", ir::DTypeName(c.T(0)), " vs ",
                                ir::DTypeName(c.T(k))));
    }
    shapes.push_back(ir::ShapeStr(c.S(k)));
    ShapeRuleContext::Shape next;
    if (!ir::BroadcastShapes(acc, c.S(k), &next, &c.dims())) {  // symbolic dims: as Add
      return c.Err(absl::StrCat("shapes ", absl::StrJoin(shapes, " and "),
                                " cannot be broadcast together"));
    }
    acc = std::move(next);
  }
  if (op == "Mod" && c.node().GetInt("fmod", 0) == 0 &&
      ir::IsFloat(c.T(0))) {
    return c.Err("fmod=0 is invalid for floating-point inputs");
  }
  return c.Set(0, c.T(0), std::move(acc));
}

}  // namespace kiln::compiler
