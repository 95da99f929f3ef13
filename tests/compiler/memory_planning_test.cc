#include "compiler/passes/memory_planning.h"

#include <random>

#include "gtest/gtest.h"
#include "tests/compiler/backend_graph_builder.h"

namespace kiln::compiler {
namespace {

using testing::GraphBuilder;

// Every pair of arena tensors whose lifetimes overlap must not share a byte;
// every offset is aligned and inside the arena.
void CheckPlanIsSafe(const MemoryPlan& plan) {
  for (size_t a = 0; a < plan.arena.size(); ++a) {
    const ArenaTensor& ta = plan.arena[a];
    EXPECT_EQ(ta.offset % 64, 0u);
    EXPECT_LE(ta.offset + ta.size, plan.arena_size);
    for (size_t b = a + 1; b < plan.arena.size(); ++b) {
      const ArenaTensor& tb = plan.arena[b];
      const bool live_together = ta.first <= tb.last && tb.first <= ta.last;
      const bool bytes_overlap = ta.offset < tb.offset + tb.size && tb.offset < ta.offset + ta.size;
      EXPECT_FALSE(live_together && bytes_overlap && ta.size > 0 && tb.size > 0)
          << "values " << ta.value << " and " << tb.value;
    }
  }
  EXPECT_GE(plan.arena_size, plan.lower_bound);
}

// x → Relu → t1 → Relu → t2 → Relu → t3 → Relu → y; each 1024 floats.
TEST(MemoryPlanning, ChainUsesTwoBuffers) {
  GraphBuilder b;
  ir::ValueId prev = b.Input("x", {1024});
  for (int k = 0; k < 4; ++k) {
    const ir::ValueId next = b.Tensor(k == 3 ? "y" : "t" + std::to_string(k), {1024});
    b.Node("Relu", "r" + std::to_string(k), {prev}, {next});
    prev = next;
  }
  b.Output(prev);
  auto plan = PlanMemory(b.g);
  ASSERT_TRUE(plan.ok()) << plan.status();
  CheckPlanIsSafe(*plan);
  ASSERT_EQ(plan->arena.size(), 3u);  // x is the caller's, y written in place
  EXPECT_EQ(plan->lower_bound, 2u * 4096);
  EXPECT_EQ(plan->arena_size, 2u * 4096);  // the optimum: ping-pong
  EXPECT_EQ(plan->storage[b.g.inputs[0]].kind, StorageKind::kInput);
  EXPECT_EQ(plan->storage[prev].kind, StorageKind::kOutput);
  EXPECT_EQ(plan->storage[prev].index, 0);
  EXPECT_TRUE(plan->output_copies.empty());
}

// Random DAGs of binary ops with random sizes: safety and the bound.
TEST(MemoryPlanning, RandomGraphsNeverOverlapLiveTensors) {
  std::mt19937 rng(12345);
  for (int trial = 0; trial < 50; ++trial) {
    GraphBuilder b;
    std::vector<ir::ValueId> pool = {b.Input("x", {7})};
    const int n = 5 + static_cast<int>(rng() % 20);
    for (int k = 0; k < n; ++k) {
      const int64_t size = 1 + static_cast<int64_t>(rng() % 300);
      // Operands are read whole here, so shapes need not agree for planning.
      const ir::ValueId a = pool[rng() % pool.size()];
      const ir::ValueId c = pool[rng() % pool.size()];
      const ir::ValueId out = b.Tensor("v" + std::to_string(k), {size});
      b.Node("Add", "n" + std::to_string(k), {a, c}, {out});
      pool.push_back(out);
    }
    b.Output(pool.back());
    auto plan = PlanMemory(b.g);
    ASSERT_TRUE(plan.ok()) << plan.status();
    CheckPlanIsSafe(*plan);
    // Lifetimes: each tensor lives from its producer to its last reader.
    for (const ArenaTensor& t : plan->arena) {
      int32_t last = t.first;
      for (ir::NodeId u : b.g.Users(t.value)) last = std::max(last, u);
      EXPECT_EQ(t.last, last);
      EXPECT_EQ(t.first, b.g.value(t.value).producer);
    }
  }
}

// x → Relu → t → Reshape → r → Relu → y, with a long-lived tensor: the alias
// shares t's bytes and keeps t alive until r's reader.
TEST(MemoryPlanning, AliasSharesRootAndExtendsLifetime) {
  GraphBuilder b;
  const ir::ValueId x = b.Input("x", {4, 16});
  const ir::ValueId shape = b.Const("shape", {2}, {8, 8});  // contents unused here
  const ir::ValueId t = b.Tensor("t", {4, 16});
  const ir::ValueId r = b.Tensor("r", {8, 8});
  const ir::ValueId u = b.Tensor("u", {4, 16});
  const ir::ValueId y = b.Tensor("y", {8, 8});
  b.Node("Relu", "n0", {x}, {t});
  b.Node("Reshape", "n1", {t, shape}, {r});
  b.Node("Relu", "n2", {x}, {u});        // must not take t's bytes: t is still live
  b.Node("Add", "n3", {r, u}, {y});
  b.Output(y);
  auto plan = PlanMemory(b.g);
  ASSERT_TRUE(plan.ok()) << plan.status();
  CheckPlanIsSafe(*plan);
  EXPECT_EQ(plan->storage[r].root, t);
  EXPECT_EQ(plan->storage[r].kind, StorageKind::kArena);
  EXPECT_EQ(plan->storage[r].offset, plan->storage[t].offset);
  ASSERT_EQ(plan->arena.size(), 2u);  // t and u; r is no tensor of its own
  for (const ArenaTensor& a : plan->arena) {
    if (a.value == t) {
      EXPECT_EQ(a.last, 3);
    }
  }
  EXPECT_NE(plan->storage[t].offset, plan->storage[u].offset);
  EXPECT_EQ(plan->storage[shape].kind, StorageKind::kConstant);
}

// The kernel producing the root of an output alias writes the output buffer.
TEST(MemoryPlanning, OutputAliasWritesCallerBuffer) {
  GraphBuilder b;
  const ir::ValueId x = b.Input("x", {2, 3, 4});
  const ir::ValueId t = b.Tensor("t", {2, 3, 4});
  const ir::ValueId y = b.Tensor("y", {2, 12});
  b.Node("Relu", "relu", {x}, {t});
  b.Node("Flatten", "flat", {t}, {y});
  b.Output(y);
  auto plan = PlanMemory(b.g);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->storage[t].kind, StorageKind::kOutput);
  EXPECT_EQ(plan->storage[y].kind, StorageKind::kOutput);
  EXPECT_TRUE(plan->output_copies.empty());
  EXPECT_EQ(plan->arena_size, 0u);
}

TEST(MemoryPlanning, OutputsThatNeedCopies) {
  GraphBuilder b;
  const ir::ValueId x = b.Input("x", {5});
  const ir::ValueId c = b.Const("c", {2}, {1, 2});
  const ir::ValueId t = b.Tensor("t", {5});
  const ir::ValueId ident = b.Tensor("ident", {5});
  b.Node("Relu", "relu", {x}, {t});
  b.Node("Identity", "id", {x}, {ident});
  b.Output(t);      // 0: written in place
  b.Output(x);      // 1: a graph input
  b.Output(c);      // 2: a constant
  b.Output(t);      // 3: same value again
  b.Output(ident);  // 4: alias of an input
  auto plan = PlanMemory(b.g);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->output_copies.size(), 4u);
  EXPECT_EQ(plan->output_copies[0].output_index, 1);
  EXPECT_EQ(plan->output_copies[1].output_index, 2);
  EXPECT_EQ(plan->output_copies[2].output_index, 3);
  EXPECT_EQ(plan->output_copies[2].source, t);
  EXPECT_EQ(plan->output_copies[3].output_index, 4);
  EXPECT_EQ(plan->storage[t].kind, StorageKind::kOutput);
  EXPECT_EQ(plan->storage[t].index, 0);
}

TEST(MemoryPlanning, MissingShapeIsAnError) {
  GraphBuilder b;
  const ir::ValueId x = b.Input("x", {4});
  const ir::ValueId t = b.g.AddValue("t");
  b.Node("Relu", "relu", {x}, {t});
  b.Output(t);
  auto plan = PlanMemory(b.g);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("'t'"), std::string::npos);
}

}  // namespace
}  // namespace kiln::compiler
