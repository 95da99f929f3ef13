#include "compiler/passes/control_flow.h"

#include <set>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/compiler.h"
#include "compiler/ir/graph_util.h"
#include "compiler/passes/loop_scan_count.h"

namespace kiln::compiler {
namespace {

// What a subgraph input receives: a type, and a value when it is known.
struct InputType {
  ir::DType dtype = ir::DType::Unknown;
  std::vector<int64_t> shape;
  ir::ConstantPtr constant;
};

class Analysis {
 public:
  Analysis(const ir::Graph& graph, const ir::Node& node, const std::vector<ir::ConstantPtr>* known,
           ir::DimPool& pool)
      : graph_(graph), node_(node), known_(known), pool_(pool) {}

  absl::Status Run(ControlFlow* out) {
    const int64_t captures = node_.GetInt(ir::kCaptureCountAttr, 0);
    if (captures < 0 || static_cast<size_t>(captures) > node_.inputs.size()) {
      return Invalid("has an inconsistent capture count");
    }
    formal_ = node_.inputs.size() - static_cast<size_t>(captures);
    for (size_t k = formal_; k < node_.inputs.size(); ++k) {
      auto t = TypeOf(k);
      if (!t.ok()) return t.status();
      capture_types_.push_back(*std::move(t));
    }
    if (node_.op_type == "If") return If(out);
    if (node_.op_type == "Loop") return Loop(out);
    return Scan(out);
  }

 private:
  absl::Status Invalid(const std::string& msg) const {
    return absl::InvalidArgumentError(
        absl::StrCat(graph_.source, ": node ", node_.Describe(), ": ", msg));
  }
  absl::Status Unimplemented(const std::string& msg) const {
    return absl::UnimplementedError(
        absl::StrCat(graph_.source, ": node ", node_.Describe(), ": ", msg));
  }

  bool Has(size_t k) const { return k < node_.inputs.size() && node_.inputs[k] != ir::kNoValue; }

  const ir::ConstantData* Known(size_t k) const {
    if (!Has(k)) return nullptr;
    const ir::ValueId id = node_.inputs[k];
    if (known_ && static_cast<size_t>(id) < known_->size() && (*known_)[id]) {
      return (*known_)[id].get();
    }
    return graph_.value(id).constant.get();
  }

  absl::StatusOr<InputType> TypeOf(size_t k) const {
    const ir::Value& v = graph_.value(node_.inputs[k]);
    if (!v.has_shape || v.dtype == ir::DType::Unknown) {
      return Invalid(absl::StrCat("input '", v.name, "' has no known type"));
    }
    InputType t{v.dtype, v.shape, nullptr};
    // A shape value computed from the symbols (ConstantData::symbolic) goes in
    // as well: the subgraph shares the pool its dims are encoded in.
    if (const ir::ConstantData* c = Known(k); c != nullptr) {
      t.constant = known_ && static_cast<size_t>(node_.inputs[k]) < known_->size() &&
                           (*known_)[node_.inputs[k]]
                       ? (*known_)[node_.inputs[k]]
                       : v.constant;
    }
    return t;
  }

  // A scalar-like input (one element) of `dtype`, or an error naming it.
  absl::Status RequireScalar(size_t k, ir::DType dtype, const char* what) const {
    const ir::Value& v = graph_.value(node_.inputs[k]);
    if (v.dtype != dtype || !v.has_shape || ir::ElementCount(v.shape) != 1) {
      return Invalid(absl::StrCat(what, " '", v.name, "' must be a single ", ir::DTypeName(dtype),
                                  "; it is ", ir::DTypeName(v.dtype), ir::ShapeStr(v.shape)));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<const ir::Graph*> Body(const char* attr) const {
    auto it = node_.attributes.find(attr);
    if (it == node_.attributes.end() || it->second.kind != ir::Attribute::Kind::kGraph ||
        it->second.graph == nullptr) {
      return Invalid(absl::StrCat("has no subgraph '", attr, "'"));
    }
    return it->second.graph.get();
  }

  // Compiles a copy of `body` for `inputs` (its ONNX inputs; the captures
  // follow). `branch`: an If's branch, whose outputs may be sized by a
  // length it computes (a whole dim, with a bound): If() makes it a branch
  // length.
  absl::StatusOr<PreparedSubgraph> Prepare(const char* attr, std::vector<InputType> inputs,
                                           bool branch = false) const {
    auto body = Body(attr);
    if (!body.ok()) return body.status();
    for (const InputType& c : capture_types_) inputs.push_back(c);
    if (inputs.size() != (*body)->inputs.size()) {
      return Invalid(absl::StrCat("subgraph '", attr, "' takes ",
                                  (*body)->inputs.size() - capture_types_.size(),
                                  " inputs; the node gives it ",
                                  inputs.size() - capture_types_.size()));
    }
    PreparedSubgraph out;
    out.graph = std::make_shared<ir::Graph>(**body);
    ir::Graph& g = *out.graph;
    std::vector<ir::ValueId> kept;
    for (size_t k = 0; k < inputs.size(); ++k) {
      const ir::ValueId id = (*body)->inputs[k];
      ir::Value& v = g.value(id);
      if (v.dtype != ir::DType::Unknown && v.dtype != inputs[k].dtype) {
        return Invalid(absl::StrCat("subgraph '", attr, "' input '", v.name, "' is ",
                                    ir::DTypeName(v.dtype), "; the node gives it ",
                                    ir::DTypeName(inputs[k].dtype)));
      }
      v.dtype = inputs[k].dtype;
      v.shape = inputs[k].shape;
      v.has_shape = true;
      v.constant = inputs[k].constant;
      if (v.constant == nullptr) {
        kept.push_back(id);
        out.kept.push_back(k);
      }
    }
    g.inputs = std::move(kept);
    // One pool for the model and all its subgraphs, so a dim means the same
    // on both sides of a call: the subgraph extends the caller's pool, which
    // takes the extension back (pools only grow; earlier encodings stay).
    g.dims = pool_;
    g.scope = absl::StrCat(graph_.scope, ScopeName(), ".", attr, "/");
    if (absl::Status s = RunGraphPasses(g); !s.ok()) return s;
    // Lengths the subgraph computes during the run (its own data symbols)
    // size its values but not its outputs: the caller plans those.
    for (ir::ValueId id : g.outputs) {
      std::set<int32_t> data;
      for (int64_t d : g.value(id).shape) {
        if (branch && OwnLength(g, d)) continue;
        g.dims.DataSymbolsIn(d, &data);
      }
      for (int32_t k : data) {
        const ir::DimPool::DataSymbol& sym = g.dims.data_symbols()[static_cast<size_t>(k)];
        if (sym.scope.compare(0, g.scope.size(), g.scope) != 0) continue;
        return Unimplemented(absl::StrCat(
            "subgraph '", attr, "' returns '", g.value(id).name, "' with shape ",
            ShapeText(g.dims, g.value(id).shape), ", sized by '", sym.name,
            "', a length it computes during the run; a subgraph's outputs must have sizes "
            "its caller knows"));
      }
    }
    pool_ = g.dims;
    pool_.set_scope(graph_.scope);
    return out;
  }

  // Whether `dim` is a length body `g` computes, alone (not in an
  // expression), with a bound and reported as element 0 of its count: what
  // an If's branch can hand to its caller as a branch length.
  static bool OwnLength(const ir::Graph& g, int64_t dim) {
    const int32_t k = g.dims.BareData(dim);
    if (k < 0) return false;
    const ir::DimPool::DataSymbol& sym = g.dims.data_symbols()[static_cast<size_t>(k)];
    int64_t bound = 0;
    return sym.scope.compare(0, g.scope.size(), g.scope) == 0 && sym.count_element == 0 &&
           g.dims.UpperBound(dim, &bound);
  }

  // The node's name, made unique in its graph (ONNX does not demand that)
  // by its first output's, which is: its subgraphs' lengths must not meet
  // another node's.
  std::string ScopeName() const {
    size_t same = 0;
    for (const ir::Node& n : graph_.nodes) same += !n.removed && n.name == node_.name;
    if (same <= 1 || node_.outputs.empty() || node_.outputs[0] == ir::kNoValue) return node_.name;
    return absl::StrCat(node_.name, "@", graph_.value(node_.outputs[0]).name);
  }

  static std::string ShapeText(const ir::DimPool& pool, const std::vector<int64_t>& shape) {
    std::vector<std::string> dims;
    for (int64_t d : shape) dims.push_back(pool.ToString(d));
    return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
  }
  std::string ShapeText(const std::vector<int64_t>& shape) const { return ShapeText(pool_, shape); }

  const ir::Value& BodyOutput(const PreparedSubgraph& body, size_t k) const {
    return body.graph->value(body.graph->outputs[k]);
  }

  absl::Status If(ControlFlow* out) {
    out->kind = ControlFlow::Kind::kIf;
    if (formal_ != 1 || !Has(0)) return Invalid("If takes exactly one condition input");
    if (absl::Status s = RequireScalar(0, ir::DType::Bool, "the condition"); !s.ok()) return s;
    const int64_t counts = node_.GetInt(kIfLengthsAttr, 0);
    if (counts < 0 || static_cast<size_t>(counts) > node_.outputs.size()) {
      return Invalid("has an inconsistent count of branch lengths");
    }
    const size_t outputs = node_.outputs.size() - static_cast<size_t>(counts);
    for (const char* branch : {"then_branch", "else_branch"}) {
      auto body = Prepare(branch, {}, /*branch=*/true);
      if (!body.ok()) return body.status();
      if (body->graph->outputs.size() != outputs) {
        return Invalid(absl::StrCat("subgraph '", branch, "' has ", body->graph->outputs.size(),
                                    " outputs; the node has ", outputs));
      }
      out->bodies.push_back(*std::move(body));
    }
    for (size_t k = 0; k < outputs; ++k) {
      const ir::Value& a = BodyOutput(out->bodies[0], k);
      const ir::Value& b = BodyOutput(out->bodies[1], k);
      std::vector<int64_t> shape = a.shape;
      // Static dims that differ become lengths known after the IF ran,
      // bounded by the larger; anything else must match.
      bool same = a.dtype == b.dtype && a.shape.size() == b.shape.size();
      for (size_t d = 0; same && d < shape.size(); ++d) {
        if (a.shape[d] == b.shape[d] && !OwnLength(*out->bodies[0].graph, a.shape[d])) continue;
        // Each side static, or a length its branch computes (NMS's count
        // in torchvision's batched_nms, 0 in its empty branch).
        int64_t bound_a = a.shape[d], bound_b = b.shape[d];
        const bool known_a = !ir::IsSymbolic(bound_a) ||
                             (OwnLength(*out->bodies[0].graph, bound_a) &&
                              pool_.UpperBound(a.shape[d], &bound_a));
        const bool known_b = !ir::IsSymbolic(bound_b) ||
                             (OwnLength(*out->bodies[1].graph, bound_b) &&
                              pool_.UpperBound(b.shape[d], &bound_b));
        if (!known_a || !known_b) {
          same = false;
          break;
        }
        shape[d] = std::max(bound_a, bound_b);
        out->lengths.push_back({k, d, a.shape[d], b.shape[d], outputs + out->lengths.size()});
      }
      if (!same) {
        return Unimplemented(absl::StrCat(
            "the branches give output ", k, " as ", ir::DTypeName(a.dtype), ShapeText(a.shape),
            " and ", ir::DTypeName(b.dtype), ShapeText(b.shape),
            "; branches must agree in type and rank, and may differ only in static dims or in "
            "lengths a branch finds (an If whose condition comes from a configuration input "
            "folds away when the input is "
            "bound: kiln compile --input-value NAME=VALUE; one that tests input sizes, when "
            "they are: --input-shape NAME=D0,D1,... or --dim NAME=VALUE)"));
      }
      out->output_dtypes.push_back(a.dtype);
      out->output_shapes.push_back(std::move(shape));
    }
    return absl::OkStatus();
  }

  absl::Status Loop(ControlFlow* out) {
    out->kind = ControlFlow::Kind::kLoop;
    if (formal_ < 2) return Invalid("Loop takes a trip count and a condition (either may be empty)");
    if (Has(0)) {
      if (absl::Status s = RequireScalar(0, ir::DType::I64, "the trip count"); !s.ok()) return s;
    }
    if (Has(1)) {
      if (absl::Status s = RequireScalar(1, ir::DType::Bool, "the condition"); !s.ok()) return s;
    }
    out->first_state = 2;
    out->states = formal_ - 2;
    // The body runs only while the condition holds: its condition input is true.
    std::vector<InputType> inputs = {
        {ir::DType::I64, {}, nullptr},
        {ir::DType::Bool, {}, ir::MakeConstant(ir::DType::Bool, {}, {1})}};
    for (size_t k = 0; k < out->states; ++k) {
      if (!Has(2 + k)) return Invalid(absl::StrCat("loop-carried input ", k, " is missing"));
      auto t = TypeOf(2 + k);
      if (!t.ok()) return t.status();
      t->constant = nullptr;  // changes from iteration to iteration
      inputs.push_back(*std::move(t));
    }
    auto body = Prepare("body", inputs);
    if (!body.ok()) return body.status();
    const ir::Graph& g = *body->graph;
    if (g.outputs.size() < 1 + out->states ||
        node_.outputs.size() != g.outputs.size() - 1) {
      return Invalid(absl::StrCat("the body has ", g.outputs.size(), " outputs; a condition, ",
                                  out->states, " loop-carried values and one per scan output (",
                                  node_.outputs.size(), " node outputs) are needed"));
    }
    out->scan_outputs = g.outputs.size() - 1 - out->states;
    const ir::Value& cond_out = g.value(g.outputs[0]);
    if (cond_out.dtype != ir::DType::Bool || ir::ElementCount(cond_out.shape) != 1) {
      return Invalid("the body's condition output must be a single bool");
    }
    for (size_t k = 0; k < out->states; ++k) {
      const ir::Value& v = g.value(g.outputs[1 + k]);
      if (v.dtype != inputs[2 + k].dtype || v.shape != inputs[2 + k].shape) {
        return Unimplemented(absl::StrCat(
            "loop-carried value ", k, " enters as ", ir::DTypeName(inputs[2 + k].dtype),
            ShapeText(inputs[2 + k].shape), " and leaves the body as ", ir::DTypeName(v.dtype),
            ShapeText(v.shape), "; its type and shape must stay the same"));
      }
      out->output_dtypes.push_back(v.dtype);
      out->output_shapes.push_back(v.shape);
    }
    if (out->scan_outputs > 0) {
      auto t = LoopIterations(*body, *out);
      if (!t.ok()) return t.status();
      out->iterations = *t;
    }
    for (size_t j = 0; j < out->scan_outputs; ++j) {
      const ir::Value& v = g.value(g.outputs[1 + out->states + j]);
      std::vector<int64_t> shape = {out->iterations};
      shape.insert(shape.end(), v.shape.begin(), v.shape.end());
      out->output_dtypes.push_back(v.dtype);
      out->output_shapes.push_back(std::move(shape));
      out->scan_output_axes.push_back({0, false});
    }
    out->bodies.push_back(*std::move(body));
    return absl::OkStatus();
  }

  // The iterations a Loop with scan outputs runs: its trip count when that
  // and an always-true condition are known, else the length its (graph
  // output) scan outputs declare.
  absl::StatusOr<int64_t> LoopIterations(const PreparedSubgraph& body, const ControlFlow& cf) const {
    const ir::Value& cond_out = BodyOutput(body, 0);
    const ir::ConstantData* trip = Known(0);
    const ir::ConstantData* cond = Known(1);
    const bool always = cond_out.constant != nullptr && cond_out.constant->IntAt(0) != 0 &&
                        (!Has(1) || (cond != nullptr && cond->IntAt(0) != 0));
    if (always && trip != nullptr) {
      const int64_t count = trip->IntAt(0);
      if (trip->symbolic && pool_.Known(count)) return pool_.Max(count, 0);
      return std::max<int64_t>(count, 0);
    }
    // The count computed before the loop (loop_scan_count.h): a length the
    // run finds, read from the trip count tensor.
    if (always && trip == nullptr && node_.GetInt(kScanCountAttr, 0) != 0 && graph_.scope.empty()) {
      return pool_.Data(absl::StrCat(node_.name, ".iterations"), ir::kNoBound, node_.inputs[0],
                        graph_.scope);
    }
    int64_t declared = -1;
    for (size_t j = 0; j < cf.scan_outputs; ++j) {
      const ir::ValueId id = node_.outputs[cf.states + j];
      if (id == ir::kNoValue) continue;
      const ir::Value& v = graph_.value(id);
      const ir::Value& slice = BodyOutput(body, 1 + cf.states + j);
      if (!v.has_declared_shape || v.declared_shape.size() != slice.shape.size() + 1) continue;
      if (declared >= 0 && v.declared_shape[0] != declared) {
        return Invalid("its scan outputs declare different lengths");
      }
      declared = v.declared_shape[0];
    }
    if (declared < 0) {
      return Unimplemented(
          "the number of iterations (the length of the scan outputs) is known only at run "
          "time; Kiln needs a constant trip count with a condition that stays true, or the scan "
          "output's shape declared in the model");
    }
    return declared;
  }

  absl::Status Scan(ControlFlow* out) {
    out->kind = ControlFlow::Kind::kScan;
    const bool batched = node_.GetInt("kiln.batched_scan", 0) != 0;  // opset 8
    const int64_t m = node_.GetInt("num_scan_inputs", -1);
    out->first_state = batched ? 1 : 0;
    if (batched && Has(0)) {
      return Unimplemented("sequence_lens (opset-8 Scan) is not supported; leave it empty");
    }
    if (m < 1 || static_cast<size_t>(m) + out->first_state > formal_) {
      return Invalid(absl::StrCat("num_scan_inputs = ", m, " does not fit its ", formal_, " inputs"));
    }
    out->scan_inputs = static_cast<size_t>(m);
    out->states = formal_ - out->first_state - out->scan_inputs;
    const std::vector<int64_t> in_axes = node_.GetInts("scan_input_axes", {});
    const std::vector<int64_t> in_dirs =
        node_.GetInts(batched ? "directions" : "scan_input_directions", {});
    std::vector<InputType> inputs;
    for (size_t k = 0; k < out->states; ++k) {
      auto t = TypeOf(out->first_state + k);
      if (!t.ok()) return t.status();
      t->constant = nullptr;
      if (batched) {
        if (t->shape.empty() || t->shape[0] != 1) {
          return Unimplemented("opset-8 Scan is supported for batch size 1 only");
        }
        t->shape.erase(t->shape.begin());
      }
      inputs.push_back(*std::move(t));
    }
    for (size_t j = 0; j < out->scan_inputs; ++j) {
      const size_t k = out->first_state + out->states + j;
      auto t = TypeOf(k);
      if (!t.ok()) return t.status();
      const int64_t rank = static_cast<int64_t>(t->shape.size());
      int64_t axis = batched ? 1 : (j < in_axes.size() ? in_axes[j] : 0);
      if (axis < 0) axis += rank;
      if (axis < 0 || axis >= rank || (batched && t->shape[0] != 1)) {
        return Invalid(absl::StrCat("scan input ", j, " has no axis ", axis,
                                    batched ? " (or a batch other than 1)" : ""));
      }
      const int64_t length = t->shape[axis];
      if (j > 0 && length != out->iterations) {
        return Invalid(absl::StrCat("scan input ", j, " has ", pool_.ToString(length),
                                    " slices; an earlier one has ", pool_.ToString(out->iterations)));
      }
      out->iterations = length;
      out->scan_input_axes.push_back({axis, j < in_dirs.size() && in_dirs[j] != 0});
      t->shape.erase(t->shape.begin() + axis);
      if (batched) t->shape.erase(t->shape.begin());
      t->constant = nullptr;
      inputs.push_back(*std::move(t));
    }
    auto body = Prepare("body", inputs);
    if (!body.ok()) return body.status();
    const ir::Graph& g = *body->graph;
    if (g.outputs.size() < out->states || node_.outputs.size() != g.outputs.size()) {
      return Invalid(absl::StrCat("the body has ", g.outputs.size(), " outputs; the node has ",
                                  node_.outputs.size(), " and ", out->states, " states"));
    }
    out->scan_outputs = g.outputs.size() - out->states;
    for (size_t k = 0; k < out->states; ++k) {
      const ir::Value& v = g.value(g.outputs[k]);
      if (v.dtype != inputs[k].dtype || v.shape != inputs[k].shape) {
        return Unimplemented(absl::StrCat("state ", k, " changes type or shape in the body"));
      }
      const ir::Value& outer = graph_.value(node_.inputs[out->first_state + k]);
      out->output_dtypes.push_back(outer.dtype);
      out->output_shapes.push_back(outer.shape);
    }
    const std::vector<int64_t> out_axes = node_.GetInts("scan_output_axes", {});
    const std::vector<int64_t> out_dirs = node_.GetInts("scan_output_directions", {});
    for (size_t j = 0; j < out->scan_outputs; ++j) {
      const ir::Value& v = g.value(g.outputs[out->states + j]);
      std::vector<int64_t> shape = v.shape;
      const int64_t rank = static_cast<int64_t>(shape.size()) + 1;
      int64_t axis = j < out_axes.size() ? out_axes[j] : 0;
      if (axis < 0) axis += rank;
      if (axis < 0 || axis >= rank) return Invalid(absl::StrCat("scan output ", j, " has no axis ", axis));
      shape.insert(shape.begin() + axis, out->iterations);
      if (batched) {
        shape.insert(shape.begin(), 1);
        axis += 1;
      }
      out->scan_output_axes.push_back({axis, j < out_dirs.size() && out_dirs[j] != 0});
      out->output_dtypes.push_back(v.dtype);
      out->output_shapes.push_back(std::move(shape));
    }
    out->bodies.push_back(*std::move(body));
    return absl::OkStatus();
  }

  const ir::Graph& graph_;
  const ir::Node& node_;
  const std::vector<ir::ConstantPtr>* known_;
  ir::DimPool& pool_;
  size_t formal_ = 0;
  std::vector<InputType> capture_types_;
};

bool IsControlFlow(const ir::Node& node) {
  return (node.domain.empty() || node.domain == "ai.onnx") &&
         (node.op_type == "If" || node.op_type == "Loop" || node.op_type == "Scan");
}

}  // namespace

bool AnalyzeControlFlow(const ir::Graph& graph, const ir::Node& node,
                        const std::vector<ir::ConstantPtr>* known, ControlFlow* control,
                        absl::Status* status, ir::DimPool* pool) {
  if (!IsControlFlow(node)) return false;
  ControlFlow local;
  *status = Analysis(graph, node, known, pool ? *pool : graph.dims).Run(control ? control : &local);
  return true;
}

// An If whose branches differ in static dims: one int64 output per such
// dim, where the branch taken writes its length (kept to the end of the
// run, as the counts of NonZero and the like), and a data symbol for it.
void AddBranchLengths(ir::Graph& graph, ir::Node& node, ControlFlow& cf) {
  if (cf.lengths.empty()) return;
  if (node.GetInt(kIfLengthsAttr, 0) == 0) {
    for (size_t j = 0; j < cf.lengths.size(); ++j) {
      const ir::ValueId v = graph.AddValue("");
      node.outputs.push_back(v);
      for (size_t k = 0; k < graph.nodes.size(); ++k) {
        if (&graph.nodes[k] == &node) graph.value(v).producer = static_cast<ir::NodeId>(k);
      }
    }
    node.SetInt(kIfLengthsAttr, static_cast<int64_t>(cf.lengths.size()));
  }
  for (const ControlFlow::BranchLength& l : cf.lengths) {
    const ir::ValueId count = node.outputs[l.count_output];
    ir::Value& c = graph.value(count);
    c.dtype = ir::DType::I64;
    c.shape = {1};
    c.has_shape = true;
    c.live_to_end = true;
    const ir::ValueId out = node.outputs[l.output];
    const std::string name = out == ir::kNoValue ? absl::StrCat(node.name, ".output", l.output)
                                                 : graph.value(out).name;
    size_t in_output = 0;
    for (const ControlFlow::BranchLength& other : cf.lengths) in_output += other.output == l.output;
    const int64_t bound = cf.output_shapes[l.output][l.dim];
    cf.output_shapes[l.output][l.dim] = graph.dims.Data(
        absl::StrCat(graph.scope, name, in_output == 1 ? ".length" : absl::StrCat(".dim", l.dim)),
        bound, static_cast<int32_t>(count), graph.scope);
  }
}

bool InferControlFlowShapes(ir::Graph& graph, ir::Node& node,
                            const std::vector<ir::ConstantPtr>& known, absl::Status* status) {
  ControlFlow cf;
  if (!AnalyzeControlFlow(graph, node, &known, &cf, status)) return false;
  if (!status->ok()) return true;
  AddBranchLengths(graph, node, cf);
  for (size_t k = 0; k < node.outputs.size() && k < cf.output_shapes.size(); ++k) {
    if (node.outputs[k] == ir::kNoValue) continue;
    ir::Value& v = graph.value(node.outputs[k]);
    v.dtype = cf.output_dtypes[k];
    v.shape = cf.output_shapes[k];
    v.has_shape = true;
  }
  return true;
}

}  // namespace kiln::compiler
