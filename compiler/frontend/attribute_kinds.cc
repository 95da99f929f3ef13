#include "compiler/frontend/attribute_kinds.h"

#include "absl/strings/str_cat.h"
#include "onnx/defs/schema.h"

namespace kiln::compiler {
namespace {

std::string KindName(onnx::AttributeProto::AttributeType type) {
  if (type == onnx::AttributeProto::UNDEFINED) return "UNDEFINED (no type set)";
  return onnx::AttributeProto::AttributeType_Name(type);
}

}  // namespace

absl::Status CheckAttributeKinds(const onnx::NodeProto& node, int64_t opset,
                                 const std::string& where) {
  const onnx::OpSchema* schema =
      onnx::OpSchemaRegistry::Schema(node.op_type(), static_cast<int>(opset), "");
  if (schema == nullptr) return absl::OkStatus();
  for (const onnx::AttributeProto& a : node.attribute()) {
    auto declared = schema->attributes().find(a.name());
    if (declared == schema->attributes().end() || declared->second.type == a.type()) continue;
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": attribute '", a.name(), "' has type ", KindName(a.type()), "; ", node.op_type(),
        " (opset ", schema->SinceVersion(), ") takes ", KindName(declared->second.type)));
  }
  return absl::OkStatus();
}

}  // namespace kiln::compiler
