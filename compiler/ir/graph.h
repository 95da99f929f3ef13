// The compiler's graph IR: SSA values (tensors with dtype and static shape,
// optionally known at compile time) produced and consumed by nodes that keep
// their ONNX op type, name and attributes. Passes rewrite it in place.
#ifndef KILN_COMPILER_IR_GRAPH_H_
#define KILN_COMPILER_IR_GRAPH_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "compiler/ir/dim_expr.h"
#include "compiler/ir/dtype.h"

namespace kiln::ir {

// bfloat16 is a float32's high half: widening is exact; narrowing rounds to
// nearest even (as ONNX's reference and ONNX Runtime do), NaN stays NaN.
float BFloat16ToFloat(uint16_t b);
uint16_t FloatToBFloat16(float f);

// Product of dims; returns -1 if any dim is negative or the product overflows.
int64_t ElementCount(const std::vector<int64_t>& shape);

// A float as int64, truncated; NaN gives 0 and values past the ends saturate
// (a bare cast would be undefined for them).
int64_t SaturateToInt64(double v);

// An immutable tensor payload: initializers, Constant nodes, folded results.
struct ConstantData {
  DType dtype = DType::Unknown;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;  // ElementCount(shape) * DTypeSize(dtype) bytes
  // An int64 shape value computed from symbolic dims (Shape of a tensor with
  // a symbolic shape, and what folding derives from it): its elements are
  // dims as ir/dim_expr.h encodes them. Only code that opts in reads it.
  bool symbolic = false;

  template <typename T>
  const T* data() const { return reinterpret_cast<const T*>(bytes.data()); }
  int64_t element_count() const { return ElementCount(shape); }
  // Element k converted to int64 / float (for I64, I32, F32, F64, Bool, ...).
  int64_t IntAt(int64_t k) const;
  double FloatAt(int64_t k) const;
};
using ConstantPtr = std::shared_ptr<const ConstantData>;

class Graph;

struct Attribute {
  // kGraph: a subgraph (If branches, Loop and Scan bodies) in `graph`, or
  // null for attribute kinds Kiln keeps only as a marker.
  enum class Kind { kInt, kFloat, kString, kInts, kFloats, kStrings, kTensor, kGraph };
  Kind kind = Kind::kInt;
  int64_t i = 0;
  float f = 0.0f;
  std::string s;
  std::vector<int64_t> ints;
  std::vector<float> floats;
  std::vector<std::string> strings;
  ConstantPtr tensor;
  // Its inputs are the ONNX graph's inputs, then the values it reads from
  // enclosing graphs (captures) in the order of the node's extra inputs.
  std::shared_ptr<const Graph> graph;
};

// A control-flow node (If, Loop, Scan) reads the values its subgraphs
// capture as extra inputs after its ONNX ones; this attribute counts them.
constexpr const char kCaptureCountAttr[] = "kiln.captures";

using ValueId = int32_t;
using NodeId = int32_t;
constexpr ValueId kNoValue = -1;
constexpr NodeId kNoNode = -1;

struct Value {
  std::string name;
  DType dtype = DType::Unknown;
  std::vector<int64_t> shape;
  bool has_shape = false;
  ConstantPtr constant;       // non-null: the value is known at compile time
  NodeId producer = kNoNode;  // kNoNode for graph inputs and constants
  // A graph output's static shape as the model declares it (empty when the
  // model leaves it open): pins sizes that come from run-time inputs.
  std::vector<int64_t> declared_shape;
  bool has_declared_shape = false;
  // Kept alive (not overwritten) until the run ends, for the VM and AOT
  // code to read afterwards.
  bool live_to_end = false;
  // Bytes the value can take when its dims are reported during the run
  // and that is fewer than their bounds give (a Reshape to run-time dims
  // keeps its element count); -1 when the bounds are the size.
  int64_t capacity_bytes = -1;
  // A rank-4 float tensor stored N,H,W,C while `shape` stays N,C,H,W
  // (passes/layout_selection). Only kernels that take NHWC touch it.
  bool channels_last = false;
};

// Attribute keys that compiler passes add to nodes use this prefix, so they
// never clash with ONNX attribute names:
//   "kiln.activation" (int, kiln_activation from kiln/kernels.h),
//   "kiln.act_alpha", "kiln.act_beta" (float) — set by dispatch formation.
constexpr const char kKilnAttrPrefix[] = "kiln.";

struct FusedSource {
  std::string name;
  std::string op_type;
};

struct Node {
  std::string name;
  std::string op_type;
  std::string domain;              // "" for the default ONNX domain
  std::vector<ValueId> inputs;     // kNoValue for an omitted optional input
  std::vector<ValueId> outputs;    // kNoValue for an omitted optional output
  std::map<std::string, Attribute> attributes;
  std::vector<FusedSource> fused;  // nodes merged into this one (debug info)
  bool removed = false;

  bool HasAttr(const std::string& key) const { return attributes.count(key) != 0; }
  int64_t GetInt(const std::string& key, int64_t fallback) const;
  float GetFloat(const std::string& key, float fallback) const;
  std::string GetString(const std::string& key, const std::string& fallback) const;
  std::vector<int64_t> GetInts(const std::string& key,
                               const std::vector<int64_t>& fallback) const;
  void SetInt(const std::string& key, int64_t v);
  void SetFloat(const std::string& key, float v);
  void SetInts(const std::string& key, std::vector<int64_t> v);
  // "name (op_type)" for error messages.
  std::string Describe() const;
};

class Graph {
 public:
  std::vector<Value> values;
  std::vector<Node> nodes;      // kept in topological order by every pass
  std::vector<ValueId> inputs;  // graph inputs, signature order (no initializers)
  std::vector<ValueId> outputs; // graph outputs, signature order
  int64_t opset = 0;            // default-domain opset version
  std::string source;           // the file it was imported from
  // Where a subgraph is compiled ("Loop_0.body/", nested ones appended);
  // empty for the entry graph. Prefixes the names of the run-time lengths
  // it computes, which thus differ from those of other graphs.
  std::string scope;
  // Inputs bound to one value at compile time (kiln compile --input-value):
  // constants of the graph now, no longer among `inputs`; the module
  // records them so that a run naming one can be held to the value.
  std::vector<std::pair<std::string, ConstantPtr>> bound_inputs;
  // Symbolic dimensions (empty: every shape is static). Mutable because
  // interning an expression, even from a const pass, changes no meaning.
  mutable DimPool dims;

  // Adds a value; its name must be unique (an empty name gets a fresh one).
  ValueId AddValue(const std::string& name);
  ValueId AddConstant(const std::string& name, ConstantPtr data);
  ValueId FindValue(const std::string& name) const;  // kNoValue if absent
  // Gives value `id` a new name, which must be unused.
  void RenameValue(ValueId id, const std::string& name);
  NodeId AddNode(Node node);                          // appends; sets producers
  Value& value(ValueId id) { return values[id]; }
  const Value& value(ValueId id) const { return values[id]; }

  // Nodes (not removed) that read `id`, in node order.
  std::vector<NodeId> Users(ValueId id) const;
  bool IsGraphOutput(ValueId id) const;
  // Redirects every read of `from` (nodes and graph outputs) to `to`.
  void ReplaceAllUses(ValueId from, ValueId to);
  // Drops removed nodes and nodes whose outputs are all unused; renumbers
  // node ids (producers are updated). Values are never renumbered.
  void Compact();
  // Human-readable listing (kiln compile --print-ir).
  std::string ToString() const;

 private:
  std::unordered_map<std::string, ValueId> by_name_;
};

}  // namespace kiln::ir

#endif  // KILN_COMPILER_IR_GRAPH_H_
