// Test helper: builds small IR graphs directly (shapes and constants set by
// hand), for the back-end pass tests.
#ifndef KILN_TESTS_COMPILER_BACKEND_GRAPH_BUILDER_H_
#define KILN_TESTS_COMPILER_BACKEND_GRAPH_BUILDER_H_

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"
#include "gtest/gtest.h"

namespace kiln::testing {

class GraphBuilder {
 public:
  ir::Graph g;

  GraphBuilder() { g.opset = 13; g.source = "test.onnx"; }

  ir::ValueId Input(const std::string& name, std::vector<int64_t> shape,
                    ir::DType dtype = ir::DType::F32) {
    const ir::ValueId v = Tensor(name, std::move(shape), dtype);
    g.inputs.push_back(v);
    return v;
  }

  // A value to be produced by a node.
  ir::ValueId Tensor(const std::string& name, std::vector<int64_t> shape,
                     ir::DType dtype = ir::DType::F32) {
    const ir::ValueId v = g.AddValue(name);
    g.value(v).dtype = dtype;
    g.value(v).shape = std::move(shape);
    g.value(v).has_shape = true;
    return v;
  }

  ir::ValueId Const(const std::string& name, std::vector<int64_t> shape,
                    const std::vector<float>& data) {
    auto c = std::make_shared<ir::ConstantData>();
    c->dtype = ir::DType::F32;
    c->shape = std::move(shape);
    c->bytes.resize(data.size() * sizeof(float));
    if (!data.empty()) std::memcpy(c->bytes.data(), data.data(), c->bytes.size());
    return g.AddConstant(name, c);
  }

  // A constant filled with uniform values in [lo, hi) from a fixed seed.
  ir::ValueId RandomConst(const std::string& name, std::vector<int64_t> shape, float lo,
                          float hi, unsigned seed) {
    return Const(name, shape, Random(ir::ElementCount(shape), lo, hi, seed));
  }

  ir::NodeId Node(const std::string& op, const std::string& name,
                  std::vector<ir::ValueId> inputs, std::vector<ir::ValueId> outputs) {
    ir::Node n;
    n.op_type = op;
    n.name = name;
    n.inputs = std::move(inputs);
    n.outputs = std::move(outputs);
    return g.AddNode(std::move(n));
  }

  void Ints(ir::NodeId n, const std::string& key, std::vector<int64_t> v) {
    ir::Attribute a;
    a.kind = ir::Attribute::Kind::kInts;
    a.ints = std::move(v);
    g.nodes[n].attributes[key] = a;
  }

  void Output(ir::ValueId v) { g.outputs.push_back(v); }

  static std::vector<float> Random(int64_t n, float lo, float hi, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> out(static_cast<size_t>(n));
    for (float& x : out) x = dist(rng);
    return out;
  }
};

// A pass's refusal of a GraphBuilder graph: an error containing `what` that
// names the file and the node.
inline void ExpectNodeError(const absl::Status& s, const std::string& what) {
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find(what), std::string::npos) << s;
  EXPECT_NE(s.message().find("test.onnx: node '"), std::string::npos) << s;
}

}  // namespace kiln::testing

#endif  // KILN_TESTS_COMPILER_BACKEND_GRAPH_BUILDER_H_
