// Small helpers shared by the front-end passes: ONNX dtype codes, building
// constants, shape formatting and numpy broadcasting.
#ifndef KILN_COMPILER_IR_GRAPH_UTIL_H_
#define KILN_COMPILER_IR_GRAPH_UTIL_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"

namespace kiln::ir {

// ONNX TensorProto.DataType code → DType; Unknown for types Kiln cannot hold
// (string, complex, bfloat16, uint16/32/64).
DType DTypeFromOnnx(int64_t onnx_elem_type);

// "[1,3,224,224]".
std::string ShapeStr(const std::vector<int64_t>& shape);

ConstantPtr MakeConstant(DType dtype, std::vector<int64_t> shape, std::vector<uint8_t> bytes);
// An int64 tensor holding `values`, shaped `shape` ({n} when empty is passed
// for a non-scalar: pass {} explicitly for a scalar).
ConstantPtr MakeI64Constant(std::vector<int64_t> shape, const std::vector<int64_t>& values);

// Numpy multidirectional broadcast of two shapes; false if incompatible.
// With `dims`, two different dims (neither 1) where one is symbolic are
// assumed equal and checked at run time (DimPool::AssumeEqual).
bool BroadcastShapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                     std::vector<int64_t>* out, DimPool* dims = nullptr);

// Rebuilds the node list in order: `expand` either appends replacement nodes
// for a node (and returns true) or leaves it to be kept as it is. Producers
// are renumbered when anything changed.
void RewriteNodes(Graph& graph,
                  const std::function<bool(Graph&, const Node&, std::vector<Node>*)>& expand);

}  // namespace kiln::ir

#endif  // KILN_COMPILER_IR_GRAPH_UTIL_H_
