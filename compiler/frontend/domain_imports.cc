#include "compiler/frontend/domain_imports.h"

#include "absl/strings/str_cat.h"
#include "compiler/passes/shape_rules_training.h"

namespace kiln::compiler {
namespace {

// The version of `domain` the model imports, or -1.
int64_t ImportedVersion(const onnx::ModelProto& model, const std::string& domain) {
  int64_t version = -1;
  for (const auto& entry : model.opset_import()) {
    if (entry.domain() == domain) version = entry.version();
  }
  return version;
}

std::string NodeName(const onnx::NodeProto& node, int index) {
  const std::string name = node.name().empty() ? absl::StrCat(node.op_type(), "_", index)
                                               : node.name();
  return absl::StrCat("node '", name, "' (", node.op_type(), ")");
}

}  // namespace

bool ImportsPreviewTraining(const onnx::ModelProto& model) {
  return ImportedVersion(model, kPreviewTrainingDomain) >= 0;
}

absl::Status CheckDomainImports(const onnx::ModelProto& model, const std::string& path,
                                bool imports_default) {
  const int64_t training = ImportedVersion(model, kPreviewTrainingDomain);
  const auto& nodes = model.graph().node();
  for (int k = 0; k < nodes.size(); ++k) {
    const std::string& domain = nodes[k].domain();
    if ((domain.empty() || domain == "ai.onnx") && !imports_default) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", path, "' imports no opset for the default ONNX domain, which ",
                       NodeName(nodes[k], k), " uses"));
    }
    if (domain != kPreviewTrainingDomain) continue;
    if (training < 0) {
      return absl::InvalidArgumentError(absl::StrCat("'", path, "': ", NodeName(nodes[k], k),
                                                     " uses domain ", domain,
                                                     ", which the model does not import"));
    }
    if (training != 1) {
      return absl::UnimplementedError(absl::StrCat("'", path, "' imports ", domain, " version ",
                                                   training, "; Kiln supports version 1"));
    }
  }
  return absl::OkStatus();
}

}  // namespace kiln::compiler
