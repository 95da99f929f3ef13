// The ai.onnx.preview.training optimizers, MaxUnpool and RoiAlign through
// the whole compiler (models from make_models_train_unpool_roi.py): the
// models that compile get one kernel dispatch per optimized tensor (and a
// shape_check for a run-time output_shape); every refusal names the file,
// the node or domain and the reason.
#include <map>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "compiler/frontend/onnx_importer.h"
#include "gtest/gtest.h"
#include "kiln/module_generated.h"

namespace kiln::compiler {
namespace {

std::string Model(const std::string& name) {
  return std::string(KILN_SOURCE_DIR) + "/tests/compiler/models/" + name;
}

// Kernel symbol -> number of executables using it.
std::map<std::string, int> Kernels(const std::string& name) {
  auto bytes = BuildModule(Model(name), BuildOptions{});
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  std::map<std::string, int> out;
  if (!bytes.ok()) return out;
  const fb::Module* m = fb::GetModule(bytes->data());
  for (const fb::Executable* e : *m->executables()) ++out[e->kernel()->str()];
  return out;
}

void ExpectBuildError(const std::string& name, absl::StatusCode code,
                      const std::vector<std::string>& fragments) {
  auto bytes = BuildModule(Model(name), BuildOptions{});
  ASSERT_FALSE(bytes.ok()) << name;
  EXPECT_EQ(bytes.status().code(), code) << bytes.status();
  const std::string msg(bytes.status().message());
  EXPECT_NE(msg.find(name), std::string::npos) << msg;
  for (const auto& f : fragments) EXPECT_NE(msg.find(f), std::string::npos) << f << " in: " << msg;
}

TEST(TrainingOps, AModelOfOptimizersAloneImportsAndCompiles) {
  auto g = ImportOnnx(Model("training_adam2.onnx"));
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(g->nodes.size(), 1u);
  EXPECT_EQ(g->nodes[0].domain, "ai.onnx.preview.training");
  // One dispatch per optimized tensor.
  EXPECT_EQ(Kernels("training_adam2.onnx")["kiln_adam_f32"], 2);
  EXPECT_EQ(Kernels("training_nesterov.onnx")["kiln_momentum_f32"], 1);
}

TEST(TrainingOps, DomainImportsAreChecked) {
  ExpectBuildError("training_version2.onnx", absl::StatusCode::kUnimplemented,
                   {"ai.onnx.preview.training version 2", "supports version 1"});
  ExpectBuildError("training_not_imported.onnx", absl::StatusCode::kInvalidArgument,
                   {"node 'opt' (Momentum)", "which the model does not import"});
  ExpectBuildError("training_default_node.onnx", absl::StatusCode::kInvalidArgument,
                   {"imports no opset for the default ONNX domain", "node 'relu' (Relu)"});
}

TEST(TrainingOps, OtherOpsOfTheDomainAndOtherDomainsStayRefused) {
  ExpectBuildError("training_gradient.onnx", absl::StatusCode::kUnimplemented,
                   {"unsupported op", "node 'grad' (ai.onnx.preview.training:Gradient)"});
  ExpectBuildError("custom_domain.onnx", absl::StatusCode::kUnimplemented,
                   {"com.microsoft:FusedGemm"});
}

TEST(TrainingOps, BadAttributesGroupsShapesAndTypesAreRefused) {
  ExpectBuildError("training_bad_mode.onnx", absl::StatusCode::kInvalidArgument,
                   {"node 'opt' (Momentum)", "mode 'bogus'"});
  ExpectBuildError("training_missing_alpha.onnx", absl::StatusCode::kInvalidArgument,
                   {"attribute 'alpha' is required"});
  ExpectBuildError("training_bad_groups.onnx", absl::StatusCode::kInvalidArgument,
                   {"groups of 3 tensors", "got 6 inputs"});
  ExpectBuildError("training_shape_mismatch.onnx", absl::StatusCode::kInvalidArgument,
                   {"input 'G1' [4] does not have the shape of 'X1' [3]"});
  ExpectBuildError("training_r_int.onnx", absl::StatusCode::kInvalidArgument,
                   {"R must be a float32 scalar"});
}

TEST(MaxUnpool, ARunTimeOutputShapeIsCheckedAgainstTheDeclarationOrReported) {
  const auto k = Kernels("maxunpool_runtime_shape.onnx");
  EXPECT_EQ(k.count("kiln_shape_check"), 1u);
  EXPECT_EQ(k.count("kiln_max_unpool"), 1u);
  // Undeclared: the output dims are reported (shape_resolve), then patched.
  const auto u = Kernels("maxunpool_runtime_undeclared.onnx");
  EXPECT_EQ(u.count("kiln_shape_resolve"), 1u);
  EXPECT_EQ(u.count("kiln_max_unpool"), 1u);
  ExpectBuildError("maxunpool_small_output.onnx", absl::StatusCode::kInvalidArgument,
                   {"output shape [1,1,3,5] does not hold the unpooled shape [1,1,4,4]"});
}

TEST(RoiAlign, CompilesAndRefusesBadInputs) {
  EXPECT_EQ(Kernels("roialign_avg.onnx")["kiln_roi_align_f32"], 1);
  ExpectBuildError("roialign_int32_batch.onnx", absl::StatusCode::kInvalidArgument,
                   {"node 'roi' (RoiAlign)", "batch_indices must be an int64 [3] tensor"});
  ExpectBuildError("roialign_bad_mode.onnx", absl::StatusCode::kInvalidArgument,
                   {"unknown mode 'median'"});
}

}  // namespace
}  // namespace kiln::compiler
