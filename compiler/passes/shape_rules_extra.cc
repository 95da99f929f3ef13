#include "compiler/passes/shape_rules_extra.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"

namespace kiln::compiler {
namespace {

using ir::DType;
using Shape = std::vector<int64_t>;

absl::Status Err(const ir::Graph& g, const ir::Node& n, const std::string& msg) {
  return absl::InvalidArgumentError(absl::StrCat(g.source, ": node ", n.Describe(), ": ", msg));
}

void SetOut(ir::Graph& g, const ir::Node& n, size_t k, DType dtype, Shape shape) {
  if (k >= n.outputs.size() || n.outputs[k] == ir::kNoValue) return;
  ir::Value& v = g.value(n.outputs[k]);
  v.dtype = dtype;
  v.shape = std::move(shape);
  v.has_shape = true;
}

absl::Status Loss(ir::Graph& g, ir::Node& n) {
  if (n.inputs.size() < 2 || n.inputs[0] == ir::kNoValue || n.inputs[1] == ir::kNoValue) {
    return Err(g, n, "expects scores and target inputs");
  }
  for (ir::ValueId in : n.inputs) {
    if (in != ir::kNoValue && !g.value(in).has_shape) {
      return Err(g, n, absl::StrCat("input '", g.value(in).name, "' has no shape"));
    }
  }
  const ir::Value& x = g.value(n.inputs[0]);
  const ir::Value& t = g.value(n.inputs[1]);
  if (x.shape.size() < 2) return Err(g, n, "scores must have rank >= 2 ([N, C, ...])");
  Shape want = {x.shape[0]};
  want.insert(want.end(), x.shape.begin() + 2, x.shape.end());
  if (t.shape != want) {
    return Err(g, n, absl::StrCat("target ", ir::ShapeStr(t.shape), " should be ",
                                  ir::ShapeStr(want), " for scores ", ir::ShapeStr(x.shape)));
  }
  if (t.dtype != DType::I32 && t.dtype != DType::I64) return Err(g, n, "target must be int32 or int64");
  if (n.inputs.size() > 2 && n.inputs[2] != ir::kNoValue) {
    const ir::Value& w = g.value(n.inputs[2]);
    if (w.shape != Shape{x.shape[1]} || w.dtype != x.dtype) {
      return Err(g, n, absl::StrCat("weight ", ir::ShapeStr(w.shape), " should be [",
                                    x.shape[1], "] of the scores' dtype"));
    }
  }
  const std::string red = n.GetString("reduction", "mean");
  if (red != "none" && red != "sum" && red != "mean") {
    return Err(g, n, absl::StrCat("unknown reduction '", red, "'"));
  }
  SetOut(g, n, 0, x.dtype, red == "none" ? want : Shape{});
  if (n.op_type == "SoftmaxCrossEntropyLoss") SetOut(g, n, 1, x.dtype, x.shape);
  return absl::OkStatus();
}

// QuantizeLinear / DequantizeLinear: same shape; scale (and zero point) a
// scalar or one entry per element of `axis`.
absl::Status Quantize(ir::Graph& g, ir::Node& n) {
  const bool q = n.op_type == "QuantizeLinear";
  if (n.inputs.size() < 2 || n.inputs[0] == ir::kNoValue || n.inputs[1] == ir::kNoValue) {
    return Err(g, n, "expects x and scale inputs");
  }
  const ir::Value& x = g.value(n.inputs[0]);
  const ir::Value& s = g.value(n.inputs[1]);
  if (!x.has_shape || !s.has_shape) return Err(g, n, "inputs have no shape");
  if (n.GetInt("block_size", 0) != 0) {
    return Err(g, n, "block_size (opset 21 blocked quantization) is not supported");
  }
  const bool has_zp = n.inputs.size() > 2 && n.inputs[2] != ir::kNoValue;
  // Opset 21: without a zero point, output_dtype names the quantized type.
  DType qt = x.dtype;
  if (q) {
    qt = has_zp ? g.value(n.inputs[2]).dtype : DType::U8;
    if (const int64_t out = n.GetInt("output_dtype", 0); out != 0) {
      const DType named = ir::DTypeFromOnnx(out);
      if (has_zp && named != qt) {
        return Err(g, n, "output_dtype differs from the zero point's type");
      }
      qt = named;
    }
  }
  if (qt != DType::U8 && qt != DType::I8 && (q || qt != DType::I32)) {
    return Err(g, n, absl::StrCat("quantized type ", ir::DTypeName(qt), " is not supported"));
  }
  if ((q ? x.dtype : s.dtype) != DType::F32 || s.dtype != DType::F32) {
    return Err(g, n, "only float32 data and scales are supported");
  }
  if (s.shape.size() > 1) return Err(g, n, "scale must be a scalar or 1-D");
  if (s.shape.size() == 1) {
    const int64_t r = static_cast<int64_t>(x.shape.size());
    int64_t axis = n.GetInt("axis", 1);
    if (axis < 0) axis += r;
    if (axis < 0 || axis >= r || x.shape[axis] != s.shape[0]) {
      return Err(g, n, absl::StrCat("scale ", ir::ShapeStr(s.shape), " does not fit axis ",
                                    n.GetInt("axis", 1), " of ", ir::ShapeStr(x.shape)));
    }
  }
  if (has_zp && (g.value(n.inputs[2]).shape != s.shape || g.value(n.inputs[2]).dtype != qt)) {
    return Err(g, n, "zero point must match the scale's shape and the quantized type");
  }
  SetOut(g, n, 0, q ? qt : DType::F32, x.shape);
  return absl::OkStatus();
}

absl::Status DynamicQuantize(ir::Graph& g, ir::Node& n) {
  if (n.inputs.empty() || n.inputs[0] == ir::kNoValue || !g.value(n.inputs[0]).has_shape) {
    return Err(g, n, "expects a shaped input");
  }
  const ir::Value& x = g.value(n.inputs[0]);
  if (x.dtype != DType::F32) return Err(g, n, "only float32 input is supported");
  SetOut(g, n, 0, DType::U8, x.shape);
  SetOut(g, n, 1, DType::F32, {});
  SetOut(g, n, 2, DType::U8, {});
  return absl::OkStatus();
}

absl::Status Det(ir::Graph& g, ir::Node& n) {
  if (n.inputs.empty() || n.inputs[0] == ir::kNoValue || !g.value(n.inputs[0]).has_shape) {
    return Err(g, n, "expects a shaped input");
  }
  const ir::Value& x = g.value(n.inputs[0]);
  const size_t r = x.shape.size();
  if (r < 2 || x.shape[r - 1] != x.shape[r - 2]) {
    return Err(g, n, absl::StrCat("input ", ir::ShapeStr(x.shape), " is not a batch of square matrices"));
  }
  SetOut(g, n, 0, x.dtype, Shape(x.shape.begin(), x.shape.end() - 2));
  return absl::OkStatus();
}

absl::Status ReverseSequence(ir::Graph& g, ir::Node& n) {
  if (n.inputs.size() < 2 || n.inputs[0] == ir::kNoValue || n.inputs[1] == ir::kNoValue ||
      !g.value(n.inputs[0]).has_shape || !g.value(n.inputs[1]).has_shape) {
    return Err(g, n, "expects shaped input and sequence_lens");
  }
  const ir::Value& x = g.value(n.inputs[0]);
  const int64_t ba = n.GetInt("batch_axis", 1), ta = n.GetInt("time_axis", 0);
  if (x.shape.size() < 2 || !((ba == 0 && ta == 1) || (ba == 1 && ta == 0))) {
    return Err(g, n, "needs rank >= 2 with batch and time axes 0 and 1");
  }
  const ir::Value& lens = g.value(n.inputs[1]);
  if (lens.dtype != DType::I64 || lens.shape != Shape{x.shape[ba]}) {
    return Err(g, n, absl::StrCat("sequence_lens must be int64 [", x.shape[ba], "]"));
  }
  SetOut(g, n, 0, x.dtype, x.shape);
  return absl::OkStatus();
}

}  // namespace

bool InferExtraShapes(ir::Graph& graph, ir::Node& node, absl::Status* status) {
  const std::string& op = node.op_type;
  if (op == "NegativeLogLikelihoodLoss" || op == "SoftmaxCrossEntropyLoss") {
    *status = Loss(graph, node);
  } else if (op == "QuantizeLinear" || op == "DequantizeLinear") {
    *status = Quantize(graph, node);
  } else if (op == "DynamicQuantizeLinear") {
    *status = DynamicQuantize(graph, node);
  } else if (op == "MeanVarianceNormalization") {
    if (node.inputs.empty() || node.inputs[0] == ir::kNoValue ||
        !graph.value(node.inputs[0]).has_shape) {
      *status = Err(graph, node, "expects a shaped input");
    } else {
      const ir::Value& x = graph.value(node.inputs[0]);
      SetOut(graph, node, 0, x.dtype, x.shape);
      *status = absl::OkStatus();
    }
  } else if (op == "Det") {
    *status = Det(graph, node);
  } else if (op == "ReverseSequence") {
    *status = ReverseSequence(graph, node);
  } else {
    return false;
  }
  return true;
}

}  // namespace kiln::compiler
