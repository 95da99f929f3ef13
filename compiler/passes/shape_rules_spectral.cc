#include "compiler/passes/shape_rules_spectral.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"
#include "compiler/passes/shape_rule_context.h"

namespace kiln::compiler {
namespace {

using ir::DType;
using Shape = std::vector<int64_t>;
using Ctx = ShapeRuleContext;

void SetInt(ir::Node& n, const std::string& key, int64_t v) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kInt;
  a.i = v;
  n.attributes[key] = std::move(a);
}

// Float32 [..., 1 or 2] with static dims: what both ops take.
absl::Status CheckSignal(Ctx& c, size_t k, const char* what, int64_t min_rank) {
  if (c.T(k) != DType::F32) return c.Err(absl::StrCat(what, " must be float32"));
  if (c.Rank(k) < min_rank) {
    return c.Err(absl::StrCat(what, " must have rank >= ", min_rank, ", got ",
                              ir::ShapeStr(c.S(k))));
  }
  for (int64_t d : c.S(k)) KILN_RETURN_IF_ERROR(c.RequireStatic(d, what));
  const int64_t comps = c.S(k).back();
  if (comps != 1 && comps != 2) {
    return c.Err(absl::StrCat("the last dim of ", what,
                              " must be 1 (real) or 2 (complex), got ", comps));
  }
  return absl::OkStatus();
}

// A compile-time scalar integer input, or false when it is only known at run time.
absl::Status ConstScalar(Ctx& c, size_t k, const char* what, bool* known, int64_t* v) {
  *known = false;
  if (c.T(k) != DType::I32 && c.T(k) != DType::I64) {
    return c.Err(absl::StrCat(what, " must be int32 or int64"));
  }
  if (c.In(k).has_shape && ir::ElementCount(c.S(k)) != 1) {
    return c.Err(absl::StrCat(what, " must hold one value"));
  }
  const ir::ConstantData* d = c.C(k);
  if (!d) return absl::OkStatus();
  if (d->element_count() != 1) return c.Err(absl::StrCat(what, " must hold one value"));
  *v = d->IntAt(0);
  if (*v < 1 || *v > Ctx::kMaxDim) return c.Err(absl::StrCat(what, " must be >= 1, got ", *v));
  *known = true;
  return absl::OkStatus();
}

// Dim `d` of the output as the model declares it, or an error saying which
// input would have decided it.
absl::Status DeclaredDim(Ctx& c, size_t d, const char* what, int64_t* out) {
  const ir::Value& v = c.graph().value(c.node().outputs[0]);
  if (v.has_declared_shape && d < v.declared_shape.size() && v.declared_shape[d] >= 0 &&
      !ir::IsSymbolic(v.declared_shape[d])) {
    *out = v.declared_shape[d];
    return absl::OkStatus();
  }
  return c.Err(absl::StrCat(what, " is not known at compile time and the output's dim ", d,
                            " is not declared"));
}

absl::Status Dft(Ctx& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  KILN_RETURN_IF_ERROR(CheckSignal(c, 0, "input", 2));
  const Shape& x = c.S(0);
  const int64_t r = c.Rank(0);
  int64_t axis = c.node().GetInt("axis", 1);
  if (axis < 0) axis += r;
  if (axis < 0 || axis >= r - 1) {
    return c.Err(absl::StrCat("axis ", c.node().GetInt("axis", 1),
                              " must name a signal dim (not the last) of rank ", r));
  }
  int64_t n = x[axis];
  if (c.Has(1)) {
    bool known = false;
    KILN_RETURN_IF_ERROR(ConstScalar(c, 1, "dft_length", &known, &n));
    if (!known) {
      return absl::UnimplementedError(
          absl::StrCat(c.graph().source, ": node ", c.node().Describe(),
                       ": dft_length must be a compile-time constant"));
    }
  }
  if (n < 1) return c.Err("the transform length must be >= 1");
  const bool inverse = c.node().GetInt("inverse", 0) != 0;
  const bool onesided = c.node().GetInt("onesided", 0) != 0;
  if (onesided && inverse) return c.Err("onesided with inverse is not supported");
  if (onesided && x.back() == 2) return c.Err("onesided output needs a real input");
  SetInt(c.node(), "kiln.axis", axis);
  SetInt(c.node(), "kiln.n", n);
  Shape y = x;
  y[axis] = onesided ? n / 2 + 1 : n;
  y.back() = 2;
  return c.Set(0, DType::F32, std::move(y));
}

absl::Status Stft(Ctx& c) {
  KILN_RETURN_IF_ERROR(c.Need(2));
  KILN_RETURN_IF_ERROR(CheckSignal(c, 0, "signal", 3));
  if (c.Rank(0) != 3) return c.Err("signal must be [batch, length, 1 or 2]");
  const Shape& x = c.S(0);
  const bool onesided = c.node().GetInt("onesided", 1) != 0;
  if (onesided && x[2] == 2) return c.Err("onesided output needs a real signal");
  bool step_known = false, fl_known = false;
  int64_t step = 0, fl = 0;
  KILN_RETURN_IF_ERROR(ConstScalar(c, 1, "frame_step", &step_known, &step));
  if (c.Has(2)) {
    if (c.T(2) != DType::F32 || c.Rank(2) != 1 || ir::IsSymbolic(c.S(2)[0])) {
      return c.Err("window must be a static float32 vector");
    }
    fl = c.S(2)[0];
    fl_known = true;
  }
  if (c.Has(3)) {
    bool known = false;
    int64_t v = 0;
    KILN_RETURN_IF_ERROR(ConstScalar(c, 3, "frame_length", &known, &v));
    if (known && fl_known && v != fl) {
      return c.Err(absl::StrCat("frame_length ", v, " differs from the window's length ", fl));
    }
    if (known) {
      fl = v;
      fl_known = true;
    }
  } else if (!fl_known) {
    return c.Err("needs a window or a frame_length");
  }
  if (fl_known && (fl < 1 || fl > x[1])) {
    return c.Err(absl::StrCat("frame length ", fl, " must be in 1..", x[1]));
  }
  int64_t frames = 0, bins = 0;
  if (step_known && fl_known) {
    frames = (x[1] - fl) / step + 1;
  } else {
    KILN_RETURN_IF_ERROR(DeclaredDim(c, 1, "frame_step or frame_length", &frames));
  }
  if (fl_known) {
    bins = onesided ? fl / 2 + 1 : fl;
  } else {
    KILN_RETURN_IF_ERROR(DeclaredDim(c, 2, "frame_length", &bins));
  }
  SetInt(c.node(), "kiln.frame_length", fl_known ? fl : 0);
  return c.Set(0, DType::F32, {x[0], frames, bins, 2});
}

absl::Status OutputFloat(Ctx& c, DType* t) {
  *t = ir::DTypeFromOnnx(c.node().GetInt("output_datatype", 1));
  if (*t != DType::F32 && *t != DType::F64 && *t != DType::F16) {
    return c.Err("output_datatype must be a float type");
  }
  return absl::OkStatus();
}

absl::Status SignalWindow(Ctx& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  if (c.T(0) != DType::I32 && c.T(0) != DType::I64) return c.Err("size must be int32 or int64");
  int64_t n = 0;
  KILN_RETURN_IF_ERROR(c.SizeInput(0, "size", 0, 0, &n));
  DType t;
  KILN_RETURN_IF_ERROR(OutputFloat(c, &t));
  return c.Set(0, t, {n});
}

absl::Status MelWeightMatrix(Ctx& c) {
  KILN_RETURN_IF_ERROR(c.Need(5));
  if (c.T(0) != c.T(1) || c.T(0) != c.T(2) || (c.T(0) != DType::I32 && c.T(0) != DType::I64)) {
    return c.Err("num_mel_bins, dft_length and sample_rate must share an int32/int64 dtype");
  }
  if (c.T(3) != c.T(4) || (c.T(3) != DType::F32 && c.T(3) != DType::F64 && c.T(3) != DType::F16)) {
    return c.Err("lower_edge_hertz and upper_edge_hertz must share a float dtype");
  }
  int64_t bins = 0, spec = 0;
  KILN_RETURN_IF_ERROR(c.SizeInput(0, "num_mel_bins", 1, 0, &bins));
  if (const ir::ConstantData* d = c.C(1)) {
    if (d->element_count() != 1 || d->IntAt(0) < 0 || d->IntAt(0) > Ctx::kMaxDim) {
      return c.Err("dft_length must be one value in range");
    }
    spec = d->IntAt(0) / 2 + 1;
  } else {
    KILN_RETURN_IF_ERROR(c.SizeInput(1, "dft_length", 0, 0, &spec));
  }
  DType t;
  KILN_RETURN_IF_ERROR(OutputFloat(c, &t));
  return c.Set(0, t, {spec, bins});
}

}  // namespace

bool InferSpectralShapes(ir::Graph& graph, ir::Node& node,
                         const std::vector<ir::ConstantPtr>& known, absl::Status* status) {
  Ctx c(graph, node, known);
  const std::string& op = node.op_type;
  if (op == "DFT") *status = Dft(c);
  else if (op == "STFT") *status = Stft(c);
  else if (op == "HannWindow" || op == "HammingWindow" || op == "BlackmanWindow") *status = SignalWindow(c);
  else if (op == "MelWeightMatrix") *status = MelWeightMatrix(c);
  else return false;
  return true;
}

}  // namespace kiln::compiler
