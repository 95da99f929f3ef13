// Test helper: a hand-built graph through shape inference, memory planning
// and lowering, as the pipeline does after import (for rule and lowering
// tests that inspect the executables or the refusal).
#ifndef KILN_TESTS_COMPILER_LOWER_GRAPH_H_
#define KILN_TESTS_COMPILER_LOWER_GRAPH_H_

#include "absl/status/statusor.h"
#include "compiler/emit/lowering.h"
#include "compiler/passes/memory_planning.h"
#include "compiler/passes/shape_inference.h"

namespace kiln::testing {

inline absl::StatusOr<compiler::emit::LoweredModule> InferPlanLower(ir::Graph& g) {
  if (absl::Status s = compiler::InferShapes(g); !s.ok()) return s;
  auto plan = compiler::PlanMemory(g);
  if (!plan.ok()) return plan.status();
  return compiler::emit::Lower(g, *plan);
}

}  // namespace kiln::testing

#endif  // KILN_TESTS_COMPILER_LOWER_GRAPH_H_
