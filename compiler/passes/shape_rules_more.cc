#include "compiler/passes/shape_rules_more.h"

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

void SetInts(ir::Node& n, const std::string& key, const Shape& v) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kInts;
  a.ints = v;
  n.attributes[key] = std::move(a);
}

// Dim `d` of output k as the model declares it, or -1.
int64_t DeclaredDim(Ctx& c, size_t k, size_t d) {
  if (!c.HasOut(k)) return -1;
  const ir::Value& v = c.graph().value(c.node().outputs[k]);
  if (!v.has_declared_shape || d >= v.declared_shape.size()) return -1;
  return v.declared_shape[d];
}

// A scalar size from input k: its constant value, or else dim `d` of the
// declared shape of output 0 (or `alt_out`) — the kernel re-checks it.
absl::Status SizeInput(Ctx& c, size_t k, const char* what, size_t d, size_t alt_out,
                       int64_t* out) {
  if (const ir::ConstantData* v = c.C(k)) {
    if (v->element_count() != 1) return c.Err(absl::StrCat(what, " must hold one value"));
    *out = v->IntAt(0);
  } else {
    *out = DeclaredDim(c, 0, d);
    if (*out < 0) *out = DeclaredDim(c, alt_out, d);
    if (*out < 0) {
      return c.Err(absl::StrCat(what, " input '", c.In(k).name,
                                "' is not known at compile time and no static output shape is "
                                "declared (dynamic shapes are not supported)"));
    }
  }
  if (*out < 0 || *out > Ctx::kMaxDim) return c.Err(absl::StrCat(what, " is out of range"));
  return absl::OkStatus();
}

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
    KILN_RETURN_IF_ERROR(SizeInput(c, 1, "k", static_cast<size_t>(axis), 1, &k));
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

bool Is8(DType t) { return t == DType::U8 || t == DType::I8; }

absl::Status Need8(Ctx& c, size_t k) {
  if (!Is8(c.T(k))) {
    return c.Err(absl::StrCat("input '", c.In(k).name, "' must be uint8 or int8, got ",
                              ir::DTypeName(c.T(k))));
  }
  return absl::OkStatus();
}

// MatMulInteger (a, b, a_zp, b_zp) and QLinearMatMul (a, a_scale, a_zp, b,
// b_scale, b_zp, y_scale, y_zp): matrices of rank >= 2, batch broadcast.
absl::Status QMatMul(Ctx& c) {
  const bool qlinear = c.node().op_type == "QLinearMatMul";
  const size_t ai = 0, bi = qlinear ? 3 : 1;
  KILN_RETURN_IF_ERROR(c.Need(qlinear ? 8 : 2));
  KILN_RETURN_IF_ERROR(Need8(c, ai));
  KILN_RETURN_IF_ERROR(Need8(c, bi));
  const Shape &a = c.S(ai), &b = c.S(bi);
  if (a.size() < 2 || b.size() < 2) return c.Err("both operands must have rank >= 2");
  const int64_t M = a[a.size() - 2], K = a.back(), N = b.back();
  if (b[b.size() - 2] != K) {
    return c.Err(absl::StrCat("cannot multiply ", ir::ShapeStr(a), " by ", ir::ShapeStr(b)));
  }
  Shape batch;
  if (!ir::BroadcastShapes(Shape(a.begin(), a.end() - 2), Shape(b.begin(), b.end() - 2), &batch)) {
    return c.Err(absl::StrCat("batch dims of ", ir::ShapeStr(a), " and ", ir::ShapeStr(b),
                              " do not broadcast"));
  }
  batch.push_back(M);
  batch.push_back(N);
  DType out = DType::I32;
  if (qlinear) {
    KILN_RETURN_IF_ERROR(Need8(c, 7));
    out = c.T(7);
  }
  return c.Set(0, out, std::move(batch));
}

int64_t CeilDivMore(int64_t a, int64_t b) { return a / b + (a % b > 0 ? 1 : 0); }

// ConvInteger (x, w, x_zp, w_zp) and QLinearConv (x, x_scale, x_zp, w,
// w_scale, w_zp, y_scale, y_zp, bias): 1-D and 2-D windows.
absl::Status QConv(Ctx& c) {
  const bool qlinear = c.node().op_type == "QLinearConv";
  const size_t wi = qlinear ? 3 : 1;
  KILN_RETURN_IF_ERROR(c.Need(qlinear ? 8 : 2));
  KILN_RETURN_IF_ERROR(Need8(c, 0));
  KILN_RETURN_IF_ERROR(Need8(c, wi));
  const Shape &x = c.S(0), &w = c.S(wi);
  if ((x.size() != 3 && x.size() != 4) || w.size() != x.size()) {
    return c.Err(absl::StrCat("only 1-D and 2-D windows are supported; input ", ir::ShapeStr(x),
                              ", weight ", ir::ShapeStr(w)));
  }
  ir::Node& n = c.node();
  const size_t nd = x.size() - 2;
  const int64_t group = n.GetInt("group", 1);
  if (group <= 0 || w[0] % group != 0 || x[1] % group != 0 || x[1] / group != w[1]) {
    return c.Err(absl::StrCat("input ", ir::ShapeStr(x), " does not match weight ",
                              ir::ShapeStr(w), " with group=", group));
  }
  const Shape kernel(w.begin() + 2, w.end());
  if (n.GetInts("kernel_shape", kernel) != kernel) {
    return c.Err("kernel_shape does not match the weight shape");
  }
  const Shape strides = n.GetInts("strides", Shape(nd, 1));
  const Shape dil = n.GetInts("dilations", Shape(nd, 1));
  Shape pads = n.GetInts("pads", Shape(2 * nd, 0));
  const std::string auto_pad = n.GetString("auto_pad", "NOTSET");
  if (strides.size() != nd || dil.size() != nd || pads.size() != 2 * nd) {
    return c.Err("strides/dilations/pads do not match the spatial rank");
  }
  Shape out = {x[0], w[0]};
  for (size_t i = 0; i < nd; ++i) {
    KILN_RETURN_IF_ERROR(c.Scale(strides[i], "strides"));
    KILN_RETURN_IF_ERROR(c.Scale(dil[i], "dilations"));
    if (pads[i] < 0 || pads[i + nd] < 0 || pads[i] > Ctx::kMaxDim || pads[i + nd] > Ctx::kMaxDim ||
        kernel[i] <= 0 || kernel[i] > Ctx::kMaxDim) {
      return c.Err("kernel and pads must be in range (pads non-negative)");
    }
    const int64_t in = x[2 + i], s = strides[i], dk = (kernel[i] - 1) * dil[i] + 1;
    int64_t o;
    if (auto_pad == "NOTSET" || auto_pad.empty()) {
      const int64_t span = in + pads[i] + pads[i + nd] - dk;
      if (span < 0) return c.Err("the (dilated) kernel is larger than the padded input");
      o = span / s + 1;
    } else if (auto_pad == "VALID") {
      pads[i] = pads[i + nd] = 0;
      if (in < dk) return c.Err("the (dilated) kernel is larger than the input");
      o = (in - dk) / s + 1;
    } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      o = CeilDivMore(in, s);
      const int64_t total = std::max<int64_t>(0, (o - 1) * s + dk - in);
      const int64_t small = total / 2;
      pads[i] = auto_pad == "SAME_UPPER" ? small : total - small;
      pads[i + nd] = total - pads[i];
    } else {
      return c.Err(absl::StrCat("unknown auto_pad '", auto_pad, "'"));
    }
    out.push_back(o);
  }
  SetInts(n, "kiln.strides", strides);
  SetInts(n, "kiln.dilations", dil);
  SetInts(n, "kiln.pads", pads);
  DType ty = DType::I32;
  if (qlinear) {
    KILN_RETURN_IF_ERROR(Need8(c, 7));
    ty = c.T(7);
    if (c.Has(8) && (c.T(8) != DType::I32 || c.S(8) != Shape{w[0]})) {
      return c.Err(absl::StrCat("bias must be int32 [", w[0], "]"));
    }
  }
  return c.Set(0, ty, std::move(out));
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
  KILN_RETURN_IF_ERROR(SizeInput(c, 0, "size", 0, 0, &n));
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
  KILN_RETURN_IF_ERROR(SizeInput(c, 0, "num_mel_bins", 1, 0, &bins));
  if (const ir::ConstantData* d = c.C(1)) {
    if (d->element_count() != 1 || d->IntAt(0) < 0 || d->IntAt(0) > Ctx::kMaxDim) {
      return c.Err("dft_length must be one value in range");
    }
    spec = d->IntAt(0) / 2 + 1;
  } else {
    KILN_RETURN_IF_ERROR(SizeInput(c, 1, "dft_length", 0, 0, &spec));
  }
  DType t;
  KILN_RETURN_IF_ERROR(OutputFloat(c, &t));
  return c.Set(0, t, {spec, bins});
}

}  // namespace

bool InferMoreShapes(ir::Graph& graph, ir::Node& node, const std::vector<ir::ConstantPtr>& known,
                     absl::Status* status) {
  const std::string& op = node.op_type;
  Ctx c(graph, node, known);
  if (op == "TopK") *status = TopK(c);
  else if (op == "MatMulInteger" || op == "QLinearMatMul") *status = QMatMul(c);
  else if (op == "ConvInteger" || op == "QLinearConv") *status = QConv(c);
  else if (op == "HannWindow" || op == "HammingWindow" || op == "BlackmanWindow") *status = SignalWindow(c);
  else if (op == "MelWeightMatrix") *status = MelWeightMatrix(c);
  else return false;
  return true;
}

}  // namespace kiln::compiler
