// Comparisons and logic, to bool: Equal, Less, LessOrEqual, Greater,
// GreaterOrEqual (compare), And, Or, Xor on bool (binary_typed), Not on bool
// and IsNaN, IsInf on floats (unary_typed); and Where (where), which selects
// between two tensors of any dtype. Inputs broadcast; dims may be symbolic.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"
#include "compiler/ops/op_def.h"
#include "compiler/passes/shape_rules_math.h"

namespace kiln::compiler {
namespace {

using ir::DType;
using Shape = std::vector<int64_t>;


using ir::DType;
using Shape = std::vector<int64_t>;

absl::Status Err(const ir::Graph& g, const ir::Node& n, const std::string& msg) {
  return absl::InvalidArgumentError(absl::StrCat(g.source, ": node ", n.Describe(), ": ", msg));
}

// Output 0 gets `dtype` and `shape`.
void SetOut(ir::Graph& g, const ir::Node& n, DType dtype, Shape shape) {
  if (n.outputs.empty() || n.outputs[0] == ir::kNoValue) return;
  ir::Value& v = g.value(n.outputs[0]);
  v.dtype = dtype;
  v.shape = std::move(shape);
  v.has_shape = true;
}

// Inputs [0, count) are present and shaped.
absl::Status Need(const ir::Graph& g, const ir::Node& n, size_t count) {
  if (n.inputs.size() < count) return Err(g, n, absl::StrCat("expects ", count, " inputs"));
  for (size_t k = 0; k < count; ++k) {
    if (n.inputs[k] == ir::kNoValue) return Err(g, n, absl::StrCat("input ", k, " is required"));
    if (!g.value(n.inputs[k]).has_shape) {
      return Err(g, n, absl::StrCat("input '", g.value(n.inputs[k]).name, "' has no shape"));
    }
  }
  return absl::OkStatus();
}

absl::Status BinaryToBool(ir::Graph& g, ir::Node& n, bool logic) {
  if (absl::Status s = Need(g, n, 2); !s.ok()) return s;
  const ir::Value& a = g.value(n.inputs[0]);
  const ir::Value& b = g.value(n.inputs[1]);
  if (a.dtype != b.dtype) {
    return Err(g, n, absl::StrCat("input dtypes differ: ", ir::DTypeName(a.dtype), " vs ",
                                  ir::DTypeName(b.dtype)));
  }
  if (logic && a.dtype != DType::Bool) return Err(g, n, "inputs must be bool");
  Shape out;
  if (!ir::BroadcastShapes(a.shape, b.shape, &out, &g.dims)) {  // symbolic dims: as Add
    return Err(g, n, absl::StrCat("shapes ", ir::ShapeStr(a.shape), " and ",
                                  ir::ShapeStr(b.shape), " cannot be broadcast together"));
  }
  SetOut(g, n, DType::Bool, std::move(out));
  return absl::OkStatus();
}

absl::Status UnaryToBool(ir::Graph& g, ir::Node& n) {
  if (absl::Status s = Need(g, n, 1); !s.ok()) return s;
  const ir::Value& x = g.value(n.inputs[0]);
  const bool is_float = ir::IsFloat(x.dtype);
  if (n.op_type == "Not" && x.dtype != DType::Bool) return Err(g, n, "input must be bool");
  if (n.op_type != "Not" && !is_float) return Err(g, n, "input must be a float tensor");
  SetOut(g, n, DType::Bool, x.shape);
  return absl::OkStatus();
}

absl::Status CompareShape(ShapeRuleContext& c) {
  return BinaryToBool(c.graph(), c.node(), /*logic=*/false);
}

absl::Status LogicShape(ShapeRuleContext& c) {
  return BinaryToBool(c.graph(), c.node(), /*logic=*/true);
}

absl::Status UnaryToBoolShape(ShapeRuleContext& c) { return UnaryToBool(c.graph(), c.node()); }

absl::Status WhereShape(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(3));
  if (c.T(0) != DType::Bool) return c.Err("condition must be bool");
  KILN_RETURN_IF_ERROR(c.SameDType(1, 2));
  Shape out;
  KILN_RETURN_IF_ERROR(BroadcastInputs(c, {0, 1, 2}, &out));
  return c.Set(0, c.T(1), std::move(out));
}

bool WhereSymbolicValues(size_t input) { return input == 1 || input == 2; }

}  // namespace

void RegisterLogicOps(std::vector<OpDef>& ops) {
  for (const char* op : {"Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual"}) {
    OpDef def{op, CompareShape, /*symbolic=*/true, emit::LowerCompare};
    // Equal of shape values folds where decidable (passes/symbolic_fold.cc).
    if (std::string(op) == "Equal") def.symbolic_values = SymbolicValueAtFirstTwo;
    def.fold = {FoldBinary, FoldRule::Needs::kKnownInputs, 2};
    ops.push_back(def);
  }
  for (const char* op : {"And", "Or", "Xor"}) {
    ops.push_back({op, LogicShape, /*symbolic=*/true, emit::LowerTypedBinary});
  }
  for (const char* op : {"Not", "IsNaN", "IsInf"}) {
    OpDef def{op, UnaryToBoolShape, /*symbolic=*/true, emit::LowerTypedUnary};
    if (std::string(op) == "Not") def.fold = {FoldUnary, FoldRule::Needs::kKnownInputs, 1};
    ops.push_back(def);
  }
  OpDef where{"Where", WhereShape, /*symbolic=*/true, emit::LowerWhere};
  // Shape values chosen by a known condition fold (passes/symbolic_fold.cc).
  where.symbolic_values = WhereSymbolicValues;
  where.fold = {FoldWhere, FoldRule::Needs::kKnownInputs, 3};
  ops.push_back(where);
}

}  // namespace kiln::compiler
