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

namespace {

using ir::DType;
using ir::ShapeStr;
using Shape = std::vector<int64_t>;

// The node under inference and the helpers its rule needs.
using MathCtx = ShapeRuleContext;

absl::Status PRelu(MathCtx& c) {
  KILN_RETURN_IF_ERROR(c.Need(2));
  Shape out;
  if (!ir::BroadcastShapes(c.S(0), c.S(1), &out) || out != c.S(0)) {
    return c.Err(absl::StrCat("slope of shape ", ShapeStr(c.S(1)),
                              " does not broadcast to the input ", ShapeStr(c.S(0))));
  }
  return c.Set(0, c.T(0), c.S(0));
}

// Reduce*: resolves the axes (attribute, or input 1 from ReduceSum-13 and
// every Reduce-18) into "kiln.axes".
absl::Status Reduce(MathCtx& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  const int64_t r = c.Rank(0);
  std::vector<int64_t> axes = c.node().GetInts("axes", {});
  if (c.Has(1)) {
    if (const ir::ConstantData* a = c.C(1)) {
      axes.clear();
      for (int64_t i = 0; i < a->element_count(); ++i) axes.push_back(a->IntAt(i));
    } else if (ir::ElementCount(c.S(1)) != 0) {
      return c.Err(absl::StrCat("axes input '", c.In(1).name,
                                "' is not known at compile time (dynamic axes are not supported)"));
    } else {
      axes.clear();  // an empty tensor's value is known from its shape alone
    }
  }
  std::set<int64_t> red;
  for (int64_t a : axes) {
    int64_t ax = 0;
    KILN_RETURN_IF_ERROR(c.Axis(a, r, &ax));
    red.insert(ax);
  }
  if (axes.empty() && c.node().GetInt("noop_with_empty_axes", 0) == 0) {
    for (int64_t i = 0; i < r; ++i) red.insert(i);
  }
  ir::Attribute attr;
  attr.kind = ir::Attribute::Kind::kInts;
  attr.ints.assign(red.begin(), red.end());
  c.node().attributes["kiln.axes"] = attr;
  const bool keep = c.node().GetInt("keepdims", 1) != 0;
  Shape out;
  for (int64_t i = 0; i < r; ++i) {
    if (!red.count(i)) out.push_back(c.S(0)[i]);
    else if (keep) out.push_back(1);
  }
  return c.Set(0, c.T(0), std::move(out));
}

absl::Status ArgReduce(MathCtx& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  if (c.Rank(0) == 0) return c.Err("input must have rank >= 1");
  int64_t axis = 0;
  KILN_RETURN_IF_ERROR(c.Axis(c.node().GetInt("axis", 0), c.Rank(0), &axis));
  if (c.S(0)[axis] == 0) return c.Err("cannot take the index of an empty axis");
  Shape out = c.S(0);
  if (c.node().GetInt("keepdims", 1) != 0) out[axis] = 1;
  else out.erase(out.begin() + axis);
  return c.Set(0, DType::I64, std::move(out));
}

absl::Status MeanVarianceNormalization(MathCtx& c) {
  ir::Graph& g = c.graph();
  ir::Node& n = c.node();
  if (n.inputs.empty() || n.inputs[0] == ir::kNoValue || !g.value(n.inputs[0]).has_shape) {
    return c.Err("expects a shaped input");
  }
  const ir::Value& x = g.value(n.inputs[0]);
  return c.Set(0, x.dtype, x.shape);
}

using MathRule = std::function<absl::Status(MathCtx&)>;

const std::map<std::string, MathRule>& MathRules() {
  static const auto* rules = [] {
    auto* m = new std::map<std::string, MathRule>;
    for (const char* op :
         {"Abs", "Neg", "Exp", "Log", "Sqrt", "Reciprocal", "Floor", "Ceil", "Round", "Sign",
          "Erf", "Sin", "Cos", "Tan", "Sinh", "Cosh", "Asin", "Acos", "Atan", "Asinh", "Acosh",
          "Atanh", "HardSigmoid", "HardSwish", "LeakyRelu", "Elu", "Selu", "Celu", "Softplus",
          "Softsign", "ThresholdedRelu", "Mish", "Shrink", "Gelu"}) {
      (*m)[op] = ElementwiseSameShape;
    }
    for (const char* op : {"Pow", "Mod", "Max", "Min", "Mean", "Sum", "BitShift"}) {
      (*m)[op] = ElementwiseBroadcast;
    }
    for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
                           "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp",
                           "ReduceSumSquare"}) {
      (*m)[op] = Reduce;
    }
    (*m)["PRelu"] = PRelu;
    (*m)["ArgMax"] = ArgReduce;
    (*m)["ArgMin"] = ArgReduce;
    (*m)["MeanVarianceNormalization"] = MeanVarianceNormalization;
    return m;
  }();
  return *rules;
}

}  // namespace

bool InferMathShapes(ir::Graph& graph, ir::Node& node, const std::vector<ir::ConstantPtr>& known,
                     absl::Status* status) {
  const auto it = MathRules().find(node.op_type);
  if (it == MathRules().end()) return false;
  MathCtx c(graph, node, known);
  *status = it->second(c);
  return true;
}

}  // namespace kiln::compiler
