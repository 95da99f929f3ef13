// Each attribute of a default-domain node against the op's ONNX schema
// (libonnx's registry, at the model's opset): an attribute of another kind
// than the schema declares is refused. The IR's getters answer a kind they
// do not expect with the attribute's default, so without this check a
// FLOAT `strides` or an INT `perm` would compile as if it were absent.
#ifndef KILN_COMPILER_FRONTEND_ATTRIBUTE_KINDS_H_
#define KILN_COMPILER_FRONTEND_ATTRIBUTE_KINDS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "onnx/onnx_pb.h"

namespace kiln::compiler {

// `node` is in the default domain. Ops without a schema at `opset` and
// attributes the schema does not name pass: op support and the lowerings
// judge those.
// `where` prefixes the error ("'m.onnx': node 'Conv_0' (Conv)").
absl::Status CheckAttributeKinds(const onnx::NodeProto& node, int64_t opset,
                                 const std::string& where);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_FRONTEND_ATTRIBUTE_KINDS_H_
