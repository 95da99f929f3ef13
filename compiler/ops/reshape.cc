// Reshape and its kin: Reshape, Flatten, Squeeze, Unsqueeze and Identity
// give the same bytes a new shape, so none runs a kernel: the output is an
// alias of its input (memory planning gives both one storage). A shape or
// axes input known only at run time is checked by a kernel instead
// (passes/shape_rules_runtime.cc, emit/lower_shape_check.cc). Their constant
// inputs fold (passes/fold_eval.cc).
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/runtime_rules.h"
#include "compiler/passes/shape_rules_math.h"
#include "compiler/passes/symbolic_support.h"

namespace kiln::compiler {
namespace {

using Shape = std::vector<int64_t>;

absl::Status Flatten(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  const Shape& x = c.S(0);
  const int64_t r = c.Rank(0);
  int64_t axis = c.node().GetInt("axis", 1);
  if (axis < -r || axis > r) return c.Err(absl::StrCat("axis ", axis, " is out of range for rank ", r));
  if (axis < 0) axis += r;
  return c.Set(0, c.T(0), {c.dims().Product(Shape(x.begin(), x.begin() + axis)),
                           c.dims().Product(Shape(x.begin() + axis, x.end()))});
}

absl::Status Reshape(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(2));
  std::vector<int64_t> spec;
  KILN_RETURN_IF_ERROR(c.KnownInts(1, "shape", &spec, /*allow_symbolic=*/true));
  const Shape& x = c.S(0);
  const bool allowzero = c.node().GetInt("allowzero", 0) != 0;
  ir::DimPool& dims = c.dims();
  const std::string spec_text = SymbolicShapeStr(c.graph(), spec);
  Shape out;
  int64_t infer_at = -1, known = 1;
  for (size_t i = 0; i < spec.size(); ++i) {
    int64_t d = spec[i];
    if (d == 0 && !allowzero) {
      if (i >= x.size()) {
        return c.Err(absl::StrCat("shape ", spec_text, " copies dimension ", i,
                                  " which input ", SymbolicShapeStr(c.graph(), x), " lacks"));
      }
      d = x[i];
    }
    if (d == -1) {
      if (infer_at >= 0) return c.Err(absl::StrCat("shape ", spec_text, " has two -1"));
      infer_at = static_cast<int64_t>(i);
    } else if (d < 0 && !dims.Known(d)) {
      return c.Err(absl::StrCat("shape ", spec_text, " has invalid entry ", d));
    } else {
      if (!dims.Known(d) && !dims.Known(known) && d != 0 &&
          known > std::numeric_limits<int64_t>::max() / d) {
        return c.Err(absl::StrCat("shape ", spec_text, " has more elements than int64 holds"));
      }
      known = dims.Mul(known, d);
    }
    out.push_back(d);
  }
  // Element counts compare exactly, symbolic ones as canonical expressions.
  const int64_t total = dims.Product(x);
  if (infer_at >= 0) {
    const int64_t inferred = known == 0 ? 0 : dims.FloorDiv(total, known);
    if (known == 0 || dims.Mul(inferred, known) != total) {
      return c.Err(absl::StrCat("cannot reshape ", SymbolicShapeStr(c.graph(), x), " to ",
                                spec_text));
    }
    out[infer_at] = inferred;
  } else if (known != total) {
    return c.Err(absl::StrCat("cannot reshape ", SymbolicShapeStr(c.graph(), x), " (",
                              dims.ToString(total), " elements) to ", spec_text));
  }
  return c.Set(0, c.T(0), std::move(out));
}

absl::Status AxesFor(ShapeRuleContext& c, std::vector<int64_t>* axes, bool* present) {
  if (c.opset() >= 13) {
    *present = c.Has(1);
    if (*present) return c.KnownInts(1, "axes", axes);
    return absl::OkStatus();
  }
  *present = c.node().HasAttr("axes");
  *axes = c.node().GetInts("axes", {});
  return absl::OkStatus();
}

absl::Status Squeeze(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  std::vector<int64_t> axes;
  bool present;
  KILN_RETURN_IF_ERROR(AxesFor(c, &axes, &present));
  const Shape& x = c.S(0);
  std::set<int64_t> drop;
  if (!present) {
    for (size_t i = 0; i < x.size(); ++i) if (x[i] == 1) drop.insert(static_cast<int64_t>(i));
  }
  for (int64_t a : axes) {
    int64_t ax = 0;
    KILN_RETURN_IF_ERROR(c.Axis(a, c.Rank(0), &ax));
    if (x[ax] != 1 && !ir::IsSymbolic(x[ax])) {
      return c.Err(absl::StrCat("cannot squeeze axis ", a, " of size ", c.dims().ToString(x[ax]),
                                " in ", SymbolicShapeStr(c.graph(), x)));
    }
    // A symbolic length: it must be 1, checked at run time.
    if (x[ax] != 1) c.dims().AssumeEqual(x[ax], 1);
    drop.insert(ax);
  }
  Shape out;
  for (size_t i = 0; i < x.size(); ++i) if (!drop.count(static_cast<int64_t>(i))) out.push_back(x[i]);
  return c.Set(0, c.T(0), std::move(out));
}

absl::Status Unsqueeze(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  std::vector<int64_t> axes;
  bool present;
  KILN_RETURN_IF_ERROR(AxesFor(c, &axes, &present));
  if (!present) return c.Err("axes are required");
  const Shape& x = c.S(0);
  const int64_t r = static_cast<int64_t>(x.size() + axes.size());
  std::set<int64_t> add;
  for (int64_t a : axes) {
    int64_t ax = 0;
    KILN_RETURN_IF_ERROR(c.Axis(a, r, &ax));
    if (!add.insert(ax).second) return c.Err(absl::StrCat("axis ", a, " is repeated"));
  }
  Shape out;
  size_t next = 0;
  for (int64_t i = 0; i < r; ++i) out.push_back(add.count(i) ? 1 : x[next++]);
  return c.Set(0, c.T(0), std::move(out));
}

bool AlwaysAlias(const ir::Node&) { return true; }

}  // namespace

void RegisterReshapeOps(std::vector<OpDef>& ops) {
  struct Decl {
    const char* op;
    ShapeRule shape;
    SymbolicValueInputs values;
  };
  // Reshape reads its shape input as dims; all move a shape value as data.
  for (const Decl& d : {Decl{"Reshape", WithRuntimeShapeInput<Reshape>, SymbolicValueAtFirstTwo},
                        Decl{"Flatten", Flatten, SymbolicValueAtFirst},
                        Decl{"Squeeze", WithRuntimeShapeInput<Squeeze>, SymbolicValueAtFirst},
                        Decl{"Unsqueeze", WithRuntimeShapeInput<Unsqueeze>, SymbolicValueAtFirst},
                        Decl{"Identity", ElementwiseSameShape, SymbolicValueAtFirst}}) {
    OpDef def{d.op, d.shape, /*symbolic=*/true, nullptr};
    def.no_kernel = "an alias of its input";
    def.symbolic_values = d.values;
    def.alias = AlwaysAlias;
    def.fold = {FoldRelabel, FoldRule::Needs::kKnownInputs, 1};
    ops.push_back(def);
  }
}

}  // namespace kiln::compiler
