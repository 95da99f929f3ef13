#include "compiler/passes/norm_expand.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"

namespace kiln::compiler {
namespace {

using ir::Node;
using ir::ValueId;
using Shape = std::vector<int64_t>;

// Appends nodes derived from `from`, each output typed and shaped here.
struct Builder {
  ir::Graph& g;
  const Node& from;
  std::vector<Node>* out;
  int part = 0;

  ValueId Add(const std::string& op, std::vector<ValueId> inputs, const Shape& shape,
              ValueId dst = ir::kNoValue) {
    if (dst == ir::kNoValue) {
      dst = g.AddValue(absl::StrCat(from.name, "/", op, part));
      ir::Value& v = g.value(dst);
      v.dtype = ir::DType::F32;
      v.shape = shape;
      v.has_shape = true;
    }
    Node n;
    n.name = absl::StrCat(from.name, "/", op, part++);
    n.op_type = op;
    n.inputs = std::move(inputs);
    n.outputs = {dst};
    out->push_back(std::move(n));
    return dst;
  }
  Node& Last() { return out->back(); }
  // Mean over `axes` (sorted, non-negative), kept as 1s in `kept`.
  ValueId ReduceMean(ValueId v, const std::vector<int64_t>& axes, const Shape& kept) {
    const ValueId m = Add("ReduceMean", {v}, kept);
    Node& rm = Last();
    ir::Attribute attr;
    attr.kind = ir::Attribute::Kind::kInts;
    attr.ints = axes;
    rm.attributes["axes"] = attr;
    rm.attributes["kiln.axes"] = attr;  // resolved, as shape inference records it
    rm.SetInt("keepdims", 1);
    return m;
  }
  ValueId Scalar(float f) {
    std::vector<uint8_t> b(4);
    std::memcpy(b.data(), &f, 4);
    return g.AddConstant("", ir::MakeConstant(ir::DType::F32, {}, std::move(b)));
  }
};

bool AllF32(const ir::Graph& g, const Node& n) {
  for (ValueId v : n.inputs) {
    if (v != ir::kNoValue && g.value(v).dtype != ir::DType::F32) return false;
  }
  return true;
}

bool IsBatchNorm(const ir::Graph& g, const Node& n) {
  return n.op_type == "BatchNormalization" && n.inputs.size() == 5 && !n.outputs.empty() &&
         n.outputs[0] != ir::kNoValue && AllF32(g, n);
}

bool TrainingBatchNorm(const ir::Graph& g, const Node& n) {
  return IsBatchNorm(g, n) && BatchNormTrains(n);
}

bool RuntimeBatchNorm(const ir::Graph& g, const Node& n) {
  if (!IsBatchNorm(g, n) || BatchNormTrains(n)) return false;
  for (size_t k = 1; k < 5; ++k) {
    if (n.inputs[k] == ir::kNoValue || !g.value(n.inputs[k]).constant) return true;
  }
  return false;
}

void ExpandBatchNorm(ir::Graph& g, const Node& n, std::vector<Node>* out) {
  Builder b{g, n, out};
  const Shape x = g.value(n.inputs[0]).shape;  // a copy: AddValue may reallocate
  const Shape c = {x[1]};
  Shape bshape = c;  // [C, 1, ...] broadcasts against [N, C, ...]
  for (size_t d = 2; d < x.size(); ++d) bshape.push_back(1);
  const ValueId ve = b.Add("Add", {n.inputs[4], b.Scalar(n.GetFloat("epsilon", 1e-5f))}, c);
  const ValueId sd = b.Add("Sqrt", {ve}, c);
  const ValueId t = b.Add("Div", {n.inputs[1], sd}, c);
  const ValueId mt = b.Add("Mul", {n.inputs[3], t}, c);
  const ValueId u = b.Add("Sub", {n.inputs[2], mt}, c);
  const ValueId shape = g.AddConstant("", ir::MakeI64Constant({static_cast<int64_t>(bshape.size())}, bshape));
  const ValueId t2 = b.Add("Reshape", {t, shape}, bshape);
  const ValueId u2 = b.Add("Reshape", {u, shape}, bshape);
  const ValueId xt = b.Add("Mul", {n.inputs[0], t2}, x);
  b.Add("Add", {xt, u2}, x, n.outputs[0]);
}

// Two passes (mean, then the mean of squared deviations) as ONNX's reference
// computes them; the running statistics blend in with weight 1 - momentum.
void ExpandTrainingBatchNorm(ir::Graph& g, const Node& n, std::vector<Node>* out) {
  Builder b{g, n, out};
  const Shape x = g.value(n.inputs[0]).shape;  // a copy: AddValue may reallocate
  const Shape c = {x[1]};
  std::vector<int64_t> axes = {0};
  Shape kept = x;  // [1, C, 1, ...]
  kept[0] = 1;
  for (size_t d = 2; d < x.size(); ++d) {
    axes.push_back(static_cast<int64_t>(d));
    kept[d] = 1;
  }
  // -1 stands for C, which may be symbolic.
  std::vector<int64_t> to_kept(kept.size(), 1);
  to_kept[1] = -1;
  const ValueId kept_shape =
      g.AddConstant("", ir::MakeI64Constant({static_cast<int64_t>(kept.size())}, to_kept));
  const ValueId c_shape = g.AddConstant("", ir::MakeI64Constant({1}, {-1}));
  const ValueId mean = b.ReduceMean(n.inputs[0], axes, kept);
  const ValueId dev = b.Add("Sub", {n.inputs[0], mean}, x);
  const ValueId dev2 = b.Add("Mul", {dev, dev}, x);
  const ValueId var = b.ReduceMean(dev2, axes, kept);
  const ValueId ve = b.Add("Add", {var, b.Scalar(n.GetFloat("epsilon", 1e-5f))}, kept);
  const ValueId sd = b.Add("Sqrt", {ve}, kept);
  const ValueId scale = b.Add("Reshape", {n.inputs[1], kept_shape}, kept);
  const ValueId bias = b.Add("Reshape", {n.inputs[2], kept_shape}, kept);
  const ValueId t = b.Add("Div", {scale, sd}, kept);
  const ValueId xt = b.Add("Mul", {dev, t}, x);
  b.Add("Add", {xt, bias}, x, n.outputs[0]);
  const float momentum = n.GetFloat("momentum", 0.9f);
  const ValueId keep = b.Scalar(momentum);
  const ValueId take = b.Scalar(1.0f - momentum);
  for (int k = 1; k <= 2; ++k) {
    if (k >= static_cast<int>(n.outputs.size()) || n.outputs[k] == ir::kNoValue) continue;
    const ValueId batch = b.Add("Reshape", {k == 1 ? mean : var, c_shape}, c);
    const ValueId old_part = b.Add("Mul", {n.inputs[k + 2], keep}, c);
    const ValueId new_part = b.Add("Mul", {batch, take}, c);
    b.Add("Add", {old_part, new_part}, c, n.outputs[k]);
  }
}

void ExpandMvn(ir::Graph& g, const Node& n, std::vector<Node>* out) {
  Builder b{g, n, out};
  const Shape x = g.value(n.inputs[0]).shape;  // a copy: AddValue may reallocate
  const int64_t r = static_cast<int64_t>(x.size());
  std::vector<int64_t> axes = n.GetInts("axes", {0, 2, 3});
  for (int64_t& a : axes) a = a < 0 ? a + r : a;
  std::sort(axes.begin(), axes.end());
  Shape kept = x;
  for (int64_t a : axes) kept[a] = 1;
  const ValueId m = b.ReduceMean(n.inputs[0], axes, kept);
  const ValueId x2 = b.Add("Mul", {n.inputs[0], n.inputs[0]}, x);
  const ValueId m2 = b.ReduceMean(x2, axes, kept);
  const ValueId mm = b.Add("Mul", {m, m}, kept);
  const ValueId var = b.Add("Sub", {m2, mm}, kept);
  const ValueId sd = b.Add("Sqrt", {var}, kept);
  const ValueId sde = b.Add("Add", {sd, b.Scalar(1e-9f)}, kept);
  const ValueId d = b.Add("Sub", {n.inputs[0], m}, x);
  b.Add("Div", {d, sde}, x, n.outputs[0]);
}

bool Mvn(const ir::Graph& g, const Node& n) {
  if (n.op_type != "MeanVarianceNormalization" || n.inputs.size() != 1 || !AllF32(g, n) ||
      n.outputs.size() != 1 || n.outputs[0] == ir::kNoValue) {
    return false;
  }
  const int64_t r = static_cast<int64_t>(g.value(n.inputs[0]).shape.size());
  for (int64_t a : n.GetInts("axes", {0, 2, 3})) {
    if (a < -r || a >= r) return false;  // shape inference reports it
  }
  return true;
}

}  // namespace

bool BatchNormTrains(const ir::Node& n) {
  if (n.GetInt("training_mode", 0) != 0) return true;
  for (size_t k = 1; k < n.outputs.size(); ++k) {
    if (n.outputs[k] != ir::kNoValue) return true;
  }
  return false;
}

absl::Status ExpandNorms(ir::Graph& graph) {
  ir::RewriteNodes(graph, [](ir::Graph& g, const Node& n, std::vector<Node>* out) {
    const bool default_domain = n.domain.empty() && !n.removed;
    if (default_domain && TrainingBatchNorm(g, n)) {
      ExpandTrainingBatchNorm(g, n, out);
      return true;
    }
    if (default_domain && RuntimeBatchNorm(g, n)) {
      ExpandBatchNorm(g, n, out);
      return true;
    }
    if (default_domain && Mvn(g, n)) {
      ExpandMvn(g, n, out);
      return true;
    }
    return false;
  });
  return absl::OkStatus();
}

}  // namespace kiln::compiler
