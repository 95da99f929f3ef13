#include "compiler/frontend/onnx_importer.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/frontend/attribute_kinds.h"
#include "compiler/frontend/domain_imports.h"
#include "compiler/frontend/function_ops.h"
#include "compiler/frontend/input_binding.h"
#include "compiler/frontend/legacy_opset.h"
#include "compiler/frontend/onnx_model_file.h"
#include "compiler/frontend/onnx_tensor.h"
#include "compiler/ir/graph_util.h"
#include "kiln/kernel_abi.h"
#include "kiln/limits.h"
#include "onnx/onnx_pb.h"

namespace kiln::compiler {
namespace {

// Older opsets are upgraded node by node to opset-11 forms (legacy_opset.h).
constexpr int64_t kMinOpset = 1;
constexpr int64_t kMaxOpset = 21;

bool IsDefaultDomain(const std::string& domain) {
  return domain.empty() || domain == "ai.onnx";
}

absl::StatusOr<int64_t> DefaultOpset(const onnx::ModelProto& model, const std::string& path) {
  int64_t opset = -1;
  for (const auto& entry : model.opset_import()) {
    if (IsDefaultDomain(entry.domain())) opset = entry.version();
  }
  if (opset < 0) {
    // Optimizers alone (domain_imports.h): no default-domain node may follow.
    if (ImportsPreviewTraining(model)) return opset;
    return absl::InvalidArgumentError(
        absl::StrCat("'", path, "' imports no opset for the default ONNX domain"));
  }
  if (opset < kMinOpset || opset > kMaxOpset) {
    return absl::UnimplementedError(absl::StrCat("'", path, "' uses ONNX opset ", opset,
                                                 "; Kiln supports opsets ", kMinOpset, " to ",
                                                 kMaxOpset));
  }
  return opset;
}

// A shape the caller binds to an input: its declared rank (when it declares
// one), every dim a positive number.
absl::Status CheckBoundShape(const onnx::TypeProto::Tensor& tt, const std::vector<int64_t>& bound,
                             const std::string& where) {
  if (tt.has_shape() && tt.shape().dim_size() != static_cast<int>(bound.size())) {
    std::vector<std::string> declared;
    for (const auto& dim : tt.shape().dim()) {
      declared.push_back(dim.has_dim_value() ? absl::StrCat(dim.dim_value())
                         : dim.dim_param().empty() ? std::string("?") : dim.dim_param());
    }
    return absl::InvalidArgumentError(absl::StrCat(
        where, " has rank ", declared.size(), " ([", absl::StrJoin(declared, ","),
        "]); the input shape given, [", absl::StrJoin(bound, ","), "], has rank ", bound.size()));
  }
  for (int64_t d : bound) {
    if (d < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": the input shape given, [", absl::StrJoin(bound, ","),
          "], has a dim below 1"));
    }
  }
  return absl::OkStatus();
}

// `bound`, when not null, replaces the declared dims (ImportOptions::input_shapes).
// `dims` binds symbolic dims by name; the names met are added to `dim_names`.
absl::Status ImportInput(const onnx::ValueInfoProto& info, const std::string& path,
                         const std::vector<int64_t>* bound,
                         const std::map<std::string, int64_t>& dims,
                         std::set<std::string>* dim_names, ir::Graph* graph) {
  const std::string where = absl::StrCat("'", path, "': input '", info.name(), "'");
  if (graph->FindValue(info.name()) != ir::kNoValue) {
    return absl::InvalidArgumentError(absl::StrCat(where, " is declared twice"));
  }
  if (!info.type().has_tensor_type()) {
    return absl::UnimplementedError(absl::StrCat(where, " is not a tensor"));
  }
  const auto& tt = info.type().tensor_type();
  const ir::DType dtype = ir::DTypeFromOnnx(tt.elem_type());
  if (dtype == ir::DType::Unknown) {
    return absl::UnimplementedError(
        absl::StrCat(where, " has unsupported element type ", tt.elem_type()));
  }
  if (!tt.has_shape() && bound == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(where, " has no declared shape"));
  }
  std::vector<int64_t> shape;
  if (bound != nullptr) {
    if (absl::Status s = CheckBoundShape(tt, *bound, where); !s.ok()) return s;
    shape = *bound;
  }
  for (int k = 0; bound == nullptr && k < tt.shape().dim_size(); ++k) {
    const auto& dim = tt.shape().dim(k);
    if (dim.has_dim_value() && dim.dim_value() >= 0) {
      shape.push_back(dim.dim_value());
      continue;
    }
    // A symbolic dimension: the module takes any positive value at run time,
    // unless the caller fixes it. An unnamed one gets a name of its own.
    const std::string name = dim.has_dim_param() && !dim.dim_param().empty()
                                 ? dim.dim_param()
                                 : absl::StrCat(info.name(), "_dim", k);
    dim_names->insert(name);
    const auto fixed = dims.find(name);
    shape.push_back(fixed != dims.end() ? fixed->second : graph->dims.Symbol(name));
  }
  std::vector<int64_t> static_dims;
  for (int64_t d : shape) static_dims.push_back(ir::IsSymbolic(d) ? 1 : d);
  // Limits: the rank kernels accept and a size whose bytes fit the VM's
  // largest tensor, so no later size computation can overflow.
  const int64_t elements = ir::ElementCount(static_dims);
  if (shape.size() > KILN_MAX_RANK || elements < 0 ||
      elements > static_cast<int64_t>(kMaxTensorBytes) / std::max<int64_t>(1, static_cast<int64_t>(ir::DTypeSize(dtype)))) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": shape [", absl::StrJoin(static_dims, ","), "] exceeds the limits (rank <= ", KILN_MAX_RANK,
        ", at most ", kMaxTensorBytes, " bytes)"));
  }
  const ir::ValueId id = graph->AddValue(info.name());
  ir::Value& v = graph->value(id);
  v.dtype = dtype;
  v.shape = std::move(shape);
  v.has_shape = true;
  graph->inputs.push_back(id);
  return absl::OkStatus();
}

absl::StatusOr<ir::Attribute> ConvertAttribute(const onnx::AttributeProto& a,
                                               const std::string& where) {
  ir::Attribute out;
  using K = ir::Attribute::Kind;
  switch (a.type()) {
    case onnx::AttributeProto::INT: out.kind = K::kInt; out.i = a.i(); break;
    case onnx::AttributeProto::FLOAT: out.kind = K::kFloat; out.f = a.f(); break;
    case onnx::AttributeProto::STRING: out.kind = K::kString; out.s = a.s(); break;
    case onnx::AttributeProto::INTS:
      out.kind = K::kInts;
      out.ints.assign(a.ints().begin(), a.ints().end());
      break;
    case onnx::AttributeProto::FLOATS:
      out.kind = K::kFloats;
      out.floats.assign(a.floats().begin(), a.floats().end());
      break;
    case onnx::AttributeProto::STRINGS:
      out.kind = K::kStrings;
      out.strings.assign(a.strings().begin(), a.strings().end());
      break;
    case onnx::AttributeProto::TENSOR: {
      out.kind = K::kTensor;
      auto t = ConstantFromTensorProto(a.t(), absl::StrCat("(attribute '", a.name(), "' of ", where, ")"));
      if (!t.ok()) return t.status();
      out.tensor = *std::move(t);
      break;
    }
    default:
      // Subgraphs, tensor lists, sparse tensors, type protos: kept as an
      // opaque marker; no supported op reads them.
      out.kind = K::kGraph;
      break;
  }
  return out;
}

// A Constant node's payload, from whichever value* attribute it carries.
absl::StatusOr<ir::ConstantPtr> ConstantNodeValue(const onnx::NodeProto& node,
                                                  const std::string& where) {
  for (const auto& a : node.attribute()) {
    const std::string& n = a.name();
    if (n == "value") return ConstantFromTensorProto(a.t(), absl::StrCat("(value of ", where, ")"));
    if (n == "value_float") {
      std::vector<uint8_t> b(4);
      const float f = a.f();
      std::memcpy(b.data(), &f, 4);
      return ir::MakeConstant(ir::DType::F32, {}, std::move(b));
    }
    if (n == "value_floats") {
      std::vector<uint8_t> b(4 * a.floats_size());
      for (int k = 0; k < a.floats_size(); ++k) {
        const float f = a.floats(k);
        std::memcpy(b.data() + 4 * k, &f, 4);
      }
      return ir::MakeConstant(ir::DType::F32, {a.floats_size()}, std::move(b));
    }
    if (n == "value_int") return ir::MakeI64Constant({}, {a.i()});
    if (n == "value_ints") {
      std::vector<int64_t> v(a.ints().begin(), a.ints().end());
      return ir::MakeI64Constant({static_cast<int64_t>(v.size())}, v);
    }
  }
  return absl::UnimplementedError(absl::StrCat(
      where, ": only value, value_float(s) and value_int(s) Constant payloads are supported"));
}

// A graph output's shape as the model declares it, when every dim is a number:
// shape rules that cannot infer a length (run-time parameters) may use it.
void DeclareStaticShape(const onnx::ValueInfoProto& out, ir::Value* v) {
  if (!out.type().has_tensor_type() || !out.type().tensor_type().has_shape()) return;
  std::vector<int64_t> dims;
  for (const auto& d : out.type().tensor_type().shape().dim()) {
    if (!d.has_dim_value() || d.dim_value() < 0) return;
    dims.push_back(d.dim_value());
  }
  v->declared_shape = std::move(dims);
  v->has_declared_shape = true;
}

// Where names resolve while importing a graph: the graph itself, then the
// graphs enclosing it (ONNX subgraphs read outer values by name). A name
// found outside becomes a capture: an input of the subgraph, listed in
// `captures`, that its control-flow node passes in.
struct Scope {
  ir::Graph* graph;
  Scope* parent;                       // null for the model's graph
  std::vector<std::string>* captures;  // null for the model's graph
};

ir::ValueId Resolve(Scope& scope, const std::string& name) {
  const ir::ValueId id = scope.graph->FindValue(name);
  if (id != ir::kNoValue || scope.parent == nullptr) return id;
  if (Resolve(*scope.parent, name) == ir::kNoValue) return ir::kNoValue;
  const ir::ValueId capture = scope.graph->AddValue(name);
  scope.graph->inputs.push_back(capture);
  scope.captures->push_back(name);
  return capture;
}

absl::Status ImportNode(const onnx::NodeProto& proto, int index, const std::string& path,
                        int64_t opset, Scope& scope);

// A subgraph attribute of a node in `outer`; `captures` receives the outer
// names it reads, in the order its capture inputs follow its ONNX inputs.
absl::StatusOr<std::shared_ptr<ir::Graph>> ImportSubgraph(const onnx::GraphProto& g,
                                                          const std::string& where,
                                                          const std::string& path, int64_t opset,
                                                          Scope& outer,
                                                          std::vector<std::string>* captures) {
  auto sub = std::make_shared<ir::Graph>();
  sub->source = absl::StrCat(path, " (", where, ")");
  sub->opset = opset;
  Scope scope{sub.get(), &outer, captures};
  for (const auto& init : g.initializer()) {
    if (sub->FindValue(init.name()) != ir::kNoValue) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": initializer '", init.name(),
                                                     "' is defined twice"));
    }
    auto data = ConstantFromTensorProto(init, where);
    if (!data.ok()) return data.status();
    sub->AddConstant(init.name(), *std::move(data));
  }
  // Body inputs often carry no type; the node's inputs give them one later.
  for (const auto& in : g.input()) {
    if (sub->FindValue(in.name()) != ir::kNoValue) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": input '", in.name(),
                                                     "' is declared twice"));
    }
    const ir::ValueId id = sub->AddValue(in.name());
    if (in.type().has_tensor_type()) {
      sub->value(id).dtype = ir::DTypeFromOnnx(in.type().tensor_type().elem_type());
    }
    sub->inputs.push_back(id);
  }
  for (int k = 0; k < g.node_size(); ++k) {
    if (absl::Status s = ImportNode(g.node(k), k, path, opset, scope); !s.ok()) return s;
  }
  sub->opset = std::max(opset, kLegacyUpgradeTarget);
  for (const auto& out : g.output()) {
    const ir::ValueId id = Resolve(scope, out.name());
    if (id == ir::kNoValue) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": output '", out.name(), "' is never defined"));
    }
    // Values of the graphs around (captures) keep what their own graph says.
    if (sub->value(id).producer != ir::kNoNode) DeclareStaticShape(out, &sub->value(id));
    sub->outputs.push_back(id);
  }
  if (sub->outputs.empty()) return absl::InvalidArgumentError(absl::StrCat(where, " has no outputs"));
  return sub;
}

// Gives every subgraph of `node` the same capture inputs, in one order, and
// passes the captured outer values to the node as extra inputs.
absl::Status JoinCaptures(ir::Node& node, Scope& scope,
                          std::vector<std::pair<std::shared_ptr<ir::Graph>,
                                                std::vector<std::string>>>& subgraphs) {
  std::vector<std::string> all;
  for (const auto& [graph, names] : subgraphs) {
    for (const std::string& n : names) {
      if (std::find(all.begin(), all.end(), n) == all.end()) all.push_back(n);
    }
  }
  for (const std::string& n : all) node.inputs.push_back(Resolve(scope, n));
  for (auto& [graph, names] : subgraphs) {
    const size_t formal = graph->inputs.size() - names.size();
    graph->inputs.resize(formal);
    for (const std::string& n : all) {
      const bool read = std::find(names.begin(), names.end(), n) != names.end();
      // A capture only another branch reads: an unused input of this one.
      graph->inputs.push_back(read ? graph->FindValue(n) : graph->AddValue(""));
    }
  }
  if (!all.empty()) node.SetInt(ir::kCaptureCountAttr, static_cast<int64_t>(all.size()));
  return absl::OkStatus();
}

absl::Status ImportNode(const onnx::NodeProto& proto, int index, const std::string& path,
                        int64_t opset, Scope& scope) {
  ir::Graph* graph = scope.graph;
  ir::Node node;
  node.name = proto.name().empty() ? absl::StrCat(proto.op_type(), "_", index) : proto.name();
  node.op_type = proto.op_type();
  node.domain = IsDefaultDomain(proto.domain()) ? "" : proto.domain();
  const std::string where = absl::StrCat("'", path, "': node ", node.Describe());

  for (const std::string& in : proto.input()) {
    if (in.empty()) {
      node.inputs.push_back(ir::kNoValue);
      continue;
    }
    const ir::ValueId id = Resolve(scope, in);
    if (id == ir::kNoValue) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, " reads '", in,
          "', which no earlier node, input or initializer defines (the graph is not "
          "topologically sorted or the value is missing)"));
    }
    node.inputs.push_back(id);
  }
  // Every ONNX op has at least one output; lowering relies on it.
  if (proto.output_size() == 0) return absl::InvalidArgumentError(absl::StrCat(where, " has no outputs"));
  for (const std::string& out : proto.output()) {
    if (!out.empty() && graph->FindValue(out) != ir::kNoValue) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " defines '", out, "', which is already defined"));
    }
  }

  if (node.domain.empty()) {
    if (absl::Status s = CheckAttributeKinds(proto, opset, where); !s.ok()) return s;
  }
  if (node.domain.empty() && node.op_type == "Constant") {
    if (proto.output_size() != 1 || proto.output(0).empty()) {
      return absl::InvalidArgumentError(absl::StrCat(where, " must have exactly one output"));
    }
    auto data = ConstantNodeValue(proto, where);
    if (!data.ok()) return data.status();
    graph->AddConstant(proto.output(0), *std::move(data));
    return absl::OkStatus();
  }

  std::vector<std::pair<std::shared_ptr<ir::Graph>, std::vector<std::string>>> subgraphs;
  for (const auto& a : proto.attribute()) {
    if (a.type() == onnx::AttributeProto::GRAPH) {
      std::vector<std::string> captures;
      auto sub = ImportSubgraph(a.g(), absl::StrCat("subgraph '", a.name(), "' of ", where),
                                path, opset, scope, &captures);
      if (!sub.ok()) return sub.status();
      ir::Attribute attr;
      attr.kind = ir::Attribute::Kind::kGraph;
      attr.graph = *sub;
      node.attributes[a.name()] = std::move(attr);
      subgraphs.push_back({*sub, std::move(captures)});
      continue;
    }
    auto attr = ConvertAttribute(a, where);
    if (!attr.ok()) return attr.status();
    node.attributes[a.name()] = *std::move(attr);
  }
  if (absl::Status s = JoinCaptures(node, scope, subgraphs); !s.ok()) return s;
  // Opset-8 Scan has a batch axis and a sequence_lens input (passes/control_flow.h).
  if (node.domain.empty() && node.op_type == "Scan" && opset < 9) node.SetInt("kiln.batched_scan", 1);
  absl::Status legacy = UpgradeLegacyNode(opset, where, &node, graph);
  if (!legacy.ok()) return legacy;
  if (absl::Status s = ExpandFunctionOp(opset, where, &node, graph); !s.ok()) return s;
  for (const std::string& out : proto.output()) {
    node.outputs.push_back(out.empty() ? ir::kNoValue : graph->AddValue(out));
  }
  graph->AddNode(std::move(node));
  return absl::OkStatus();
}

// Every name ImportOptions::input_shapes and input_values bind is a graph
// input (not an initializer, not a typo).
absl::Status CheckBoundNamesAreInputs(const ImportOptions& options, const ir::Graph& graph,
                                      const std::string& path) {
  std::vector<std::pair<std::string, const char*>> given;
  for (const auto& [name, shape] : options.input_shapes) given.emplace_back(name, "an input shape");
  for (const auto& [name, text] : options.input_values) given.emplace_back(name, "a value");
  for (const auto& [name, what] : given) {
    bool found = false;
    for (ir::ValueId id : graph.inputs) found |= graph.value(id).name == name;
    if (found) continue;
    std::vector<std::string> names;
    for (ir::ValueId id : graph.inputs) names.push_back(absl::StrCat("'", graph.value(id).name, "'"));
    return absl::InvalidArgumentError(absl::StrCat(
        "'", path, "': ", what, " is given for '", name, "', which is not an input of the "
        "model (its inputs: ", names.empty() ? "none" : absl::StrJoin(names, ", "), ")"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ir::Graph> ImportOnnx(const std::string& path, const ImportOptions& options) {
  auto bytes = ReadOnnxFile(path);
  if (!bytes.ok()) return bytes.status();
  return ImportOnnxBytes(*bytes, path, options);
}

absl::StatusOr<ir::Graph> ImportOnnxBytes(const std::string& bytes, const std::string& path,
                                          const ImportOptions& options) {
  auto model = ParseOnnxModel(bytes, path);
  if (!model.ok()) return model.status();
  ir::Graph graph;
  graph.source = path;
  auto opset = DefaultOpset(*model, path);
  if (!opset.ok()) return opset.status();
  if (absl::Status s = CheckDomainImports(*model, path, *opset >= 0); !s.ok()) return s;
  graph.opset = *opset;

  const onnx::GraphProto& g = model->graph();
  if (g.sparse_initializer_size() > 0) {
    return absl::UnimplementedError(absl::StrCat(
        "'", path, "': sparse initializer '", g.sparse_initializer(0).values().name(),
        "' is not supported"));
  }
  std::set<std::string> initializer_names;
  for (const auto& init : g.initializer()) {
    if (graph.FindValue(init.name()) != ir::kNoValue) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", path, "': initializer '", init.name(), "' is defined twice"));
    }
    auto data = ConstantFromTensorProto(init, absl::StrCat("in '", path, "'"));
    if (!data.ok()) return data.status();
    graph.AddConstant(init.name(), *std::move(data));
    initializer_names.insert(init.name());
  }
  // Inputs that are also initializers are constants (old exporters list
  // weights as inputs too); they are not part of the signature.
  std::set<std::string> dim_names;
  for (const auto& in : g.input()) {
    if (initializer_names.count(in.name())) continue;
    const auto bound = options.input_shapes.find(in.name());
    absl::Status s = ImportInput(in, path,
                                 bound == options.input_shapes.end() ? nullptr : &bound->second,
                                 options.dims, &dim_names, &graph);
    if (!s.ok()) return s;
  }
  if (absl::Status s = CheckBoundNamesAreInputs(options, graph, path); !s.ok()) return s;
  if (absl::Status s = CheckBoundDimsUsed(options.dims, dim_names, path); !s.ok()) return s;
  for (const auto& [name, text] : options.input_values) {
    const std::string where = absl::StrCat("'", path, "': input '", name, "'");
    absl::Status s = BindInputValue(graph.FindValue(name), text, where, &graph);
    if (!s.ok()) return s;
  }
  for (int k = 0; k < g.node_size(); ++k) {
    Scope top{&graph, nullptr, nullptr};
    absl::Status s = ImportNode(g.node(k), k, path, *opset, top);
    if (!s.ok()) return s;
  }
  // The nodes now have their opset-11 forms (at least).
  graph.opset = std::max(graph.opset, kLegacyUpgradeTarget);
  for (const auto& out : g.output()) {
    const ir::ValueId id = graph.FindValue(out.name());
    if (id == ir::kNoValue) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", path, "': graph output '", out.name(), "' is never defined"));
    }
    ir::Value& v = graph.value(id);
    if (v.dtype == ir::DType::Unknown && out.type().has_tensor_type()) {
      v.dtype = ir::DTypeFromOnnx(out.type().tensor_type().elem_type());
    }
    DeclareStaticShape(out, &v);
    graph.outputs.push_back(id);
  }
  if (graph.outputs.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("'", path, "': the graph has no outputs"));
  }
  return graph;
}

}  // namespace kiln::compiler
