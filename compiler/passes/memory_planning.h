// Memory planning: where every tensor of the graph lives at run time.
//
// Algorithm (static, over the node order):
//  - Storage classes: graph inputs are caller buffers; constants live in the
//    module; a graph output produced by a kernel (or an alias of one) makes
//    that kernel write straight into the caller's output buffer; every other
//    kernel result goes into one arena.
//  - Aliases (IsAliasNode: Reshape, Flatten, ...) share their root's storage;
//    their readers extend the root's lifetime.
//  - A graph output whose root is a graph input, a constant or a root already
//    bound to another output gets a `copy` dispatch after the last node; such a
//    source stays alive until then.
//  - Lifetime of an arena tensor = [producer index, last reader index]; a
//    node's outputs and inputs are alive at the same step, so a kernel never
//    writes over its own operands.
//  - Placement is greedy by size: largest first (ties: earlier producer), each
//    at the lowest 64-byte aligned offset that does not overlap any already
//    placed tensor whose lifetime overlaps its own.
//  - lower_bound = max over steps of the sum of live arena tensor bytes; no
//    placement can use less, so arena_size - lower_bound is the waste.
//  - Symbolic sizes (ir/dim_expr.h): a tensor of c*m bytes, m a product of
//    symbols, joins the group of every tensor scaling with m and is placed
//    within it by the same greedy rule on the coefficients c (16-byte
//    aligned, so m*offset is aligned for every m); group m starts
//    after the static arena and the groups before it, so its tensors sit at
//    base_m + m*offset. The workspace is the static arena plus, per group,
//    m times its planned bytes: a formula of the symbols (workspace_expr).
//    A size that is not such a product (a sum like S + T rows, a min) is
//    planned as 16 * ceil(size / 16), grouped by ceil(size / 16).
//  - Lengths found during the run (data symbols) are planned at their bound.
//    A tensor sized by one without a bound (ir::kNoBound) is a tail tensor:
//    its offset_expr is relative to the end of the workspace (the caller
//    adds the workspace's formula). The tail is grouped and placed like the
//    symbolic sizes above, the groups in order of their first tensor's
//    definition, so an offset involves only lengths found by the time its
//    tensor is written. Those offsets involve the lengths, so only a run
//    finds how much workspace the tail takes.
#ifndef KILN_COMPILER_PASSES_MEMORY_PLANNING_H_
#define KILN_COMPILER_PASSES_MEMORY_PLANNING_H_

#include <cstdint>
#include <map>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

enum class StorageKind { kNone, kInput, kOutput, kConstant, kArena };

struct ValueStorage {
  StorageKind kind = StorageKind::kNone;  // kNone: value is never materialised
  ir::ValueId root = ir::kNoValue;        // the value owning the bytes
  int32_t index = -1;                     // signature index for kInput/kOutput
  uint64_t offset = 0;                    // arena byte offset for kArena
  uint64_t size = 0;                      // bytes of the root buffer
  // With symbolic dims: the same as encoded dims (ir/dim_expr.h), equal to
  // offset/size when static.
  int64_t offset_expr = 0;
  int64_t size_expr = 0;
  bool tail = false;  // kArena: in the workspace's tail (offset_expr relative)
};

struct ArenaTensor {
  ir::ValueId value = ir::kNoValue;  // a root value
  uint64_t offset = 0;
  uint64_t size = 0;
  int32_t first = 0;  // producing node index
  int32_t last = 0;   // last reading step (node count = the output copies)
  int64_t offset_expr = 0;  // encoded dims; equal to offset/size when static
  int64_t size_expr = 0;
  bool tail = false;        // sized by a length without a bound (see above)
  // Symbolic sizes: the tensor's group (in order of base) and the end of its
  // coefficient range in it; ordering by both orders the tensors' ends.
  int32_t group = -1;
  uint64_t group_end = 0;
};

struct OutputCopy {
  int32_t output_index = 0;
  ir::ValueId source = ir::kNoValue;
};

struct MemoryPlan {
  uint64_t arena_size = 0;      // the static part
  int64_t workspace_expr = 0;   // all of it (encoded dim; arena_size when static)
  int64_t tail_expr = 0;        // past it, the tail's bytes: a formula of run-time lengths
  uint64_t lower_bound = 0;
  uint32_t alignment = 64;
  std::vector<ValueStorage> storage;      // indexed by ValueId
  std::vector<ArenaTensor> arena;         // in order of first definition
  std::vector<OutputCopy> output_copies;  // run after all nodes, in this order
  // The entry graph of a model with symbols: a static int64 slot in the
  // arena, by data symbol, for each length a kernel of a called function
  // finds (the function's own tensors may lie past ones sized by the
  // symbols, at offsets only known at run time; ILOAD needs a fixed one).
  std::map<int32_t, uint64_t> callee_count_slots;
};

// Plans the (compacted, topologically ordered) graph. Fails if a materialised
// tensor has no static shape or known dtype.
absl::StatusOr<MemoryPlan> PlanMemory(const ir::Graph& graph);

// Bytes of a value with a static shape and known dtype; -1 otherwise.
int64_t ValueBytes(const ir::Value& value);
// The same for a shape that may be symbolic: an encoded dim, -1 when the
// shape or dtype is unknown.
int64_t ValueBytesExpr(const ir::Graph& graph, const ir::Value& value);
// The bytes a buffer for the value needs: ValueBytesExpr, or its bound when
// it depends on lengths known only during the run (data symbols). -1 when
// unknown or unbounded.
int64_t PlannedBytesExpr(const ir::Graph& graph, const ir::Value& value);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_MEMORY_PLANNING_H_
