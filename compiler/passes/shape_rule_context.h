// The view a shape-inference rule has of its node: inputs, their shapes,
// dtypes and compile-time values, error messages naming the node, and output
// setters. Shared by every file of shape rules.
#ifndef KILN_COMPILER_PASSES_SHAPE_RULE_CONTEXT_H_
#define KILN_COMPILER_PASSES_SHAPE_RULE_CONTEXT_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/graph_util.h"
#include "compiler/passes/constant_folding.h"
#include "compiler/status_macros.h"

namespace kiln::compiler {

// Rounded division of static dims for b > 0, without the overflow of a + b - 1.
inline int64_t CeilDiv(int64_t a, int64_t b) { return a / b + (a % b > 0 ? 1 : 0); }
inline int64_t FloorDiv(int64_t a, int64_t b) { return a / b - (a % b < 0 ? 1 : 0); }

class ShapeRuleContext {
 public:
  using Shape = std::vector<int64_t>;
  ShapeRuleContext(ir::Graph& g, ir::Node& n, const std::vector<ir::ConstantPtr>& known)
      : g_(g), n_(n), known_(known) {}

  ir::Graph& graph() { return g_; }
  ir::Node& node() { return n_; }
  const std::vector<ir::ConstantPtr>& known() const { return known_; }
  int64_t opset() const { return g_.opset; }
  bool Has(size_t k) const { return k < n_.inputs.size() && n_.inputs[k] != ir::kNoValue; }
  const ir::Value& In(size_t k) const { return g_.value(n_.inputs[k]); }
  const Shape& S(size_t k) const { return In(k).shape; }
  int64_t Rank(size_t k) const { return static_cast<int64_t>(S(k).size()); }
  ir::DType T(size_t k) const { return In(k).dtype; }
  const ir::ConstantData* C(size_t k) const {
    return Has(k) ? KnownValue(g_, n_.inputs[k], known_) : nullptr;
  }
  bool HasOut(size_t k) const { return k < n_.outputs.size() && n_.outputs[k] != ir::kNoValue; }

  absl::Status Err(const std::string& msg) const {
    return absl::InvalidArgumentError(
        absl::StrCat(g_.source, ": node ", n_.Describe(), ": ", msg));
  }
  // About the model's declared output shape y, which the rules for values
  // known only at run time check.
  absl::Status DeclaredMismatch(const Shape& y, const std::string& why) const {
    return Err(absl::StrCat("the declared output shape ", ir::ShapeStr(y), " ", why));
  }
  // Input k is a 1-D int64/int32 tensor of *count entries (*count < 0: any
  // length, then returned in *count); `what` names it in the error.
  absl::Status IndexVector(size_t k, const char* what, int64_t* count) const {
    if ((T(k) != ir::DType::I64 && T(k) != ir::DType::I32) || Rank(k) != 1) {
      return Err(absl::StrCat(what, " input '", In(k).name, "' must be a 1-D int64/int32 "
                              "tensor, got ", ir::DTypeName(T(k)), " ", ir::ShapeStr(S(k))));
    }
    const int64_t n = S(k)[0];
    if (*count >= 0 && n != *count) {
      return Err(absl::StrCat(what, " input '", In(k).name, "' has ", n, " entries, not ", *count));
    }
    *count = n;
    return absl::OkStatus();
  }
  // Shape arithmetic on attribute or constant values, done in 128 bits so a
  // crafted value cannot overflow: the result, or an error naming `what`.
  absl::Status Narrow(__int128 v, const char* what, int64_t* out) const {
    if (v < 0 || v > kMaxDim) return Err(absl::StrCat(what, " is out of range"));
    *out = static_cast<int64_t>(v);
    return absl::OkStatus();
  }
  // An attribute added to dims (pads, output sizes).
  static bool Within(int64_t v) { return v >= -kMaxDim && v <= kMaxDim; }
  // An attribute that multiplies dims (stride, dilation, block size).
  absl::Status Scale(int64_t v, const char* what) const {
    if (v < 1 || v > kMaxScale) return Err(absl::StrCat(what, " must be in 1..2^20, got ", v));
    return absl::OkStatus();
  }
  // Dims beyond this (and attributes that scale dims beyond kMaxScale) are
  // refused: no real model comes near, and the bounds keep every rule's
  // arithmetic on them (a dim times a stride, plus pads) inside int64.
  static constexpr int64_t kMaxDim = int64_t{1} << 40;
  static constexpr int64_t kMaxScale = int64_t{1} << 20;

  absl::Status Set(size_t k, ir::DType dtype, Shape shape) {
    if (!HasOut(k)) return absl::OkStatus();
    if (!g_.dims.ok()) {
      g_.dims.ClearError();
      return Err("symbolic shape arithmetic overflows");
    }
    // Symbolic dims (ir/dim_expr.h) are checked at run time; the static
    // ones must be in range, alone and multiplied together.
    Shape static_dims;
    for (int64_t d : shape) static_dims.push_back(g_.dims.Known(d) ? 1 : d);
    for (int64_t d : static_dims) {
      if (d < 0) return Err(absl::StrCat("computed an invalid output shape ", ir::ShapeStr(shape)));
      if (d > kMaxDim || ir::ElementCount(static_dims) < 0) {
        return Err(absl::StrCat("computed an output shape ", ir::ShapeStr(shape),
                                " beyond the limits (dims up to 2^40)"));
      }
    }
    ir::Value& v = g_.value(n_.outputs[k]);
    v.dtype = dtype;
    v.shape = std::move(shape);
    v.has_shape = true;
    return absl::OkStatus();
  }
  // Shape arithmetic that may meet symbolic dims (ir/dim_expr.h).
  ir::DimPool& dims() { return g_.dims; }
  // An error unless dim k of input `input` is static (for rules whose
  // arithmetic on that dim is not symbolic yet).
  absl::Status RequireStatic(int64_t dim, const char* what) const {
    if (!ir::IsSymbolic(dim)) return absl::OkStatus();
    return absl::UnimplementedError(absl::StrCat(g_.source, ": node ", n_.Describe(), ": ", what,
                                                 " is symbolic (", g_.dims.ToString(dim),
                                                 "); it must be static"));
  }
  // Run-time inputs whose values the model's declared output shape stands
  // for (shape_rules_runtime*.cc, ops/data_dependent.cc) need every
  // shape involved fully static.
  static bool StaticShape(const Shape& s) {
    for (int64_t d : s) {
      if (d < 0 || ir::IsSymbolic(d)) return false;
    }
    return true;
  }
  // Whether every present input has a static shape.
  bool StaticInputs() const { return StaticInputs(0, n_.inputs.size()); }
  // Inputs first..last (those present) have static shapes.
  bool StaticInputs(size_t first, size_t last) const {
    for (size_t i = first; i <= last && i < n_.inputs.size(); ++i) {
      if (Has(i) && (!In(i).has_shape || !StaticShape(S(i)))) return false;
    }
    return true;
  }
  // Output k's declared shape, when the model gives a fully static one.
  bool DeclaredStatic(size_t k, Shape* out) const {
    if (!HasOut(k)) return false;
    const ir::Value& v = g_.value(n_.outputs[k]);
    if (!v.has_declared_shape || !StaticShape(v.declared_shape)) return false;
    *out = v.declared_shape;
    return true;
  }
  // Arena memory a kernel needs beyond its outputs (kernels never allocate):
  // output `n_out`, appended once after the op's n_out outputs (marked by
  // "kiln.scratch" = 1, since rules may run more than once), then sized.
  absl::Status SetScratch(size_t n_out, ir::DType dtype, Shape shape) {
    if (n_.GetInt("kiln.scratch", 0) == 0) {
      if (n_.outputs.size() > n_out) return Err("has too many outputs");
      n_.outputs.resize(n_out, ir::kNoValue);
      const ir::ValueId s = g_.AddValue("");
      n_.outputs.push_back(s);
      // AddNode sets producers; this value joins an existing node.
      for (size_t k = 0; k < g_.nodes.size(); ++k) {
        if (&g_.nodes[k] == &n_) g_.value(s).producer = static_cast<ir::NodeId>(k);
      }
      n_.SetInt("kiln.scratch", 1);
    }
    ir::Value& v = g_.value(n_.outputs[n_out]);
    v.dtype = dtype;
    v.shape = std::move(shape);
    v.has_shape = true;
    return absl::OkStatus();
  }
  // Dims a kernel reports after its run: an int64 [count] output appended
  // at index `slot` (the node's "kiln.result_dims" names it; appended once,
  // as rules may run more than once), whose element j is a data symbol.
  // Appending may move the graph's values: references from S() dangle.
  absl::StatusOr<ir::ValueId> ReportedDimsOutput(size_t slot, int64_t count) {
    if (n_.GetInt("kiln.result_dims", 0) == 0) {
      if (n_.outputs.size() != slot) return Err("has an unexpected number of outputs");
      const ir::ValueId s = g_.AddValue("");
      n_.outputs.push_back(s);
      for (size_t k = 0; k < g_.nodes.size(); ++k) {
        if (&g_.nodes[k] == &n_) g_.value(s).producer = static_cast<ir::NodeId>(k);
      }
      n_.SetInt("kiln.result_dims", static_cast<int64_t>(slot));
    }
    if (n_.outputs.size() != slot + 1) return Err("has an unexpected number of outputs");
    ir::Value& v = g_.value(n_.outputs[slot]);
    v.dtype = ir::DType::I64;
    v.shape = {count < 1 ? 1 : count};
    v.has_shape = true;
    v.live_to_end = true;
    return n_.outputs[slot];
  }
  // Element `j` of the reported dims `dims` as a data symbol, at most
  // `bound`, named output k's name + `suffix`.
  int64_t ReportedDim(ir::ValueId dims, int64_t j, int64_t bound, size_t k,
                      const std::string& suffix) {
    return g_.dims.Data(absl::StrCat(g_.scope, g_.value(n_.outputs[k]).name, suffix), bound,
                        static_cast<int32_t>(dims), g_.scope, static_cast<int32_t>(j));
  }
  // Output 0 (the op's only one) shaped after the run: each dim reported,
  // at most `bound`'s dim there (the *_bounded kernels write them in order).
  // `capacity_bytes` >= 0 caps the planned size below what the bounds give
  // (ir::Value::capacity_bytes).
  // `bound` is a copy: appending the output may move the graph's values.
  absl::Status DimsAfterRun(ir::DType dtype, Shape bound, int64_t capacity_bytes = -1) {
    KILN_ASSIGN_OR_RETURN(const ir::ValueId dims,
                          ReportedDimsOutput(1, static_cast<int64_t>(bound.size())));
    Shape y(bound.size());
    for (size_t d = 0; d < bound.size(); ++d) {
      const int64_t j = static_cast<int64_t>(d);
      y[d] = ReportedDim(dims, j, bound[d], 0, absl::StrCat(".dim", j));
    }
    g_.value(n_.outputs[0]).capacity_bytes = capacity_bytes;
    return Set(0, dtype, std::move(y));
  }
  // Dim `d` of output k as the model declares it, or -1.
  int64_t DeclaredDim(size_t k, size_t d) const {
    if (!HasOut(k)) return -1;
    const ir::Value& v = g_.value(n_.outputs[k]);
    if (!v.has_declared_shape || d >= v.declared_shape.size()) return -1;
    return v.declared_shape[d];
  }
  // A scalar size from input k (TopK's k, a window's length): its constant
  // value, or else dim `d` of the declared shape of output 0 (or `alt_out`),
  // which the kernel re-checks against the run-time input.
  absl::Status SizeInput(size_t k, const char* what, size_t d, size_t alt_out,
                         int64_t* out) const {
    if (const ir::ConstantData* v = C(k)) {
      if (v->element_count() != 1) return Err(absl::StrCat(what, " must hold one value"));
      *out = v->IntAt(0);
    } else {
      *out = DeclaredDim(0, d);
      if (*out < 0) *out = DeclaredDim(alt_out, d);
      if (*out < 0) {
        return Err(absl::StrCat(what, " input '", In(k).name,
                                "' is not known at compile time and no static output shape is "
                                "declared (dynamic shapes are not supported)"));
      }
    }
    if (*out < 0 || *out > kMaxDim) return Err(absl::StrCat(what, " is out of range"));
    return absl::OkStatus();
  }
  // Checks inputs [0, count) exist and have shapes.
  absl::Status Need(size_t count) const {
    for (size_t k = 0; k < count; ++k) {
      if (!Has(k)) return Err(absl::StrCat("input ", k, " is required"));
      if (!In(k).has_shape) return Err(absl::StrCat("input '", In(k).name, "' has no shape"));
    }
    for (size_t k = count; k < n_.inputs.size(); ++k) {
      if (Has(k) && !In(k).has_shape) {
        return Err(absl::StrCat("input '", In(k).name, "' has no shape"));
      }
    }
    return absl::OkStatus();
  }
  // A compile-time int vector from input k (shape, axes, ...).
  // Symbolic values (computed from symbolic dims) only where the rule opts
  // in with allow_symbolic; their elements are encoded dims.
  absl::Status KnownInts(size_t k, const char* what, std::vector<int64_t>* out,
                         bool allow_symbolic = false) const {
    const ir::ConstantData* c = C(k);
    if (!c) {
      return Err(absl::StrCat(what, " input '", In(k).name,
                              "' is not known at compile time (dynamic shapes are not supported)"));
    }
    if (c->symbolic && !allow_symbolic) {
      return absl::UnimplementedError(absl::StrCat(
          g_.source, ": node ", n_.Describe(), ": ", what, " input '", In(k).name,
          "' is computed from symbolic dimensions, which this op does not support yet"));
    }
    if (c->dtype != ir::DType::I64 && c->dtype != ir::DType::I32) {
      return Err(absl::StrCat(what, " input must be int64 or int32, got ", ir::DTypeName(c->dtype)));
    }
    out->clear();
    for (int64_t i = 0; i < c->element_count(); ++i) out->push_back(c->IntAt(i));
    return absl::OkStatus();
  }
  absl::Status Axis(int64_t axis, int64_t rank, int64_t* out) const {
    if (axis < -rank || axis >= rank) {
      return Err(absl::StrCat("axis ", axis, " is out of range for rank ", rank));
    }
    *out = axis < 0 ? axis + rank : axis;
    return absl::OkStatus();
  }
  absl::Status SameDType(size_t a, size_t b) const {
    if (T(a) != T(b)) {
      return Err(absl::StrCat("input dtypes differ: ", ir::DTypeName(T(a)), " vs ",
                              ir::DTypeName(T(b))));
    }
    return absl::OkStatus();
  }

 private:
  ir::Graph& g_;
  ir::Node& n_;
  const std::vector<ir::ConstantPtr>& known_;
};

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_SHAPE_RULE_CONTEXT_H_
