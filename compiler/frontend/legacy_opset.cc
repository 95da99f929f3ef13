// Legacy (opset < 11) node forms → opset-11 forms; see legacy_opset.h. Each
// rewrite follows the ONNX operator changelog for the op's versions.
#include "compiler/frontend/legacy_opset.h"

#include <cstring>
#include <map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"

namespace kiln::compiler {
namespace {

using ir::Attribute;
using ir::DType;
using ir::Graph;
using ir::Node;
using ir::ValueId;

struct Ctx {
  int64_t opset;
  const std::string& where;
  Node& node;
  Graph& graph;

  absl::Status Refuse(const std::string& reason) const {
    return absl::UnimplementedError(absl::StrCat(where, ": opset ", opset, " form of ",
                                                 node.op_type, " not supported: ", reason));
  }
  void Erase(const char* key) const { node.attributes.erase(key); }
  // Rank of input k if it is known at import (graph inputs and constants), else -1.
  int64_t InputRank(size_t k) const {
    if (k >= node.inputs.size() || node.inputs[k] == ir::kNoValue) return -1;
    const ir::Value& v = graph.value(node.inputs[k]);
    return v.has_shape ? static_cast<int64_t>(v.shape.size()) : -1;
  }
  DType InputDType(size_t k) const {
    if (k >= node.inputs.size() || node.inputs[k] == ir::kNoValue) return DType::Unknown;
    return graph.value(node.inputs[k]).dtype;
  }
  ValueId I64(const std::vector<int64_t>& values) const {
    return graph.AddConstant("", ir::MakeI64Constant({static_cast<int64_t>(values.size())}, values));
  }
  ValueId F32(const std::vector<float>& values) const {
    std::vector<uint8_t> bytes(4 * values.size());
    if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
    return graph.AddConstant(
        "", ir::MakeConstant(DType::F32, {static_cast<int64_t>(values.size())}, std::move(bytes)));
  }
  // Appends `trailing` size-1 axes to input k: a reshaped constant, or an
  // Unsqueeze node (opset-11 form) that precedes this node.
  void AppendUnitAxes(size_t k, int64_t trailing) const {
    const ValueId in = node.inputs[k];
    const ir::Value& v = graph.value(in);
    std::vector<int64_t> shape = v.shape;
    std::vector<int64_t> axes;
    for (int64_t t = 0; t < trailing; ++t) {
      axes.push_back(static_cast<int64_t>(shape.size()));
      shape.push_back(1);
    }
    if (v.constant) {
      node.inputs[k] =
          graph.AddConstant("", ir::MakeConstant(v.constant->dtype, shape, v.constant->bytes));
      return;
    }
    Node unsq;
    unsq.name = absl::StrCat(node.name, ".legacy_unsqueeze", k);
    unsq.op_type = "Unsqueeze";
    unsq.inputs = {in};
    Attribute a;
    a.kind = Attribute::Kind::kInts;
    a.ints = axes;
    unsq.attributes["axes"] = a;
    const ValueId out = graph.AddValue("");
    unsq.outputs = {out};
    graph.AddNode(std::move(unsq));
    node.inputs[k] = out;
  }
};

void SetString(Node& node, const char* key, const std::string& s) {
  Attribute a;
  a.kind = Attribute::Kind::kString;
  a.s = s;
  node.attributes[key] = a;
}

// Add/Sub/Mul/Div/Pow and the logic/comparison ops before opset 7: with
// broadcast=1 and an axis, B's dims line up with A's starting at `axis`
// rather than at the end; append unit axes to B so numpy rules agree.
absl::Status LegacyBroadcast(const Ctx& c) {
  const bool broadcast = c.node.GetInt("broadcast", 0) != 0;
  const bool has_axis = c.node.HasAttr("axis");
  const int64_t axis = c.node.GetInt("axis", 0);
  c.Erase("broadcast");
  c.Erase("axis");
  if (!broadcast || !has_axis || c.node.inputs.size() != 2) return absl::OkStatus();
  const int64_t ra = c.InputRank(0), rb = c.InputRank(1);
  if (ra < 0 || rb < 0) {
    return c.Refuse("broadcast with an axis needs both input ranks at import "
                    "(graph inputs or constants)");
  }
  const int64_t start = axis < 0 ? axis + ra : axis;
  const int64_t trailing = ra - start - rb;
  if (start < 0 || trailing < 0) {
    return c.Refuse(absl::StrCat("axis ", axis, " does not fit a rank-", rb,
                                 " B into a rank-", ra, " A"));
  }
  if (trailing > 0) c.AppendUnitAxes(1, trailing);
  return absl::OkStatus();
}

// PRelu before opset 7: a 1-D slope of C entries applies per channel (axis 1).
absl::Status LegacyPRelu(const Ctx& c) {
  const int64_t rx = c.InputRank(0), rs = c.InputRank(1);
  if (rs != 1) return absl::OkStatus();  // scalar-like or already shaped
  const ir::Value& s = c.graph.value(c.node.inputs[1]);
  if (s.shape[0] == 1) return absl::OkStatus();
  if (rx < 0) return c.Refuse("a per-channel slope needs the input rank at import");
  if (rx >= 3) c.AppendUnitAxes(1, rx - 2);
  return absl::OkStatus();
}

absl::Status LegacySlice(const Ctx& c) {  // opset < 10: starts/ends/axes attributes
  if (!c.node.HasAttr("starts") || !c.node.HasAttr("ends")) {
    return c.Refuse("starts and ends attributes are required");
  }
  c.node.inputs.resize(1);
  c.node.inputs.push_back(c.I64(c.node.GetInts("starts", {})));
  c.node.inputs.push_back(c.I64(c.node.GetInts("ends", {})));
  if (c.node.HasAttr("axes")) c.node.inputs.push_back(c.I64(c.node.GetInts("axes", {})));
  c.Erase("starts");
  c.Erase("ends");
  c.Erase("axes");
  return absl::OkStatus();
}

absl::Status LegacyPad(const Ctx& c) {  // opset < 11: pads (v1: paddings), value attributes
  const char* key = c.node.HasAttr("pads") ? "pads" : "paddings";
  if (!c.node.HasAttr(key)) return c.Refuse("the pads attribute is missing");
  c.node.inputs.resize(1);
  c.node.inputs.push_back(c.I64(c.node.GetInts(key, {})));
  c.Erase("pads");
  c.Erase("paddings");
  const float value = c.node.GetFloat("value", 0.0f);
  const DType t = c.InputDType(0);
  if (t == DType::F32) {
    c.node.inputs.push_back(c.graph.AddConstant(
        "", ir::MakeConstant(DType::F32, {}, std::vector<uint8_t>(
                                                 reinterpret_cast<const uint8_t*>(&value),
                                                 reinterpret_cast<const uint8_t*>(&value) + 4))));
  } else if (t == DType::F64) {
    const double d = value;
    c.node.inputs.push_back(c.graph.AddConstant(
        "", ir::MakeConstant(DType::F64, {}, std::vector<uint8_t>(
                                                 reinterpret_cast<const uint8_t*>(&d),
                                                 reinterpret_cast<const uint8_t*>(&d) + 8))));
  } else if (value != 0.0f && t != DType::Unknown) {
    return c.Refuse("a non-zero pad value for this element type");
  } else {
    return absl::OkStatus();  // unknown dtype: the "value" attribute (float32) stays
  }
  c.Erase("value");
  return absl::OkStatus();
}

// Upsample (opsets 7-9, deprecated in 10) and Resize-10 → Resize-11 with the
// same sampling: x_in = x_out / scale; nearest picks floor (the ONNX version
// converter's Resize 10→11 adapter makes the same choice).
absl::Status LegacyResize(const Ctx& c) {
  ValueId scales = ir::kNoValue;
  if (c.node.op_type == "Upsample" && c.node.HasAttr("scales")) {  // Upsample-7
    const auto it = c.node.attributes.find("scales");
    scales = c.F32(it->second.floats);
    c.Erase("scales");
  } else if (c.node.inputs.size() == 2 && c.node.inputs[1] != ir::kNoValue) {
    scales = c.node.inputs[1];
  } else {
    return c.Refuse("scales are missing (the experimental opset-1 Upsample is not supported)");
  }
  const std::string mode = c.node.GetString("mode", "nearest");
  if (mode != "nearest" && mode != "linear") return c.Refuse(absl::StrCat("mode '", mode, "'"));
  c.node.op_type = "Resize";
  c.node.inputs = {c.node.inputs[0], ir::kNoValue, scales};
  SetString(c.node, "coordinate_transformation_mode", "asymmetric");
  if (mode == "nearest") SetString(c.node, "nearest_mode", "floor");
  return absl::OkStatus();
}

absl::Status LegacyCast(const Ctx& c) {  // opset < 6: `to` is a type name
  const auto it = c.node.attributes.find("to");
  if (it == c.node.attributes.end() || it->second.kind != Attribute::Kind::kString) {
    return absl::OkStatus();
  }
  static const std::map<std::string, int64_t> kCodes = {
      {"FLOAT", 1},   {"UINT8", 2},   {"INT8", 3},    {"UINT16", 4},  {"INT16", 5},
      {"INT32", 6},   {"INT64", 7},   {"STRING", 8},  {"BOOL", 9},    {"FLOAT16", 10},
      {"DOUBLE", 11}, {"UINT32", 12}, {"UINT64", 13}};
  const auto code = kCodes.find(it->second.s);
  if (code == kCodes.end()) return c.Refuse(absl::StrCat("unknown type name '", it->second.s, "'"));
  c.node.SetInt("to", code->second);
  return absl::OkStatus();
}

absl::Status LegacySplit(const Ctx& c) {  // opset 1: `split` may be a second input
  if (c.node.inputs.size() < 2) return absl::OkStatus();
  const ValueId s = c.node.inputs[1];
  if (s != ir::kNoValue) {
    const ir::Value& v = c.graph.value(s);
    if (!v.constant) return c.Refuse("the split input must be a constant");
    std::vector<int64_t> parts;
    for (int64_t k = 0; k < v.constant->element_count(); ++k) parts.push_back(v.constant->IntAt(k));
    Attribute a;
    a.kind = Attribute::Kind::kInts;
    a.ints = parts;
    c.node.attributes["split"] = a;
  }
  c.node.inputs.resize(1);
  return absl::OkStatus();
}

absl::Status Upgrade(const Ctx& c) {
  Node& n = c.node;
  const std::string& op = n.op_type;
  const int64_t v = c.opset;
  c.Erase("consumed_inputs");  // an opset-1 memory hint with no effect on results
  if (v < 7 && (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Pow" ||
                op == "And" || op == "Or" || op == "Xor" || op == "Equal" || op == "Greater" ||
                op == "Less")) {
    return LegacyBroadcast(c);
  }
  if (v < 7 && op == "Gemm") {
    c.Erase("broadcast");  // C broadcasts unidirectionally since opset 7, a superset
    return absl::OkStatus();
  }
  if (v < 7 && op == "PRelu") return LegacyPRelu(c);
  if (op == "Dropout" && v < 7) {
    if (n.GetInt("is_test", 0) == 0) return c.Refuse("training mode (is_test=0)");
    c.Erase("is_test");
    return absl::OkStatus();
  }
  if (op == "BatchNormalization" && v < 9) {
    if (n.GetInt("spatial", 1) == 0) return c.Refuse("per-element statistics (spatial=0)");
    if (v < 7 && n.GetInt("is_test", 0) == 0) return c.Refuse("training mode (is_test=0)");
    c.Erase("spatial");
    c.Erase("is_test");
    return absl::OkStatus();
  }
  if (op == "Slice" && v < 10) return LegacySlice(c);
  if (op == "Pad") return LegacyPad(c);
  if (op == "Resize" && v == 10) return LegacyResize(c);
  if (op == "Concat" && v < 4 && !n.HasAttr("axis")) n.SetInt("axis", 1);
  if (op == "Cast" && v < 6) return LegacyCast(c);
  if (op == "Reshape" && v < 5) {
    if (!n.HasAttr("shape")) return c.Refuse("the shape attribute is missing");
    n.inputs.resize(1);
    n.inputs.push_back(c.I64(n.GetInts("shape", {})));
    c.Erase("shape");
  }
  if (op == "Split" && v < 2) return LegacySplit(c);
  if (op == "Tile" && v < 6) return c.Refuse("tiles/axis inputs (use opset 6 repeats)");
  if ((op == "RNN" || op == "GRU" || op == "LSTM") && v < 7) {
    c.Erase("output_sequence");  // Y is always computed since opset 7, a superset
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status UpgradeLegacyNode(int64_t opset, const std::string& where, ir::Node* node,
                               ir::Graph* graph) {
  if (!node->domain.empty()) return absl::OkStatus();
  // Scatter (opsets 9-10, deprecated in 11) is ScatterElements under its old name.
  if (node->op_type == "Scatter") node->op_type = "ScatterElements";
  if (node->op_type == "Upsample") {  // deprecated from opset 10 on, same form as 9
    return LegacyResize(Ctx{opset, where, *node, *graph});
  }
  if (opset >= kLegacyUpgradeTarget) return absl::OkStatus();
  return Upgrade(Ctx{opset, where, *node, *graph});
}

}  // namespace kiln::compiler
