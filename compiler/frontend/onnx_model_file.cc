#include "compiler/frontend/onnx_model_file.h"

#include <fstream>
#include <limits>
#include <sstream>
#include <sys/stat.h>

#include "absl/strings/str_cat.h"

namespace kiln::compiler {

absl::StatusOr<std::string> ReadOnnxFile(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    return absl::NotFoundError(absl::StrCat("ONNX file '", path, "' does not exist"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ONNX file '", path, "'"));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

absl::StatusOr<onnx::ModelProto> ParseOnnxModel(const std::string& bytes,
                                                const std::string& origin) {
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", origin, "' is larger than 2 GB; external data is not supported yet"));
  }
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", origin, "' is not a valid ONNX model (protobuf parsing failed)"));
  }
  if (!model.has_graph() || model.opset_import_size() == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", origin, "' is not a valid ONNX model (no graph or no opset_import)"));
  }
  return model;
}

}  // namespace kiln::compiler
