// The ops declared in compiler/ops/ (op_def.h), looked up by op type.
#ifndef KILN_COMPILER_OPS_OP_REGISTRY_H_
#define KILN_COMPILER_OPS_OP_REGISTRY_H_

#include <string>
#include <vector>

#include "compiler/ops/op_def.h"

namespace kiln::compiler {

// The declaration of the default-domain op `op_type`, or null when it is not
// declared here (it may still be one of the ops listed the older way).
const OpDef* FindOpDef(const std::string& op_type);

// The declaration of `node`'s op when it is in the default ONNX domain.
const OpDef* FindOpDef(const ir::Node& node);

// Every declared op, in registration order.
const std::vector<OpDef>& AllOpDefs();

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_OPS_OP_REGISTRY_H_
