// Reading an ONNX file into its protobuf, with the errors every reader of
// one gives: the importer, and `kiln compare --reference ort`, which rewrites
// the model for ONNX Runtime.
#ifndef KILN_COMPILER_FRONTEND_ONNX_MODEL_FILE_H_
#define KILN_COMPILER_FRONTEND_ONNX_MODEL_FILE_H_

#include <string>

#include "absl/status/statusor.h"
#include "onnx/onnx_pb.h"

namespace kiln::compiler {

// The bytes of the file at `path` ("does not exist" / "cannot open" name it).
absl::StatusOr<std::string> ReadOnnxFile(const std::string& path);

// A serialized ModelProto with a graph and an opset_import; `origin` names
// the bytes in messages (a file, or what the caller says).
absl::StatusOr<onnx::ModelProto> ParseOnnxModel(const std::string& bytes,
                                                const std::string& origin);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_FRONTEND_ONNX_MODEL_FILE_H_
