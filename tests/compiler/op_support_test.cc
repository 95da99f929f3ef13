// The pipeline's check-ops-supported pass (compiler/passes/op_support.cc):
// every unsupported op of a graph in one error naming the file and each node,
// a subgraph's named by its own source.
#include "compiler/passes/op_support.h"

#include <memory>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "gtest/gtest.h"
#include "tests/compiler/backend_graph_builder.h"

namespace kiln::compiler {
namespace {

std::string Model(const std::string& name) {
  return std::string(KILN_SOURCE_DIR) + "/tests/compiler/models/" + name;
}

void ExpectBuildError(const std::string& name, const std::vector<std::string>& fragments) {
  auto bytes = BuildModule(Model(name), BuildOptions{});
  ASSERT_FALSE(bytes.ok()) << name;
  EXPECT_EQ(bytes.status().code(), absl::StatusCode::kUnimplemented) << bytes.status();
  const std::string msg(bytes.status().message());
  EXPECT_NE(msg.find(name), std::string::npos) << msg;  // names the file
  for (const auto& f : fragments) EXPECT_NE(msg.find(f), std::string::npos) << f << " in: " << msg;
}

TEST(OpSupport, AllUnsupportedOpsInOneError) {
  ExpectBuildError("unsupported_ops.onnx", {"node 'random_like' (RandomNormalLike)",
                                            "node 'sample' (Multinomial)", "2 unsupported ops"});
}

TEST(OpSupport, CustomDomainIsUnsupported) {
  ExpectBuildError("custom_domain.onnx", {"node 'ms_op' (com.microsoft:FusedGemm)"});
}

// A Loop whose body holds an op without a kernel: the body's own error,
// naming where the body is, before anything of the outer graph.
TEST(OpSupport, AnUnsupportedOpInABodyIsNamedWithTheBody) {
  auto body = std::make_shared<ir::Graph>();
  body->source = "test.onnx (node 'loop' (Loop) body)";
  const ir::ValueId x = body->AddValue("x");
  body->inputs.push_back(x);
  const ir::ValueId y = body->AddValue("y");
  ir::Node bad;
  bad.op_type = "Multinomial";
  bad.name = "sample";
  bad.inputs = {x};
  bad.outputs = {y};
  body->AddNode(std::move(bad));
  body->outputs.push_back(y);

  testing::GraphBuilder b;
  const ir::ValueId in = b.Input("in", {1});
  const ir::ValueId out = b.Tensor("out", {1});
  const ir::NodeId loop = b.Node("Loop", "loop", {in}, {out});
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kGraph;
  a.graph = body;
  b.g.nodes[loop].attributes["body"] = a;
  b.Node("RandomNormalLike", "outer", {out}, {b.Tensor("z", {1})});

  const absl::Status s = CheckOpsSupported(b.g);
  ASSERT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
  const std::string msg(s.message());
  EXPECT_NE(msg.find("(node 'loop' (Loop) body)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("node 'sample' (Multinomial)"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("outer"), std::string::npos) << msg;

  b.g.nodes[loop].attributes.clear();  // without the body: the outer op
  const absl::Status outer = CheckOpsSupported(b.g);
  EXPECT_NE(std::string(outer.message()).find("node 'outer' (RandomNormalLike)"),
            std::string::npos) << outer;
}

}  // namespace
}  // namespace kiln::compiler
