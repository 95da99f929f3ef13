// The memory plan of models with symbolic axes: at every symbol value, each
// arena tensor is 16-byte aligned, inside the workspace formula, and never
// overlaps a tensor alive at the same step; and the workspace stays within
// twice the tensors' bytes stacked end to end (+16 each), which a size like
// S + T rows, planned as 16 * ceil(size / 16), must not break.
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "compiler/frontend/onnx_importer.h"
#include "compiler/passes/memory_planning.h"
#include "gtest/gtest.h"

namespace kiln::compiler {
namespace {

class SymbolicMemory : public ::testing::TestWithParam<std::string> {};

// Workspace / peak of live bytes, over the sizes the test evaluates
// (2026-12-02: cnn and mlp 1.00, concat 1.25, attention 2.24, slice 2.50;
// group planning with symbolic sizes leaves gaps the bound does not).
double MaxWorkspaceOverLiveBound(const std::string& model) {
  if (model == "cnn_dynbatch" || model == "mlp_dynbatch") return 1.01;
  if (model == "concat_dynseq") return 1.3;
  if (model == "attention_dynseq") return 2.3;
  return 2.55;  // slice_dynseq
}

TEST_P(SymbolicMemory, PlacementHoldsAtEverySymbolValue) {
  const std::string path =
      std::string(KILN_SOURCE_DIR) + "/tests/models/dynamic/" + GetParam() + ".onnx";
  auto g = ImportOnnx(path);
  ASSERT_TRUE(g.ok()) << g.status();
  const size_t symbols = g->dims.symbols().size();
  ASSERT_GE(symbols, 1u);
  ASSERT_TRUE(RunGraphPasses(*g).ok());
  auto plan = PlanMemory(*g);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_TRUE(ir::IsSymbolic(plan->workspace_expr));
  size_t symbolic_tensors = 0;
  for (const ArenaTensor& t : plan->arena) symbolic_tensors += ir::IsSymbolic(t.size_expr);
  EXPECT_GT(symbolic_tensors, 0u);
  for (int64_t v : {1, 2, 3, 5, 8, 13, 64}) {
    std::vector<int64_t> values;  // v, then 2v + 1, 3v + 2, ... for further symbols
    for (size_t k = 0; k < symbols; ++k) values.push_back(v * static_cast<int64_t>(k + 1) + static_cast<int64_t>(k));
    const int64_t workspace = g->dims.Evaluate(plan->workspace_expr, values);
    int64_t stacked = static_cast<int64_t>(plan->arena_size);
    for (const ArenaTensor& t : plan->arena) {
      if (ir::IsSymbolic(t.size_expr)) stacked += 2 * g->dims.Evaluate(t.size_expr, values) + 16;
    }
    EXPECT_LE(workspace, stacked) << "at " << v;
    int64_t peak_live = 0;
    for (int32_t step = 0; step <= static_cast<int32_t>(g->nodes.size()); ++step) {
      int64_t live = 0;
      for (const ArenaTensor& t : plan->arena) {
        if (t.first <= step && step <= t.last) live += g->dims.Evaluate(t.size_expr, values);
      }
      peak_live = std::max(peak_live, live);
    }
    for (size_t a = 0; a < plan->arena.size(); ++a) {
      const ArenaTensor& x = plan->arena[a];
      const int64_t xo = g->dims.Evaluate(x.offset_expr, values);
      const int64_t xs = g->dims.Evaluate(x.size_expr, values);
      EXPECT_EQ(xo % 16, 0) << g->value(x.value).name << " at " << v;
      EXPECT_LE(xo + xs, workspace) << g->value(x.value).name << " at " << v;
      for (size_t b = a + 1; b < plan->arena.size(); ++b) {
        const ArenaTensor& y = plan->arena[b];
        if (x.last < y.first || y.last < x.first) continue;  // never alive together
        const int64_t yo = g->dims.Evaluate(y.offset_expr, values);
        const int64_t ys = g->dims.Evaluate(y.size_expr, values);
        if (xs == 0 || ys == 0) continue;
        EXPECT_TRUE(xo + xs <= yo || yo + ys <= xo)
            << g->value(x.value).name << " and " << g->value(y.value).name << " overlap at "
            << v;
      }
    }
    // How far the plan is from the bound, pinned per model at what the
    // planner reaches today (a regression fails; an improvement lowers it).
    const double ratio =
        peak_live ? static_cast<double>(workspace) / static_cast<double>(peak_live) : 1.0;
    EXPECT_LE(ratio, MaxWorkspaceOverLiveBound(GetParam())) << "at " << v;
    std::printf("%s at %lld: workspace %lld bytes, live lower bound %lld (%.2fx)\n",
                GetParam().c_str(), static_cast<long long>(v), static_cast<long long>(workspace),
                static_cast<long long>(peak_live),
                ratio);
  }
}

INSTANTIATE_TEST_SUITE_P(Models, SymbolicMemory,
                         ::testing::Values("cnn_dynbatch", "mlp_dynbatch", "attention_dynseq",
                                           "concat_dynseq", "slice_dynseq"));

// A length a Loop body finds (tests/models/result/generate_bodies.py): in a
// model with symbols the entry plans a static int64 slot for it, after its
// static tensors and before those sized by the symbols (where the body's own
// tensors lie past, at run-time offsets); a static model needs none.
TEST(CalleeCountSlots, ABodyLengthGetsAStaticSlotInTheEntryOfAModelWithSymbols) {
  const std::string dir = std::string(KILN_SOURCE_DIR) + "/tests/models/result/";
  auto g = ImportOnnx(dir + "loop_rows_dynbatch.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_TRUE(RunGraphPasses(*g).ok());
  ASSERT_EQ(g->dims.data_symbols().size(), 1u);
  EXPECT_EQ(g->dims.data_symbols()[0].name, "rows.body/pos.length");
  EXPECT_EQ(g->dims.data_symbols()[0].scope, "rows.body/");
  auto plan = PlanMemory(*g);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->callee_count_slots.size(), 1u);
  const uint64_t slot = plan->callee_count_slots.at(0);
  EXPECT_EQ(slot % 8, 0u);
  EXPECT_LE(slot + 8, plan->arena_size);
  for (const ArenaTensor& t : plan->arena) {
    if (ir::IsSymbolic(t.size_expr)) {
      EXPECT_TRUE(g->dims.KnownNonNegative(
          g->dims.Sub(t.offset_expr, static_cast<int64_t>(plan->arena_size))))
          << g->value(t.value).name << " starts before the static part ends";
    } else {
      EXPECT_TRUE(t.offset + t.size <= slot || slot + 8 <= t.offset) << g->value(t.value).name;
    }
  }

  auto fixed = ImportOnnx(dir + "loop_compress.onnx");
  ASSERT_TRUE(fixed.ok()) << fixed.status();
  ASSERT_TRUE(RunGraphPasses(*fixed).ok());
  ASSERT_EQ(fixed->dims.data_symbols().size(), 1u);
  auto fixed_plan = PlanMemory(*fixed);
  ASSERT_TRUE(fixed_plan.ok()) << fixed_plan.status();
  EXPECT_TRUE(fixed_plan->callee_count_slots.empty());
}

// Tensors sized by lengths without a bound (an image resized by run-time
// scales, then a small backbone: tests/models/opset/generate.py
// tail_reuse_model): at any values of those lengths the tail's tensors are
// 16-byte aligned, inside the tail, never overlap one alive at the same
// step, and a tensor reuses the bytes of dead ones of its resolution: the
// tail is below the tensors stacked end to end.
TEST(TailMemory, TensorsOfOneResolutionReuseDeadOnesBytes) {
  auto g = ImportOnnx(std::string(KILN_SOURCE_DIR) +
                      "/tests/models/opset/unbounded/resize18_runtime_scales_backbone.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_TRUE(RunGraphPasses(*g).ok());
  auto plan = PlanMemory(*g);
  ASSERT_TRUE(plan.ok()) << plan.status();
  std::vector<const ArenaTensor*> tail;
  for (const ArenaTensor& t : plan->arena) {
    if (t.tail) tail.push_back(&t);
  }
  ASSERT_GE(tail.size(), 6u);
  const size_t first_data = g->dims.symbols().size();
  for (int64_t h : {1, 2, 7, 16, 33}) {
    for (int64_t w : {1, 3, 20}) {
      // Every data symbol the size formulas name: h, w, h + w, ...
      std::vector<int64_t> values(first_data + g->dims.data_symbols().size(), 0);
      for (size_t k = first_data; k < values.size(); ++k) {
        values[k] = (k - first_data) % 2 == 0 ? h : w;
      }
      const int64_t tail_bytes = g->dims.Evaluate(plan->tail_expr, values);
      int64_t stacked = 0;
      for (const ArenaTensor* x : tail) {
        const int64_t xo = g->dims.Evaluate(x->offset_expr, values);
        const int64_t xs = g->dims.Evaluate(x->size_expr, values);
        stacked += xs;
        EXPECT_EQ(xo % 16, 0) << g->value(x->value).name;
        EXPECT_LE(xo + xs, tail_bytes) << g->value(x->value).name;
        for (const ArenaTensor* y : tail) {
          if (y == x || x->last < y->first || y->last < x->first) continue;
          const int64_t yo = g->dims.Evaluate(y->offset_expr, values);
          const int64_t ys = g->dims.Evaluate(y->size_expr, values);
          if (xs == 0 || ys == 0) continue;
          EXPECT_TRUE(xo + xs <= yo || yo + ys <= xo)
              << g->value(x->value).name << " and " << g->value(y->value).name << " overlap at "
              << h << "x" << w;
        }
      }
      EXPECT_LT(tail_bytes, stacked) << h << "x" << w;
    }
  }
}

}  // namespace
}  // namespace kiln::compiler
