// Which operator-set domains a model's nodes may come from. Besides the
// default ONNX domain, Kiln reads ai.onnx.preview.training version 1 for its
// optimizers (passes/shape_rules_training.h); a model made of those alone
// imports only that domain. Nodes of other domains get through import and
// are refused, all at once, by CheckOpsSupported.
#ifndef KILN_COMPILER_FRONTEND_DOMAIN_IMPORTS_H_
#define KILN_COMPILER_FRONTEND_DOMAIN_IMPORTS_H_

#include <string>

#include "absl/status/status.h"
#include "onnx/onnx_pb.h"

namespace kiln::compiler {

// True if the model imports ai.onnx.preview.training (any version).
bool ImportsPreviewTraining(const onnx::ModelProto& model);

// An error naming `path` and the node when a default-domain node appears in
// a model without a default-domain import, or an ai.onnx.preview.training
// node in one that does not import that domain at version 1.
absl::Status CheckDomainImports(const onnx::ModelProto& model, const std::string& path,
                                bool imports_default);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_FRONTEND_DOMAIN_IMPORTS_H_
