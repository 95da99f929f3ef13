#include "compiler/ir/graph.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kiln::ir {

float BFloat16ToFloat(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t FloatToBFloat16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40);  // quiet NaN
  x += 0x7fffu + ((x >> 16) & 1);  // a carry into the exponent rounds up to it (or to infinity)
  return static_cast<uint16_t>(x >> 16);
}

int64_t ElementCount(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return -1;
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d) return -1;
    n *= d;
  }
  return n;
}

namespace {

// IEEE half → float, handling subnormals, infinities and NaN.
float HalfToFloat(uint16_t h) {
  const uint32_t sign = (h >> 15) & 1;
  const uint32_t exp = (h >> 10) & 0x1f;
  const uint32_t mant = h & 0x3ff;
  float v;
  if (exp == 0) {
    v = std::ldexp(static_cast<float>(mant), -24);
  } else if (exp == 31) {
    v = mant ? std::numeric_limits<float>::quiet_NaN()
             : std::numeric_limits<float>::infinity();
  } else {
    v = std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
  }
  return sign ? -v : v;
}

template <typename T>
T Load(const std::vector<uint8_t>& bytes, int64_t k) {
  T v;
  std::memcpy(&v, bytes.data() + k * sizeof(T), sizeof(T));
  return v;
}

}  // namespace

int64_t SaturateToInt64(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();  // 2^63
  if (v <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

int64_t ConstantData::IntAt(int64_t k) const {
  switch (dtype) {
    case DType::F32: return SaturateToInt64(Load<float>(bytes, k));
    case DType::F16: return SaturateToInt64(HalfToFloat(Load<uint16_t>(bytes, k)));
    case DType::BF16: return SaturateToInt64(BFloat16ToFloat(Load<uint16_t>(bytes, k)));
    case DType::F64: return SaturateToInt64(Load<double>(bytes, k));
    case DType::I8: return Load<int8_t>(bytes, k);
    case DType::I16: return Load<int16_t>(bytes, k);
    case DType::I32: return Load<int32_t>(bytes, k);
    case DType::I64: return Load<int64_t>(bytes, k);
    case DType::U8: return Load<uint8_t>(bytes, k);
    case DType::Bool: return Load<uint8_t>(bytes, k) != 0;
    case DType::U16: return Load<uint16_t>(bytes, k);
    case DType::U32: return Load<uint32_t>(bytes, k);
    case DType::U64: return static_cast<int64_t>(Load<uint64_t>(bytes, k));
    default: return 0;
  }
}

double ConstantData::FloatAt(int64_t k) const {
  switch (dtype) {
    case DType::F32: return Load<float>(bytes, k);
    case DType::F16: return HalfToFloat(Load<uint16_t>(bytes, k));
    case DType::BF16: return BFloat16ToFloat(Load<uint16_t>(bytes, k));
    case DType::F64: return Load<double>(bytes, k);
    default: return static_cast<double>(IntAt(k));
  }
}

int64_t Node::GetInt(const std::string& key, int64_t fallback) const {
  auto it = attributes.find(key);
  if (it == attributes.end() || it->second.kind != Attribute::Kind::kInt) return fallback;
  return it->second.i;
}

float Node::GetFloat(const std::string& key, float fallback) const {
  auto it = attributes.find(key);
  if (it == attributes.end()) return fallback;
  if (it->second.kind == Attribute::Kind::kFloat) return it->second.f;
  if (it->second.kind == Attribute::Kind::kInt) return static_cast<float>(it->second.i);
  return fallback;
}

std::string Node::GetString(const std::string& key, const std::string& fallback) const {
  auto it = attributes.find(key);
  if (it == attributes.end() || it->second.kind != Attribute::Kind::kString) return fallback;
  return it->second.s;
}

std::vector<int64_t> Node::GetInts(const std::string& key,
                                   const std::vector<int64_t>& fallback) const {
  auto it = attributes.find(key);
  if (it == attributes.end() || it->second.kind != Attribute::Kind::kInts) return fallback;
  return it->second.ints;
}

void Node::SetInt(const std::string& key, int64_t v) {
  Attribute a;
  a.kind = Attribute::Kind::kInt;
  a.i = v;
  attributes[key] = std::move(a);
}

void Node::SetFloat(const std::string& key, float v) {
  Attribute a;
  a.kind = Attribute::Kind::kFloat;
  a.f = v;
  attributes[key] = std::move(a);
}

void Node::SetInts(const std::string& key, std::vector<int64_t> v) {
  Attribute a;
  a.kind = Attribute::Kind::kInts;
  a.ints = std::move(v);
  attributes[key] = std::move(a);
}

std::string Node::Describe() const {
  return absl::StrCat("'", name, "' (", op_type, ")");
}

ValueId Graph::AddValue(const std::string& name) {
  std::string unique = name;
  if (unique.empty() || by_name_.count(unique)) {
    // Fresh names never collide with ONNX names in practice; loop to be sure.
    const std::string base = name.empty() ? std::string("kiln.v") : name + ".";
    for (size_t k = values.size();; ++k) {
      unique = absl::StrCat(base, k);
      if (!by_name_.count(unique)) break;
    }
  }
  const ValueId id = static_cast<ValueId>(values.size());
  Value v;
  v.name = unique;
  values.push_back(std::move(v));
  by_name_[unique] = id;
  return id;
}

ValueId Graph::AddConstant(const std::string& name, ConstantPtr data) {
  const ValueId id = AddValue(name);
  Value& v = values[id];
  v.dtype = data->dtype;
  v.shape = data->shape;
  v.has_shape = true;
  v.constant = std::move(data);
  return id;
}

ValueId Graph::FindValue(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? kNoValue : it->second;
}

void Graph::RenameValue(ValueId id, const std::string& name) {
  by_name_.erase(values[id].name);
  values[id].name = name;
  by_name_[name] = id;
}

NodeId Graph::AddNode(Node node) {
  const NodeId id = static_cast<NodeId>(nodes.size());
  for (ValueId out : node.outputs) {
    if (out != kNoValue) values[out].producer = id;
  }
  nodes.push_back(std::move(node));
  return id;
}

std::vector<NodeId> Graph::Users(ValueId id) const {
  std::vector<NodeId> users;
  for (size_t n = 0; n < nodes.size(); ++n) {
    if (nodes[n].removed) continue;
    for (ValueId in : nodes[n].inputs) {
      if (in == id) {
        users.push_back(static_cast<NodeId>(n));
        break;
      }
    }
  }
  return users;
}

bool Graph::IsGraphOutput(ValueId id) const {
  for (ValueId out : outputs) {
    if (out == id) return true;
  }
  return false;
}

void Graph::ReplaceAllUses(ValueId from, ValueId to) {
  for (Node& node : nodes) {
    for (ValueId& in : node.inputs) {
      if (in == from) in = to;
    }
  }
  for (ValueId& out : outputs) {
    if (out == from) out = to;
  }
}

void Graph::Compact() {
  // Walk backwards so a whole dead chain goes in one pass.
  std::vector<bool> live_value(values.size(), false);
  for (ValueId out : outputs) {
    if (out != kNoValue) live_value[out] = true;
  }
  // Values the module reads after the run (lengths a kernel reported) keep
  // their producers too.
  for (size_t v = 0; v < values.size(); ++v) {
    if (values[v].live_to_end) live_value[v] = true;
  }
  std::vector<bool> keep(nodes.size(), false);
  for (size_t k = nodes.size(); k-- > 0;) {
    const Node& node = nodes[k];
    if (node.removed) continue;
    bool used = false;
    for (ValueId out : node.outputs) {
      if (out != kNoValue && live_value[out]) used = true;
    }
    if (!used) continue;
    keep[k] = true;
    for (ValueId in : node.inputs) {
      if (in != kNoValue) live_value[in] = true;
    }
  }
  std::vector<Node> kept;
  kept.reserve(nodes.size());
  for (size_t k = 0; k < nodes.size(); ++k) {
    if (keep[k]) kept.push_back(std::move(nodes[k]));
  }
  nodes = std::move(kept);
  for (Value& v : values) v.producer = kNoNode;
  for (size_t n = 0; n < nodes.size(); ++n) {
    for (ValueId out : nodes[n].outputs) {
      if (out != kNoValue) values[out].producer = static_cast<NodeId>(n);
    }
  }
}

namespace {

std::string ShapeString(const std::vector<int64_t>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ","), "]");
}

std::string TypeString(const Value& v) {
  if (!v.has_shape) return absl::StrCat(DTypeName(v.dtype), "[?]");
  return absl::StrCat(DTypeName(v.dtype), ShapeString(v.shape), v.channels_last ? " NHWC" : "");
}

// Small constants are printed in full; large ones by size only.
std::string ConstantSummary(const ConstantData& c) {
  const int64_t n = c.element_count();
  if (n >= 0 && n <= 8) {
    std::vector<std::string> parts;
    const bool is_float = IsFloat(c.dtype);
    for (int64_t k = 0; k < n; ++k) {
      parts.push_back(is_float ? absl::StrCat(c.FloatAt(k)) : absl::StrCat(c.IntAt(k)));
    }
    return absl::StrCat("{", absl::StrJoin(parts, ", "), "}");
  }
  return absl::StrCat("(", c.bytes.size(), " bytes)");
}

std::string AttrString(const Attribute& a) {
  using K = Attribute::Kind;
  switch (a.kind) {
    case K::kInt: return absl::StrCat(a.i);
    case K::kFloat: return absl::StrCat(a.f);
    case K::kString: return absl::StrCat("\"", a.s, "\"");
    case K::kInts: return absl::StrCat("[", absl::StrJoin(a.ints, ","), "]");
    case K::kFloats: return absl::StrCat("[", absl::StrJoin(a.floats, ","), "]");
    case K::kStrings: return absl::StrCat("[\"", absl::StrJoin(a.strings, "\",\""), "\"]");
    case K::kTensor:
      if (!a.tensor) return "tensor";
      return absl::StrCat("tensor:", DTypeName(a.tensor->dtype), ShapeString(a.tensor->shape));
    case K::kGraph: return "<graph>";
  }
  return "?";
}

}  // namespace

std::string Graph::ToString() const {
  std::ostringstream os;
  auto ref = [&](ValueId id) -> std::string {
    if (id == kNoValue) return "_";
    return absl::StrCat("%", values[id].name);
  };
  os << "graph " << source << " (opset " << opset << ")\n";
  for (ValueId in : inputs) {
    os << "  input " << ref(in) << ":" << TypeString(values[in]) << "\n";
  }
  // Constants that something reads (or that are outputs) — the module's data.
  std::vector<bool> listed(values.size(), false);
  auto list_const = [&](ValueId id) {
    if (id == kNoValue || listed[id] || !values[id].constant) return;
    listed[id] = true;
    os << "  const " << ref(id) << ":" << TypeString(values[id]) << " = "
       << ConstantSummary(*values[id].constant) << "\n";
  };
  for (const Node& node : nodes) {
    if (node.removed) continue;
    for (ValueId in : node.inputs) list_const(in);
  }
  for (ValueId out : outputs) list_const(out);
  for (const Node& node : nodes) {
    if (node.removed) continue;
    std::vector<std::string> outs, ins, attrs;
    for (ValueId out : node.outputs) {
      outs.push_back(out == kNoValue ? "_" : absl::StrCat(ref(out), ":", TypeString(values[out])));
    }
    for (ValueId in : node.inputs) {
      std::string s = ref(in);
      if (in != kNoValue && values[in].constant) s += "(const)";
      ins.push_back(std::move(s));
    }
    for (const auto& [key, attr] : node.attributes) {
      attrs.push_back(absl::StrCat(key, "=", AttrString(attr)));
    }
    os << "  " << absl::StrJoin(outs, ", ") << " = " << node.op_type << "("
       << absl::StrJoin(ins, ", ") << ")";
    if (!attrs.empty()) os << " {" << absl::StrJoin(attrs, ", ") << "}";
    os << " # " << node.name;
    if (!node.fused.empty()) {
      std::vector<std::string> f;
      for (const FusedSource& src : node.fused) f.push_back(absl::StrCat(src.name, ":", src.op_type));
      os << " [fused " << absl::StrJoin(f, ", ") << "]";
    }
    os << "\n";
  }
  std::vector<std::string> outs;
  for (ValueId out : outputs) {
    std::string s = absl::StrCat(ref(out), ":", TypeString(values[out]));
    if (out != kNoValue && values[out].constant) s += "(const)";
    outs.push_back(std::move(s));
  }
  os << "  return " << absl::StrJoin(outs, ", ") << "\n";
  return os.str();
}

}  // namespace kiln::ir
