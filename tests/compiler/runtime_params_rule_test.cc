// Operator parameters known only at run time (passes/
// shape_rules_runtime_params.h): Slice/Pad/ReduceSum/Range outputs come from
// the model's static declaration when it fits the data input; without one,
// Slice's and Reduce*'s dims are reported by the kernel after its run (Pad's
// and Range's error stands); and a declaration that cannot come from any
// parameter values is refused naming the node.
#include <string>
#include <tuple>
#include <vector>

#include "compiler/passes/shape_inference.h"
#include "compiler/passes/shape_rules_runtime_params.h"
#include "gtest/gtest.h"
#include "tests/compiler/backend_graph_builder.h"

namespace kiln::compiler {
namespace {

using Dims = std::vector<int64_t>;

// x [4,6,5] float (or the scalars of Range) and run-time int64 parameter
// inputs of `len` values feeding `op`, whose output declares `declared`
// ({-1}: no static declaration).
struct Model {
  testing::GraphBuilder b;
  ir::NodeId node = 0;
  ir::ValueId out = 0;

  Model(const std::string& op, int64_t len, const Dims& declared) {
    std::vector<ir::ValueId> ins;
    if (op == "Range") {
      for (const char* n : {"start", "limit", "delta"}) ins.push_back(b.Input(n, {}));
    } else {
      ins.push_back(b.Input("x", {4, 6, 5}));
      const int params = op == "Slice" ? 4 : 1;
      for (int k = 0; k < params; ++k) {
        ins.push_back(b.Input("p" + std::to_string(k), {op == "Pad" ? 2 * len : len},
                              ir::DType::I64));
      }
    }
    out = b.g.AddValue("y");
    if (declared != Dims{-1}) {
      b.g.value(out).declared_shape = declared;
      b.g.value(out).has_declared_shape = true;
    }
    b.Output(out);
    node = b.Node(op, "n_" + op, ins, {out});
  }
};

TEST(RuntimeParams, OutputsTakeTheDeclaredShape) {
  for (const auto& [op, len, y] : std::vector<std::tuple<std::string, int64_t, Dims>>{
           {"Slice", 2, {2, 6, 1}}, {"Pad", 3, {5, 9, 5}}, {"ReduceSum", 1, {4, 1, 5}},
           {"Range", 0, {7}}}) {
    Model m(op, len, y);
    const absl::Status s = InferShapes(m.b.g);
    ASSERT_TRUE(s.ok()) << op << ": " << s;
    EXPECT_EQ(m.b.g.value(m.out).shape, y) << op;
    EXPECT_TRUE(HasRuntimeParams(m.b.g, m.b.g.nodes[m.node])) << op;
  }
}

// Without a declaration, Pad's dims (rank 3) and Range's length are
// reported without a bound; pads that do not fit the rank are refused.
TEST(RuntimeParams, WithoutADeclarationPadAndRangeReportUnboundedDims) {
  for (const auto& [op, rank] : std::vector<std::pair<std::string, size_t>>{{"Pad", 3},
                                                                             {"Range", 1}}) {
    Model m(op, 3, {-1});
    const absl::Status s = InferShapes(m.b.g);
    ASSERT_TRUE(s.ok()) << op << ": " << s;
    const Dims& y = m.b.g.value(m.out).shape;
    ASSERT_EQ(y.size(), rank) << op;
    for (int64_t d : y) {
      const int32_t k = m.b.g.dims.BareData(d);
      ASSERT_GE(k, 0) << op;
      EXPECT_EQ(m.b.g.dims.data_symbols()[static_cast<size_t>(k)].bound, ir::kNoBound) << op;
    }
  }
  Model bad("Pad", 1, {-1});
  const absl::Status s = InferShapes(bad.b.g);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("pads has 2 entries for 3 axes"), std::string::npos) << s;
}

// Without a declaration, Slice's and Reduce*'s dims are data symbols the
// kernel reports (one element each of an int64 output appended to the
// node), bounded by what any parameter values can give.
TEST(RuntimeParams, WithoutADeclarationEachDimIsReportedAfterTheRun) {
  for (const auto& [op, keepdims, bounds] : std::vector<std::tuple<std::string, int64_t, Dims>>{
           {"Slice", 1, {4, 6, 5}},        // never more than the input
           {"ReduceSum", 1, {4, 6, 5}},    // each dim kept or 1
           {"ReduceSum", 0, {6, 6}}}) {    // 2 kept dims, each at most the largest
    Model m(op, 1, {-1});
    if (keepdims == 0) m.b.g.nodes[m.node].SetInt("keepdims", 0);
    const absl::Status s = InferShapes(m.b.g);
    ASSERT_TRUE(s.ok()) << op << ": " << s;
    const ir::Node& n = m.b.g.nodes[m.node];
    ASSERT_EQ(n.outputs.size(), 2u) << op;
    EXPECT_EQ(n.GetInt("kiln.result_dims", 0), 1) << op;
    EXPECT_EQ(m.b.g.value(n.outputs[1]).shape, Dims{static_cast<int64_t>(bounds.size())});
    const Dims& y = m.b.g.value(m.out).shape;
    ASSERT_EQ(y.size(), bounds.size()) << op;
    const auto& data = m.b.g.dims.data_symbols();
    for (size_t d = 0; d < y.size(); ++d) {
      const int32_t k = m.b.g.dims.BareData(y[d]);
      ASSERT_GE(k, 0) << op << " dim " << d;
      EXPECT_EQ(data[static_cast<size_t>(k)].bound, bounds[d]) << op << " dim " << d;
      EXPECT_EQ(data[static_cast<size_t>(k)].count_value, static_cast<int32_t>(n.outputs[1]));
      EXPECT_EQ(data[static_cast<size_t>(k)].count_element, static_cast<int32_t>(d));
    }
  }
}

TEST(RuntimeParams, DeclarationsThatCannotFitAreRefusedNamingTheNode) {
  const std::vector<std::tuple<std::string, int64_t, Dims>> cases = {
      {"Slice", 2, {5, 6, 5}},      // a slice never grows
      {"Slice", 2, {4, 6}},         // nor changes the rank
      {"Slice", 4, {4, 6, 5}},      // 4 starts for rank 3
      {"Pad", 3, {5, 9}},           // rank 2 from rank 3
      {"Pad", 4, {5, 9, 5}},        // 4 axes of pads for rank 3
      {"ReduceSum", 1, {4, 2, 5}},  // 2 is neither 6 nor 1
      {"ReduceSum", 1, {5}},        // keepdims (the default) keeps the rank
      {"Range", 0, {2, 3}},         // not 1-D
  };
  for (const auto& [op, len, y] : cases) {
    Model m(op, len, y);
    const absl::Status s = InferShapes(m.b.g);
    EXPECT_FALSE(s.ok()) << op << " " << ::testing::PrintToString(y);
    EXPECT_NE(s.message().find("n_" + op), std::string::npos) << s;
  }
}

}  // namespace
}  // namespace kiln::compiler
