// BatchNormalization in training mode (passes/norm_expand.h): the running
// statistics come out shaped [C] and the node is rewritten into reductions and
// elementwise ops; the forms Kiln does not take are refused naming the node.
// Numerics: tests/models/math_batchnorm_training (torch/NumPy reference) and
// the ONNX node tests test_batchnorm_*_training_mode.
#include <string>
#include <vector>

#include "compiler/passes/norm_expand.h"
#include "compiler/passes/shape_inference.h"
#include "gtest/gtest.h"
#include "tests/compiler/backend_graph_builder.h"

namespace kiln::compiler {
namespace {

using testing::ExpectNodeError;
using Dims = std::vector<int64_t>;

// BatchNormalization of x [2,3,4] with run-time parameters and `outputs`
// output slots, the first `present` of them named.
struct TrainingModel {
  testing::GraphBuilder b;
  ir::NodeId node = 0;
  std::vector<ir::ValueId> outs;

  TrainingModel(size_t outputs, size_t present, bool training_mode,
                ir::DType dtype = ir::DType::F32) {
    std::vector<ir::ValueId> ins = {b.Input("x", {2, 3, 4}, dtype)};
    for (const char* p : {"scale", "bias", "mean", "var"}) ins.push_back(b.Input(p, {3}, dtype));
    for (size_t k = 0; k < outputs; ++k) {
      outs.push_back(k < present ? b.g.AddValue("out" + std::to_string(k)) : ir::kNoValue);
      if (outs.back() != ir::kNoValue) b.Output(outs.back());
    }
    node = b.Node("BatchNormalization", "bn", ins, outs);
    if (training_mode) b.g.nodes[node].SetInt("training_mode", 1);
  }
};

TEST(BatchNormTraining, RunningStatisticsAreShapedPerChannel) {
  TrainingModel m(3, 3, true);
  ASSERT_TRUE(InferShapes(m.b.g).ok());
  EXPECT_EQ(m.b.g.value(m.outs[0]).shape, (Dims{2, 3, 4}));
  EXPECT_EQ(m.b.g.value(m.outs[1]).shape, Dims{3});
  EXPECT_EQ(m.b.g.value(m.outs[2]).shape, Dims{3});
  ASSERT_TRUE(ExpandNorms(m.b.g).ok());
  for (const ir::Node& n : m.b.g.nodes) {
    if (!n.removed) {
      EXPECT_NE(n.op_type, "BatchNormalization") << n.name;
    }
  }
}

TEST(BatchNormTraining, TrainsWhenAskedByAttributeOrByOutputs) {
  EXPECT_TRUE(BatchNormTrains(TrainingModel(1, 1, true).b.g.nodes[0]));
  EXPECT_TRUE(BatchNormTrains(TrainingModel(3, 2, false).b.g.nodes[0]));  // opset < 14 form
  EXPECT_FALSE(BatchNormTrains(TrainingModel(3, 1, false).b.g.nodes[0]));
  EXPECT_FALSE(BatchNormTrains(TrainingModel(1, 1, false).b.g.nodes[0]));
}

TEST(BatchNormTraining, RefusesSavedStatisticsAndOtherTypes) {
  TrainingModel saved(5, 4, false);  // opset 9-13: saved_mean requested
  ExpectNodeError(InferShapes(saved.b.g), "saved mean/variance outputs (opset < 14)");
  TrainingModel f64(3, 3, true, ir::DType::F64);
  ExpectNodeError(InferShapes(f64.b.g), "training mode takes float32 only, not float64");
}

}  // namespace
}  // namespace kiln::compiler
