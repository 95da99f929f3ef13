// The reductions: ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd,
// ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp, ReduceSumSquare
// (reduce_f32 on float32 data; reduce_typed on float64, float16 and bool
// extremes; reduce_rt_f32 when the axes arrive at run time) and ArgMax /
// ArgMin (arg_reduce_f32). Dims may be symbolic. Constant inputs fold
// (passes/fold_eval.cc); a symbolic value into ReduceMin/Max/Prod/Sum folds
// (passes/symbolic_fold.cc); run-time axes are shaped by
// passes/shape_rules_runtime_params.cc.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"
#include "compiler/ops/op_def.h"
#include "compiler/passes/shape_rules_runtime_params.h"
#include "kiln/kernels.h"

namespace kiln::compiler {
namespace {

using ir::DType;
using ir::ShapeStr;
using Shape = std::vector<int64_t>;
using emit::ContiguousStrides;
using emit::ReduceKind;
using emit::RequireF32Input;

// Reduce*: resolves the axes (attribute, or input 1 from ReduceSum-13 and
// every Reduce-18) into "kiln.axes".
absl::Status ReduceShape(ShapeRuleContext& c) {
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

absl::Status ArgReduceShape(ShapeRuleContext& c) {
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

// Appends dim d (stride s) to a dims/strides list, merging it into the last
// entry when the two step through memory as one; size-1 dims vanish.
// Symbolic dims multiply through the pool (plain * would overflow them).
void PushDim(int64_t d, int64_t s, ir::DimPool& pool, Shape* dims, Shape* strides) {
  if (d == 1) return;
  if (!dims->empty() && strides->back() == pool.Mul(s, d)) {
    dims->back() = pool.Mul(dims->back(), d);
    strides->back() = s;
    return;
  }
  dims->push_back(d);
  strides->push_back(s);
}

absl::Status LowerReduceF32(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(RequireF32Input(ctx, node, 0));
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  if (!node.HasAttr("kiln.axes")) return ctx.Invalid(node, "axes were not resolved");
  const Shape axes = node.GetInts("kiln.axes", {});
  const std::set<int64_t> red(axes.begin(), axes.end());
  const Shape xs = ContiguousStrides(x, ctx.dims());
  Shape od, os, rd, rs;
  for (size_t d = 0; d < x.size(); ++d) {
    if (red.count(static_cast<int64_t>(d))) PushDim(x[d], xs[d], ctx.dims(), &rd, &rs);
    else PushDim(x[d], xs[d], ctx.dims(), &od, &os);
  }
  if (od.size() > KILN_MAX_RANK || rd.size() > KILN_MAX_RANK) {
    return ctx.Unimplemented(node, "input rank is too high");
  }
  emit::kernel::ReduceF32 reduce;
  reduce.kind = ReduceKind(node.op_type);
  reduce.RO = static_cast<int64_t>(od.size());
  reduce.RR = static_cast<int64_t>(rd.size());
  reduce.out_dims = od;
  reduce.out_strides = os;
  reduce.red_dims = rd;
  reduce.red_strides = rs;
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  return ctx.Dispatch(node, reduce, {bx, by});
}

absl::Status LowerArgReduce(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(RequireF32Input(ctx, node, 0));
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  const int64_t r = static_cast<int64_t>(x.size());
  int64_t axis = node.GetInt("axis", 0);
  if (axis < 0) axis += r;
  if (axis < 0 || axis >= r) return ctx.Invalid(node, "axis out of range");
  // Symbolic dims (the axis too) multiply through the pool; the kernel's
  // checker refuses an axis that is empty at run time.
  ir::DimPool& dims = ctx.dims();
  const int64_t outer = dims.Product(Shape(x.begin(), x.begin() + axis));
  const int64_t inner = dims.Product(Shape(x.begin() + axis + 1, x.end()));
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  emit::kernel::ArgReduceF32 arg;
  arg.outer = outer;
  arg.n = x[axis];
  arg.inner = inner;
  arg.is_min = node.op_type == "ArgMin" ? 1 : 0;
  arg.select_last = node.GetInt("select_last_index", 0) != 0 ? 1 : 0;
  return ctx.Dispatch(node, arg, {bx, by});
}

absl::Status LowerReduce(emit::LoweringContext& ctx, const ir::Node& node) {
  if (HasRuntimeParams(ctx.graph(), node)) return emit::LowerReduceRt(ctx, node);
  // The axes input is int64: route on the data's dtype alone.
  const bool f32_data = !node.inputs.empty() && node.inputs[0] != ir::kNoValue &&
                        ctx.value(node.inputs[0]).dtype == ir::DType::F32;
  return f32_data ? LowerReduceF32(ctx, node) : emit::LowerReduceTyped(ctx, node);
}

// ---- parameter values known only at run time (shape_rules_runtime_params.h)

absl::Status ReduceByValue(ShapeRuleContext& c, const Shape& y) {
  KILN_RETURN_IF_ERROR(c.Need(2));
  const Shape& x = c.S(0);
  int64_t n = -1;
  KILN_RETURN_IF_ERROR(c.IndexVector(1, "axes", &n));
  if (n > c.Rank(0)) return c.Err(absl::StrCat("axes has ", n, " entries for rank ", c.Rank(0)));
  if (c.T(0) != DType::F32) {
    return c.Err(absl::StrCat("run-time axes are supported for float32 data, got ",
                              ir::DTypeName(c.T(0))));
  }
  // keepdims: every dim kept or 1; otherwise the kept dims in order.
  bool ok;
  if (c.node().GetInt("keepdims", 1) != 0) {
    ok = y.size() == x.size();
    for (size_t d = 0; ok && d < x.size(); ++d) ok = y[d] == x[d] || y[d] == 1;
  } else {
    size_t j = 0;
    for (size_t d = 0; d < x.size() && j < y.size(); ++d) {
      if (x[d] == y[j]) ++j;
    }
    ok = j == y.size();
  }
  if (!ok) return c.DeclaredMismatch(y, absl::StrCat("is not a reduction of input ", ir::ShapeStr(x)));
  return c.Set(0, DType::F32, y);
}

// Reduce* shaped after the run: with keepdims every dim is the input's or
// 1; without, rank - (number of axes) dims, each at most the largest input
// dim.
absl::Status ReduceAfterRun(ShapeRuleContext& c) {
  const Shape& x = c.S(0);
  Shape bound = x;
  if (c.node().GetInt("keepdims", 1) == 0) {
    int64_t n = -1;
    KILN_RETURN_IF_ERROR(c.IndexVector(1, "axes", &n));
    if (n > c.Rank(0)) return c.Err(absl::StrCat("axes has ", n, " entries for rank ", c.Rank(0)));
    int64_t largest = 0;
    for (int64_t d : x) largest = std::max(largest, d);
    bound.assign(x.size() - static_cast<size_t>(n), largest);
    KILN_RETURN_IF_ERROR(ReduceByValue(c, Shape(x.begin() + n, x.end())));  // checks the inputs
  } else {
    KILN_RETURN_IF_ERROR(ReduceByValue(c, x));
  }
  return c.DimsAfterRun(DType::F32, bound);
}

}  // namespace

namespace emit {

int64_t ReduceKind(const std::string& op) {
  static const std::map<std::string, int64_t> kKinds = {
      {"ReduceSum", KILN_REDUCE_SUM},       {"ReduceMean", KILN_REDUCE_MEAN},
      {"ReduceMax", KILN_REDUCE_MAX},       {"ReduceMin", KILN_REDUCE_MIN},
      {"ReduceProd", KILN_REDUCE_PROD},     {"ReduceL1", KILN_REDUCE_L1},
      {"ReduceL2", KILN_REDUCE_L2},         {"ReduceLogSum", KILN_REDUCE_LOG_SUM},
      {"ReduceLogSumExp", KILN_REDUCE_LOG_SUM_EXP}, {"ReduceSumSquare", KILN_REDUCE_SUM_SQUARE}};
  const auto it = kKinds.find(op);
  return it == kKinds.end() ? -1 : it->second;
}

}  // namespace emit

void RegisterReduceOps(std::vector<OpDef>& ops) {
  for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
                         "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp",
                         "ReduceSumSquare"}) {
    OpDef def{op, ReduceShape, /*symbolic=*/true, LowerReduce};
    // axes (an input from opset 18; ReduceSum's from 13): an empty one is known.
    def.runtime_params = {1, 1, 0, ReduceByValue, ReduceAfterRun, /*empty_is_known=*/true, false,
                          false};
    // Sum, Prod, Max and Min over a shape value fold (passes/symbolic_fold.cc).
    const std::string name = op;
    if (name == "ReduceMin" || name == "ReduceMax" || name == "ReduceProd" || name == "ReduceSum") {
      def.symbolic_values = SymbolicValueAtFirst;
    }
    if (name == "ReduceMin" || name == "ReduceMax" || name == "ReduceProd" || name == "ReduceSum" ||
        name == "ReduceMean") {
      def.fold = {FoldReduce, FoldRule::Needs::kKnownInputs, 1};
    }
    ops.push_back(def);
  }
  ops.push_back({"ArgMax", ArgReduceShape, /*symbolic=*/true, LowerArgReduce});
  ops.push_back({"ArgMin", ArgReduceShape, /*symbolic=*/true, LowerArgReduce});
}

}  // namespace kiln::compiler
