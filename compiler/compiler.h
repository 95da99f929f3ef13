// The compiler's one entry point: ONNX model in, module bytes out. The
// pipeline is an explicit list of passes (compiler/pipeline.cc).
#ifndef KILN_COMPILER_COMPILER_H_
#define KILN_COMPILER_COMPILER_H_

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

struct BuildOptions {
  // When set, the graph is printed here after the passes (kiln compile --print-ir).
  std::ostream* print_ir = nullptr;
  // Let the compiler store tensors channels last where its kernels gain
  // (passes/layout_selection); false keeps every tensor in the ONNX layout
  // (kiln compile --layout nchw).
  bool choose_layouts = true;
  // Input name -> dims fixed at compile time (frontend/onnx_importer.h).
  std::map<std::string, std::vector<int64_t>> input_shapes;
  // Symbolic dim name -> value, and input name -> value (as text), fixed at
  // compile time (frontend/onnx_importer.h, frontend/input_binding.h).
  std::map<std::string, int64_t> dims;
  std::map<std::string, std::string> input_values;
  // Let the compiler run 3x3 stride-1 convolutions by Winograd's F(4x4, 3x3)
  // where that is faster on every SIMD path (passes/conv_algorithm); false
  // keeps every convolution direct (kiln compile --conv-algo direct).
  bool choose_conv_algorithms = true;
};

// Compiles the ONNX file at `onnx_path` into a verified-format .kiln module
// (the bytes of a schemas/module.fbs flatbuffer). Errors name the file and,
// where one is at fault, the ONNX node (name and op type); unsupported ops are
// all listed in one error.
absl::StatusOr<std::string> BuildModule(const std::string& onnx_path,
                                        const BuildOptions& options);
// The same from the bytes of an ONNX model (kiln.compile in Python: no file);
// `origin` stands for the file in messages.
absl::StatusOr<std::string> BuildModuleFromBytes(const std::string& onnx_bytes,
                                                 const std::string& origin,
                                                 const BuildOptions& options);

// The graph-to-graph passes BuildModule runs between import and memory
// planning (for tests that inspect the planned graph).
absl::Status RunGraphPasses(ir::Graph& graph);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_COMPILER_H_
