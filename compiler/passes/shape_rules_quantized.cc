#include "compiler/passes/shape_rules_quantized.h"

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
      o = CeilDiv(in, s);
      const int64_t total = std::max<int64_t>(0, (o - 1) * s + dk - in);
      const int64_t small = total / 2;
      pads[i] = auto_pad == "SAME_UPPER" ? small : total - small;
      pads[i + nd] = total - pads[i];
    } else {
      return c.Err(absl::StrCat("unknown auto_pad '", auto_pad, "'"));
    }
    out.push_back(o);
  }
  n.SetInts("kiln.strides", strides);
  n.SetInts("kiln.dilations", dil);
  n.SetInts("kiln.pads", pads);
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

// QuantizeLinear / DequantizeLinear: same shape; scale (and zero point) a
// scalar or one entry per element of `axis`.
absl::Status Quantize(Ctx& c) {
  ir::Graph& g = c.graph();
  ir::Node& n = c.node();
  const bool q = n.op_type == "QuantizeLinear";
  if (n.inputs.size() < 2 || n.inputs[0] == ir::kNoValue || n.inputs[1] == ir::kNoValue) {
    return c.Err("expects x and scale inputs");
  }
  const ir::Value& x = g.value(n.inputs[0]);
  const ir::Value& s = g.value(n.inputs[1]);
  if (!x.has_shape || !s.has_shape) return c.Err("inputs have no shape");
  if (n.GetInt("block_size", 0) != 0) {
    return c.Err("block_size (opset 21 blocked quantization) is not supported");
  }
  const bool has_zp = n.inputs.size() > 2 && n.inputs[2] != ir::kNoValue;
  // Opset 21: without a zero point, output_dtype names the quantized type.
  DType qt = x.dtype;
  if (q) {
    qt = has_zp ? g.value(n.inputs[2]).dtype : DType::U8;
    if (const int64_t out = n.GetInt("output_dtype", 0); out != 0) {
      const DType named = ir::DTypeFromOnnx(out);
      if (has_zp && named != qt) {
        return c.Err("output_dtype differs from the zero point's type");
      }
      qt = named;
    }
  }
  if (qt != DType::U8 && qt != DType::I8 && (q || qt != DType::I32)) {
    return c.Err(absl::StrCat("quantized type ", ir::DTypeName(qt), " is not supported"));
  }
  if ((q ? x.dtype : s.dtype) != DType::F32 || s.dtype != DType::F32) {
    return c.Err("only float32 data and scales are supported");
  }
  if (s.shape.size() > 1) return c.Err("scale must be a scalar or 1-D");
  if (s.shape.size() == 1) {
    const int64_t r = static_cast<int64_t>(x.shape.size());
    int64_t axis = n.GetInt("axis", 1);
    if (axis < 0) axis += r;
    if (axis < 0 || axis >= r || x.shape[axis] != s.shape[0]) {
      return c.Err(absl::StrCat("scale ", ir::ShapeStr(s.shape), " does not fit axis ",
                                    n.GetInt("axis", 1), " of ", ir::ShapeStr(x.shape)));
    }
  }
  if (has_zp && (g.value(n.inputs[2]).shape != s.shape || g.value(n.inputs[2]).dtype != qt)) {
    return c.Err("zero point must match the scale's shape and the quantized type");
  }
  KILN_RETURN_IF_ERROR(c.Set(0, q ? qt : DType::F32, x.shape));
  return absl::OkStatus();
}

absl::Status DynamicQuantize(Ctx& c) {
  ir::Graph& g = c.graph();
  ir::Node& n = c.node();
  if (n.inputs.empty() || n.inputs[0] == ir::kNoValue || !g.value(n.inputs[0]).has_shape) {
    return c.Err("expects a shaped input");
  }
  const ir::Value& x = g.value(n.inputs[0]);
  if (x.dtype != DType::F32) return c.Err("only float32 input is supported");
  KILN_RETURN_IF_ERROR(c.Set(0, DType::U8, x.shape));
  KILN_RETURN_IF_ERROR(c.Set(1, DType::F32, {}));
  KILN_RETURN_IF_ERROR(c.Set(2, DType::U8, {}));
  return absl::OkStatus();
}

}  // namespace

bool InferQuantizedShapes(ir::Graph& graph, ir::Node& node,
                          const std::vector<ir::ConstantPtr>& known, absl::Status* status) {
  const std::string& op = node.op_type;
  Ctx c(graph, node, known);
  if (op == "MatMulInteger" || op == "QLinearMatMul") *status = QMatMul(c);
  else if (op == "ConvInteger" || op == "QLinearConv") *status = QConv(c);
  else if (op == "QuantizeLinear" || op == "DequantizeLinear") *status = Quantize(c);
  else if (op == "DynamicQuantizeLinear") *status = DynamicQuantize(c);
  else return false;
  return true;
}

}  // namespace kiln::compiler
