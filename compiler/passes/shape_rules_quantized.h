// Shape and dtype rules for the quantized ops: MatMulInteger and
// QLinearMatMul (batch-broadcast matrices of rank >= 2), ConvInteger and
// QLinearConv (1-D and 2-D windows; the window goes into kiln.strides,
// kiln.dilations, kiln.pads), QuantizeLinear / DequantizeLinear (same shape;
// scale and zero point a scalar or one entry per element of `axis`) and
// DynamicQuantizeLinear. Operands are uint8 or int8, scales float32.
#ifndef KILN_COMPILER_PASSES_SHAPE_RULES_QUANTIZED_H_
#define KILN_COMPILER_PASSES_SHAPE_RULES_QUANTIZED_H_

#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

// True if `node`'s op has a rule here; the rule's result is then in *status.
bool InferQuantizedShapes(ir::Graph& graph, ir::Node& node,
                          const std::vector<ir::ConstantPtr>& known, absl::Status* status);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_SHAPE_RULES_QUANTIZED_H_
