#include "compiler/passes/sequence_resolution.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"

namespace kiln::compiler {
namespace {

using ir::Node;
using ir::ValueId;
// The tensors a sequence holds, in order; kNoValue for one whose contents
// are not known (SplitToSequence with run-time sizes: only its count is).
using Elements = std::vector<ValueId>;

bool IsDefault(const Node& n) { return n.domain.empty() || n.domain == "ai.onnx"; }

const std::set<std::string>& Builders() {
  static const auto* ops = new std::set<std::string>{
      "SequenceEmpty", "SequenceConstruct", "SequenceInsert", "SequenceErase", "SplitToSequence"};
  return *ops;
}

// Ops that may read a sequence, as their input 0.
const std::set<std::string>& Readers() {
  static const auto* ops = new std::set<std::string>{
      "SequenceInsert", "SequenceErase", "SequenceAt", "SequenceLength", "ConcatFromSequence"};
  return *ops;
}

// Every sequence is built by one of Builders(), read only by Readers(), and
// is no graph output; the graph holds at least one.
bool Resolvable(const ir::Graph& g) {
  std::set<ValueId> sequences;
  for (const Node& n : g.nodes) {
    if (IsDefault(n) && Builders().count(n.op_type) && !n.outputs.empty() &&
        n.outputs[0] != ir::kNoValue) {
      sequences.insert(n.outputs[0]);
    }
  }
  if (sequences.empty()) return false;
  for (ValueId v : sequences) {
    if (g.IsGraphOutput(v)) return false;
  }
  for (const Node& n : g.nodes) {
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      if (!sequences.count(n.inputs[k])) continue;
      if (!IsDefault(n) || !Readers().count(n.op_type) || k != 0) return false;
    }
  }
  return true;
}

class Resolver {
 public:
  explicit Resolver(ir::Graph& g) : g_(g) {}

  // Appends n's replacement to `out`; false when n is no sequence op.
  bool Rewrite(const Node& n, std::vector<Node>* out) {
    if (!IsDefault(n) || (!Builders().count(n.op_type) && !Readers().count(n.op_type))) {
      return false;
    }
    if (!status_.ok()) return true;
    out_ = out;
    node_ = &n;
    const std::string& op = n.op_type;
    if (op == "SequenceEmpty") {
      Set({});
    } else if (op == "SequenceConstruct") {
      Set(n.inputs);
    } else if (op == "SequenceInsert") {
      Insert();
    } else if (op == "SequenceErase") {
      Erase();
    } else if (op == "SequenceAt") {
      At();
    } else if (op == "SequenceLength") {
      Length();
    } else if (op == "ConcatFromSequence") {
      Concat();
    } else {
      Split();
    }
    return true;
  }

  const absl::Status& status() const { return status_; }

 private:
  void Fail(const std::string& what) {
    if (status_.ok()) {
      status_ = absl::InvalidArgumentError(
          absl::StrCat(g_.source, ": node ", node_->Describe(), ": ", what));
    }
  }
  void Set(Elements e) { lists_[node_->outputs[0]] = std::move(e); }
  const Elements* List() {
    auto it = lists_.find(node_->inputs.empty() ? ir::kNoValue : node_->inputs[0]);
    if (it == lists_.end()) Fail("reads a sequence that is not built before it");
    return it == lists_.end() ? nullptr : &it->second;
  }
  // Input k as one constant integer; `fallback` when absent.
  std::optional<int64_t> Position(size_t k, std::optional<int64_t> fallback) {
    if (k >= node_->inputs.size() || node_->inputs[k] == ir::kNoValue) return fallback;
    const ir::ConstantPtr& c = g_.value(node_->inputs[k]).constant;
    if (c == nullptr || c->symbolic || c->element_count() != 1) {
      Fail(absl::StrCat("the position '", g_.value(node_->inputs[k]).name,
                        "' must be known at compile time"));
      return std::nullopt;
    }
    return c->IntAt(0);
  }
  // pos in [-n, n_max] made non-negative.
  std::optional<size_t> Index(std::optional<int64_t> pos, int64_t n, int64_t n_max) {
    if (!pos) return std::nullopt;
    if (*pos < -n || *pos > n_max) {
      Fail(absl::StrCat("position ", *pos, " is outside [", -n, ", ", n_max, "]"));
      return std::nullopt;
    }
    return static_cast<size_t>(*pos < 0 ? *pos + n : *pos);
  }
  ValueId Known(const Elements& e, size_t k) {
    if (e[k] == ir::kNoValue) Fail("reads an element whose contents are only known at run time");
    return e[k];
  }
  ValueId Constant(const std::string& name, std::vector<int64_t> shape,
                   const std::vector<int64_t>& values) {
    return g_.AddConstant(absl::StrCat(node_->name, ".", name),
                          ir::MakeI64Constant(std::move(shape), values));
  }
  void Emit(const std::string& op, std::vector<ValueId> inputs, ValueId output) {
    Node n;
    n.name = absl::StrCat(node_->name, "/", op, out_->size());
    n.op_type = op;
    n.inputs = std::move(inputs);
    n.outputs = {output};
    out_->push_back(std::move(n));
  }
  static ir::Attribute Int(int64_t v) {
    ir::Attribute a;
    a.kind = ir::Attribute::Kind::kInt;
    a.i = v;
    return a;
  }

  void Insert() {
    const Elements* list = List();
    if (list == nullptr || node_->inputs.size() < 2) return Fail("needs a sequence and a tensor");
    const int64_t n = static_cast<int64_t>(list->size());
    const std::optional<size_t> at = Index(Position(2, n), n, n);
    if (!at) return;
    Elements e = *list;
    e.insert(e.begin() + static_cast<std::ptrdiff_t>(*at), node_->inputs[1]);
    Set(std::move(e));
  }
  void Erase() {
    const Elements* list = List();
    if (list == nullptr) return;
    const int64_t n = static_cast<int64_t>(list->size());
    if (n == 0) return Fail("erases from an empty sequence");
    const std::optional<size_t> at = Index(Position(1, -1), n, n - 1);
    if (!at) return;
    Elements e = *list;
    e.erase(e.begin() + static_cast<std::ptrdiff_t>(*at));
    Set(std::move(e));
  }
  void At() {
    const Elements* list = List();
    if (list == nullptr) return;
    const int64_t n = static_cast<int64_t>(list->size());
    const std::optional<size_t> at = Index(Position(1, std::nullopt), n, n - 1);
    if (!at) return;
    const ValueId element = Known(*list, *at);
    if (element != ir::kNoValue) Emit("Identity", {element}, node_->outputs[0]);
  }
  void Length() {
    const Elements* list = List();
    if (list == nullptr) return;
    Emit("Identity", {Constant("length", {}, {static_cast<int64_t>(list->size())})},
         node_->outputs[0]);
  }
  void Concat() {
    const Elements* list = List();
    if (list == nullptr) return;
    if (list->empty()) return Fail("concatenates an empty sequence");
    const int64_t axis = node_->GetInt("axis", 0);
    const bool new_axis = node_->GetInt("new_axis", 0) != 0;
    Node cat;
    for (size_t k = 0; k < list->size(); ++k) {
      const ValueId element = Known(*list, k);
      if (element == ir::kNoValue) return;
      if (!new_axis) {
        cat.inputs.push_back(element);
        continue;
      }
      // Each element gains the axis (negative: counted in the result's rank).
      const ValueId grown = g_.AddValue(absl::StrCat(g_.value(node_->outputs[0]).name, ".", k));
      if (g_.opset >= 13) {
        Emit("Unsqueeze", {element, Constant(absl::StrCat("axes", k), {1}, {axis})}, grown);
      } else {
        Emit("Unsqueeze", {element}, grown);
        ir::Attribute axes;
        axes.kind = ir::Attribute::Kind::kInts;
        axes.ints = {axis};
        out_->back().attributes["axes"] = axes;
      }
      cat.inputs.push_back(grown);
    }
    Emit("Concat", cat.inputs, node_->outputs[0]);
    out_->back().attributes["axis"] = Int(axis);
  }
  void Split() {
    const Node& n = *node_;
    const bool has_split = n.inputs.size() > 1 && n.inputs[1] != ir::kNoValue;
    if (has_split) {
      const ir::Value& split = g_.value(n.inputs[1]);
      if (split.constant == nullptr || split.constant->symbolic) {
        // Run-time sizes: only the count is known (one per entry).
        if (!split.has_shape || split.shape.size() != 1 || split.shape[0] < 0) {
          return Fail("a run-time split must be a 1-D tensor of static length");
        }
        Set(Elements(static_cast<size_t>(split.shape[0]), ir::kNoValue));
        return;
      }
    }
    const ir::Value& x = g_.value(n.inputs.empty() ? ir::kNoValue : n.inputs[0]);
    bool static_shape = x.has_shape;
    for (int64_t d : x.shape) static_shape = static_shape && d >= 0;
    if (!static_shape) return Fail("SplitToSequence needs its input's static shape");
    const int64_t r = static_cast<int64_t>(x.shape.size());
    int64_t axis = n.GetInt("axis", 0);
    if (axis < -r || axis >= r) return Fail(absl::StrCat("axis ", axis, " is out of range"));
    if (axis < 0) axis += r;
    const int64_t dim = x.shape[static_cast<size_t>(axis)];
    std::vector<int64_t> sizes;
    bool keep = true;
    if (!has_split) {
      sizes.assign(static_cast<size_t>(dim), 1);
      keep = n.GetInt("keepdims", 1) != 0;
    } else {
      const ir::ConstantData& c = *g_.value(n.inputs[1]).constant;
      if (c.shape.empty()) {
        const int64_t chunk = c.IntAt(0);
        if (chunk <= 0) return Fail(absl::StrCat("split ", chunk, " is not positive"));
        for (int64_t o = 0; o < dim; o += chunk) sizes.push_back(std::min(chunk, dim - o));
      } else {
        int64_t total = 0;
        for (int64_t k = 0; k < c.element_count(); ++k) {
          sizes.push_back(c.IntAt(k));
          if (sizes.back() < 0) return Fail("a split size is negative");
          total += sizes.back();
        }
        if (total != dim) {
          return Fail(absl::StrCat("split sizes add up to ", total, ", not the axis length ", dim));
        }
      }
    }
    std::vector<int64_t> squeezed = x.shape;
    squeezed.erase(squeezed.begin() + axis);
    Elements pieces;
    int64_t offset = 0;
    const ValueId axes = Constant("axis", {1}, {axis});
    for (size_t k = 0; k < sizes.size(); ++k) {
      const std::string base = absl::StrCat(g_.value(n.outputs[0]).name, ".", k);
      const ValueId piece = g_.AddValue(base);
      Emit("Slice",
           {n.inputs[0], Constant(absl::StrCat("start", k), {1}, {offset}),
            Constant(absl::StrCat("end", k), {1}, {offset + sizes[k]}), axes},
           piece);
      offset += sizes[k];
      if (keep) {
        pieces.push_back(piece);
        continue;
      }
      const ValueId flat = g_.AddValue(base + ".squeezed");
      Emit("Reshape", {piece, Constant(absl::StrCat("shape", k), {r - 1}, squeezed)}, flat);
      pieces.push_back(flat);
    }
    Set(std::move(pieces));
  }

  ir::Graph& g_;
  std::map<ValueId, Elements> lists_;
  absl::Status status_;
  std::vector<Node>* out_ = nullptr;
  const Node* node_ = nullptr;
};

}  // namespace

absl::Status ResolveSequences(ir::Graph& graph) {
  if (!Resolvable(graph)) return absl::OkStatus();
  Resolver resolver(graph);
  ir::RewriteNodes(graph, [&](ir::Graph&, const Node& n, std::vector<Node>* out) {
    return resolver.Rewrite(n, out);
  });
  return resolver.status();
}

}  // namespace kiln::compiler
