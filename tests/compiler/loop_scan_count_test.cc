// A Loop with a run-time trip count and condition and scan outputs without a
// declared shape (passes/loop_scan_count.h): the count `cond ? max(trip, 0)
// : 0` is computed before the loop into its trip count, the condition is
// dropped, and the scan output's length is a length found during the run,
// without a bound, read from that count. A declared scan length leaves the
// loop as it is. (Values: tests/models/opset/unbounded/loop17_runtime_trip_scan,
// e2e against ONNX Runtime, 5 and 0 iterations.)
#include <string>

#include "compiler/compiler.h"
#include "compiler/frontend/onnx_importer.h"
#include "compiler/passes/loop_scan_count.h"
#include "gtest/gtest.h"

namespace kiln::compiler {
namespace {

const std::string kModel =
    std::string(KILN_SOURCE_DIR) + "/tests/models/opset/unbounded/loop17_runtime_trip_scan.onnx";

const ir::Node* FindLoop(const ir::Graph& g) {
  for (const ir::Node& n : g.nodes) {
    if (!n.removed && n.op_type == "Loop") return &n;
  }
  return nullptr;
}

TEST(LoopScanCount, ARunTimeTripCountBecomesTheScanLength) {
  auto g = ImportOnnx(kModel);
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_TRUE(RunGraphPasses(*g).ok()) << RunGraphPasses(*g);
  const ir::Node* loop = FindLoop(*g);
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->GetInt(kScanCountAttr, 0), 1);
  EXPECT_EQ(loop->inputs[1], ir::kNoValue);  // the condition is in the count
  // Outputs: the carried value, then the scan output [count, 3].
  const ir::Value& rows = g->value(loop->outputs[1]);
  ASSERT_EQ(rows.shape.size(), 2u);
  EXPECT_EQ(rows.shape[1], 3);
  const int32_t k = g->dims.BareData(rows.shape[0]);
  ASSERT_GE(k, 0);
  const ir::DimPool::DataSymbol& count = g->dims.data_symbols()[static_cast<size_t>(k)];
  EXPECT_EQ(count.bound, ir::kNoBound);
  EXPECT_EQ(count.count_value, loop->inputs[0]);
  EXPECT_EQ(g->value(loop->inputs[0]).dtype, ir::DType::I64);
}

TEST(LoopScanCount, ADeclaredScanLengthLeavesTheLoopAsItIs) {
  auto g = ImportOnnx(kModel);
  ASSERT_TRUE(g.ok()) << g.status();
  ir::Value& rows = g->value(g->FindValue("rows"));
  rows.declared_shape = {5, 3};
  rows.has_declared_shape = true;
  ASSERT_TRUE(RunGraphPasses(*g).ok()) << RunGraphPasses(*g);
  const ir::Node* loop = FindLoop(*g);
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->GetInt(kScanCountAttr, 0), 0);
  EXPECT_NE(loop->inputs[1], ir::kNoValue);
  EXPECT_EQ(g->value(loop->outputs[1]).shape, (std::vector<int64_t>{5, 3}));
}

}  // namespace
}  // namespace kiln::compiler
