// Control flow (ONNX If, Loop, Scan). Each subgraph is compiled as a graph
// of its own, for the types its node gives it: its inputs are the ONNX ones
// and then the values it captures from enclosing graphs (ir/graph.h,
// kCaptureCountAttr); inputs known at compile time become constants, so
// folding and shape inference see through them. The node's output types
// follow from the compiled subgraphs; lowering (emit/lower_control_flow.cc)
// compiles the same subgraphs again into functions that IF and LOOP call.
//
// Symbolic dims: every subgraph shares its model's DimPool (each compile
// extends the caller's pool and hands it back), so shapes, and shape values
// computed from the symbols, cross calls unchanged. A length a kernel of a
// subgraph computes during the run (a data symbol of its Graph::scope) sizes
// its values only: its outputs must have sizes the caller knows.
//
// Supported: If branches of equal ranks and types; where their static dims
// differ, the output's dim is a length known after the IF ran; Loop-carried and Scan state
// values keep their shape across iterations; a Loop with scan outputs must
// have an iteration count known at compile time or a declared output shape
// that states it (the run then fails unless the loop runs exactly that
// often); Scan reads and writes slices along any axis, in either direction.
#ifndef KILN_COMPILER_PASSES_CONTROL_FLOW_H_
#define KILN_COMPILER_PASSES_CONTROL_FLOW_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

// A subgraph compiled for its node: graph.inputs are the inputs left after
// constants were substituted, kept[k] the original index of input k.
struct PreparedSubgraph {
  std::shared_ptr<ir::Graph> graph;
  std::vector<size_t> kept;
};

// One scanned tensor: sliced (input) or assembled (output) along `axis` of
// the node's tensor, iteration i touching slice i (count-1-i when reverse).
struct ScanAxis {
  int64_t axis = 0;
  bool reverse = false;
};

struct ControlFlow {
  enum class Kind { kIf, kLoop, kScan };
  Kind kind = Kind::kIf;
  // If: {then, else}; Loop, Scan: {body}.
  std::vector<PreparedSubgraph> bodies;
  // Node input index of the first state (Loop-carried / Scan state) value.
  size_t first_state = 0;
  size_t states = 0;      // Loop: carried values; Scan: state values
  size_t scan_inputs = 0; // Scan only
  size_t scan_outputs = 0;
  std::vector<ScanAxis> scan_input_axes, scan_output_axes;
  // Iterations a Loop with scan outputs, or a Scan, runs (a dim: static, or
  // encoded when it is a symbol's, e.g. a Scan over S steps); -1: any.
  int64_t iterations = -1;
  // The node's outputs (an If output whose branches differ in a dim has
  // the larger of the two there: the bound of the length it gets).
  std::vector<ir::DType> output_dtypes;
  std::vector<std::vector<int64_t>> output_shapes;
  // If only: each dim the branches give different lengths: static, or
  // (then_value / else_value encoded) a length the branch computes. The
  // output's dim becomes a length known after the IF ran (a data symbol,
  // ir/dim_expr.h), which each branch writes as an int64 into the node's
  // extra output count_output (after the ONNX outputs; kIfLengthsAttr
  // says how many there are).
  struct BranchLength {
    size_t output = 0, dim = 0;
    int64_t then_value = 0, else_value = 0;
    size_t count_output = 0;
  };
  std::vector<BranchLength> lengths;
};

// Count of the int64 outputs an If node got for its branch lengths.
inline constexpr char kIfLengthsAttr[] = "kiln.if_lengths";

// True if `node` is If, Loop or Scan; then *control (when non-null) and
// the status say how it compiles. `known` holds values folded so far
// (may be null once folding is over: then only graph constants count).
// `pool` is the model's DimPool (null: graph.dims), which the subgraphs
// extend.
bool AnalyzeControlFlow(const ir::Graph& graph, const ir::Node& node,
                        const std::vector<ir::ConstantPtr>* known, ControlFlow* control,
                        absl::Status* status, ir::DimPool* pool = nullptr);

// Shape inference for If, Loop and Scan (false for any other op).
bool InferControlFlowShapes(ir::Graph& graph, ir::Node& node,
                            const std::vector<ir::ConstantPtr>& known, absl::Status* status);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_CONTROL_FLOW_H_
