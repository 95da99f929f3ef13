// The compiler pipeline: an explicit, ordered list of named passes.
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/compiler.h"
#include "compiler/emit/lowering.h"
#include "compiler/emit/module_writer.h"
#include "compiler/frontend/onnx_importer.h"
#include "compiler/ir/graph.h"
#include "compiler/passes/batchnorm_fold.h"
#include "compiler/passes/clip_expand.h"
#include "compiler/passes/norm_expand.h"
#include "compiler/passes/constant_folding.h"
#include "compiler/passes/conv_algorithm.h"
#include "compiler/passes/dispatch_formation.h"
#include "compiler/passes/expand_variadic.h"
#include "compiler/passes/layer_norm_fusion.h"
#include "compiler/passes/layout_selection.h"
#include "compiler/passes/loop_scan_count.h"
#include "compiler/passes/materialize_symbolic_values.h"
#include "compiler/passes/report_output_lengths.h"
#include "compiler/passes/memory_planning.h"
#include "compiler/passes/op_support.h"
#include "compiler/passes/output_shape_hints.h"
#include "compiler/passes/sequence_resolution.h"
#include "compiler/passes/shape_inference.h"

namespace kiln::compiler {
namespace {

struct Pass {
  const char* name;
  std::function<absl::Status(ir::Graph&)> run;
};

// Graph → graph passes, in order. Dispatch formation keeps every value's
// shape, so shape inference need not run again after it.
const std::vector<Pass>& GraphPasses() {
  static const std::vector<Pass>* passes = new std::vector<Pass>{
      // Sequences of compile-time structure become the tensors they hold.
      {"resolve-sequences", ResolveSequences},
      {"check-ops-supported", [](ir::Graph& g) { return CheckOpsSupported(g); }},
      // Folding infers shapes as it goes; inference then checks they are all known.
      {"output-shape-hints", PropagateOutputShapeHints},
      {"expand-variadic", ExpandVariadicOps},
      {"count-loop-scans", CountLoopScans},
      {"fold-constants", FoldConstants},
      {"infer-shapes", InferShapes},
      {"expand-clip", ExpandClip},
      {"expand-norms", ExpandNorms},
      {"check-all-folded", [](ir::Graph& g) { return CheckAllFolded(g); }},
      {"report-output-lengths", ReportOutputLengths},
      {"materialize-symbolic-values", MaterializeSymbolicValues},
      {"fold-batchnorm", FoldBatchNormIntoConv},
      {"fuse-layer-norm", FuseLayerNorm},
      {"form-dispatches", FormDispatches},
  };
  return *passes;
}

// Adds the file and stage to a message unless it already names the file.
absl::Status WithContext(const absl::Status& s, const std::string& path, const char* stage) {
  if (s.ok()) return s;
  const std::string msg(s.message());
  if (msg.find(path) != std::string::npos) return s;
  return absl::Status(s.code(), absl::StrCat(path, ": ", stage, ": ", msg));
}

}  // namespace

absl::Status RunGraphPasses(ir::Graph& graph) {
  for (const Pass& pass : GraphPasses()) {
    absl::Status s = pass.run(graph);
    if (!s.ok()) return WithContext(s, graph.source, pass.name);
  }
  return absl::OkStatus();
}

namespace {

// Everything after import: the graph passes, layouts, memory plan, lowering.
absl::StatusOr<std::string> BuildImported(absl::StatusOr<ir::Graph> imported,
                                          const std::string& onnx_path,
                                          const BuildOptions& options) {
  if (!imported.ok()) return WithContext(imported.status(), onnx_path, "import");
  ir::Graph graph = std::move(*imported);
  if (graph.source.empty()) graph.source = onnx_path;

  if (absl::Status s = RunGraphPasses(graph); !s.ok()) return s;
  // Entry graph only: control-flow bodies keep the ONNX layout.
  if (options.choose_layouts) {
    if (absl::Status s = ChooseLayouts(graph); !s.ok()) {
      return WithContext(s, onnx_path, "choose-layouts");
    }
  }
  // After the layouts (the Winograd kernel takes either): the scratch
  // outputs it appends are then planned with everything else.
  if (options.choose_conv_algorithms) {
    if (absl::Status s = ChooseConvAlgorithms(graph); !s.ok()) {
      return WithContext(s, onnx_path, "choose-conv-algorithms");
    }
  }
  if (options.print_ir != nullptr) *options.print_ir << graph.ToString();

  absl::StatusOr<MemoryPlan> plan = PlanMemory(graph);
  if (!plan.ok()) return WithContext(plan.status(), onnx_path, "plan-memory");
  absl::StatusOr<emit::LoweredModule> lowered = emit::Lower(graph, *plan);
  if (!lowered.ok()) return WithContext(lowered.status(), onnx_path, "lower");
  absl::StatusOr<std::string> bytes = emit::WriteModule(*lowered);
  if (!bytes.ok()) return WithContext(bytes.status(), onnx_path, "write-module");
  return bytes;
}

ImportOptions ImportOptionsOf(const BuildOptions& options) {
  ImportOptions import;
  import.input_shapes = options.input_shapes;
  import.dims = options.dims;
  import.input_values = options.input_values;
  return import;
}

}  // namespace

absl::StatusOr<std::string> BuildModule(const std::string& onnx_path,
                                        const BuildOptions& options) {
  return BuildImported(ImportOnnx(onnx_path, ImportOptionsOf(options)), onnx_path, options);
}

absl::StatusOr<std::string> BuildModuleFromBytes(const std::string& onnx_bytes,
                                                 const std::string& origin,
                                                 const BuildOptions& options) {
  return BuildImported(ImportOnnxBytes(onnx_bytes, origin, ImportOptionsOf(options)), origin,
                       options);
}

}  // namespace kiln::compiler
