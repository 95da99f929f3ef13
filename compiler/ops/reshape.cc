// Reshape and its kin: Reshape, Flatten, Squeeze, Unsqueeze and Identity
// give the same bytes a new shape, so none runs a kernel: the output is an
// alias of its input (memory planning gives both one storage). A shape or
// axes input known only at run time is checked by a kernel instead
// (passes/shape_rules_runtime.cc, emit/lower_shape_check.cc). Their constant
// inputs fold (passes/fold_eval.cc).
#include <algorithm>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ops/op_def.h"
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
  // Counts of symbols that the pool cannot prove equal (a size padded up to
  // a multiple of 7 against 7 windows of floor(size / 7): Swin Transformer)
  // and that do not differ by a constant become a run-time requirement, as
  // ONNX requires them equal.
  const int64_t total = dims.Product(x);
  const auto may_be_equal = [&](int64_t a, int64_t b) {
    if (!dims.ok()) return false;  // an earlier overflow stays reported
    const int64_t difference = dims.Sub(a, b);
    if (!dims.ok()) {
      dims.ClearError();
      return false;
    }
    return dims.Known(difference);
  };
  if (infer_at >= 0) {
    const int64_t inferred = known == 0 ? 0 : dims.FloorDiv(total, known);
    const int64_t product = known == 0 ? 0 : dims.Mul(inferred, known);
    if (known == 0 || (product != total && !may_be_equal(product, total))) {
      return c.Err(absl::StrCat("cannot reshape ", SymbolicShapeStr(c.graph(), x), " to ",
                                spec_text));
    }
    if (product != total) dims.AssumeEqual(product, total);
    out[infer_at] = inferred;
  } else if (known != total && may_be_equal(known, total)) {
    dims.AssumeEqual(known, total);
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

// ---- a shape or axes input known only at run time (shape_rules_runtime.h)

// `small` is `big` with some dims removed, every removed dim 1; *removed
// counts them. Greedy matching finds an embedding whenever one exists.
bool DropsUnitDims(const Shape& big, const Shape& small, int64_t* removed) {
  size_t j = 0;
  *removed = 0;
  for (int64_t d : big) {
    if (j < small.size() && small[j] == d) {
      ++j;
    } else if (d == 1) {
      ++*removed;
    } else {
      return false;
    }
  }
  return j == small.size();
}

absl::Status ReshapeByValue(ShapeRuleContext& c, int64_t count, const RuntimeShapeRule::Shapes& ys) {
  const Shape& y = ys[0];
  const Shape& x = c.S(0);
  if (ir::ElementCount(x) != ir::ElementCount(y)) {
    return c.DeclaredMismatch(y, absl::StrCat("does not hold the ", ir::ElementCount(x),
                                       " elements of input ", ir::ShapeStr(x)));
  }
  if (count != static_cast<int64_t>(y.size())) {
    return c.DeclaredMismatch(y, absl::StrCat("has not the ", count, " dims of input 'shape'"));
  }
  return c.Set(0, c.T(0), y);
}

absl::Status SqueezeByValue(ShapeRuleContext& c, int64_t count, const RuntimeShapeRule::Shapes& ys) {
  const Shape& y = ys[0];
  const Shape& x = c.S(0);
  int64_t removed = 0;
  if (!DropsUnitDims(x, y, &removed) || (count > 0 && removed != count) ||
      (count == 0 && std::count(y.begin(), y.end(), 1) != 0)) {
    return c.DeclaredMismatch(y, absl::StrCat("is not input ", ir::ShapeStr(x), " without ", count,
                                       " unit axes"));
  }
  return c.Set(0, c.T(0), y);
}

absl::Status UnsqueezeByValue(ShapeRuleContext& c, int64_t count, const RuntimeShapeRule::Shapes& ys) {
  const Shape& y = ys[0];
  const Shape& x = c.S(0);
  int64_t added = 0;
  if (!DropsUnitDims(y, x, &added) || added != count ||
      static_cast<int64_t>(y.size()) != static_cast<int64_t>(x.size()) + count) {
    return c.DeclaredMismatch(y, absl::StrCat("is not input ", ir::ShapeStr(x), " with ", count,
                                       " unit axes inserted"));
  }
  return c.Set(0, c.T(0), y);
}

// Without a declared output shape the dims are data symbols shape_resolve
// reports after its run (the data is the input's, aliased): each at most the
// element count (Reshape) or the largest input dim.
int64_t LargestDim(const Shape& x) {
  int64_t largest = 1;
  for (int64_t d : x) largest = std::max(largest, d);
  return largest;
}

absl::Status ReshapeAfterRun(ShapeRuleContext& c, int64_t count) {
  return AliasDimsAfterRun(c, count, ir::ElementCount(c.S(0)));
}

absl::Status SqueezeAfterRun(ShapeRuleContext& c, int64_t count) {
  const int64_t r = c.Rank(0);
  if (count == 0 || count > r) {
    if (ir::ElementCount(c.S(0)) == 0) {
      return c.Err("a run-time squeeze of an empty input needs a declared output shape");
    }
    return c.Err(absl::StrCat("run-time axes of ", count, " entries for rank ", r,
                              " need a declared output shape"));
  }
  return AliasDimsAfterRun(c, r - count, LargestDim(c.S(0)));
}

absl::Status UnsqueezeAfterRun(ShapeRuleContext& c, int64_t count) {
  return AliasDimsAfterRun(c, c.Rank(0) + count, LargestDim(c.S(0)));
}

bool AlwaysAlias(const ir::Node&) { return true; }

}  // namespace

void RegisterReshapeOps(std::vector<OpDef>& ops) {
  struct Decl {
    const char* op;
    ShapeRule shape;
    SymbolicValueInputs values;
    RuntimeShapeRule runtime;  // the shape or axes input (an attribute before opset 13)
  };
  // Reshape reads its shape input as dims; all move a shape value as data.
  using Value = RuntimeShapeRule::Value;
  for (const Decl& d :
       {Decl{"Reshape", Reshape, SymbolicValueAtFirstTwo,
             {1, 0, Value::kIndexVector, ReshapeByValue, ReshapeAfterRun, false}},
        Decl{"Flatten", Flatten, SymbolicValueAtFirst, {}},
        Decl{"Squeeze", Squeeze, SymbolicValueAtFirst,
             {1, 13, Value::kIndexVector, SqueezeByValue, SqueezeAfterRun, false}},
        Decl{"Unsqueeze", Unsqueeze, SymbolicValueAtFirst,
             {1, 13, Value::kIndexVector, UnsqueezeByValue, UnsqueezeAfterRun, false}},
        Decl{"Identity", ElementwiseSameShape, SymbolicValueAtFirst, {}}}) {
    OpDef def{d.op, d.shape, /*symbolic=*/true, nullptr};
    def.no_kernel = "an alias of its input";
    def.symbolic_values = d.values;
    def.alias = AlwaysAlias;
    def.runtime_shape = d.runtime;
    def.fold = {FoldRelabel, FoldRule::Needs::kKnownInputs, 1};
    ops.push_back(def);
  }
}

}  // namespace kiln::compiler
