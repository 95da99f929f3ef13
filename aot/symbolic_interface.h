// The C interface of a bundle whose module has symbolic dimensions
// (Module.symbols): the facts the emitter needs about the symbols and the
// integer program, and the header text that documents and declares them.
// Static modules never reach anything here beyond HasSymbols().
#ifndef KILN_AOT_SYMBOLIC_INTERFACE_H_
#define KILN_AOT_SYMBOLIC_INTERFACE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "vm/module_image.h"

namespace kiln::aot {

// The length of the generated C array for `count` registers (r[], rb[],
// n[]): at least 1, since C has no empty arrays.
inline uint32_t RegisterArrayLength(uint32_t count) { return count > 0 ? count : 1; }

bool HasSymbols(const fb::Module& m);

// Whether the run finds some length without a bound (a result symbol whose
// bound is ir::kNoBound): its buffers may need to grow between runs.
bool GrowsDuringRun(const fb::Module& m);

// Per dim of `t`, the ordinal of the symbol it names, -1 when static,
// kExpressionDim for an output dim that is an expression of the symbols, or
// kFoundDuringRunDim for a length the run finds without a bound.
constexpr int32_t kExpressionDim = -2;
constexpr int32_t kFoundDuringRunDim = -3;
std::vector<int32_t> DimSymbolOrdinals(const fb::Module& m, const fb::TensorDesc& t);

// The workspace bytes as arithmetic on the symbols ("N*10240 + 4096"), or
// the static arena size when the module has no dynamic part.
std::string WorkspaceFormula(const fb::Module& m);

// "Nx3x16x16": a signature shape with symbolic dims by name.
std::string SymbolicShapeText(const fb::TensorDesc& t);

// The header's comment block for a module with symbols: how to call it
// (`run_args`: NAME_run's parameter names, "symbols, inputs, ...").
std::string SymbolicHeaderComment(const fb::Module& m, const std::string& name,
                                  const std::string& upper, const std::string& origin,
                                  const std::string& target, bool external_weights,
                                  const std::string& run_args);

// NAME_SYMBOL_COUNT, NAME_SYMBOLk_NAME and NAME_WORKSPACE_MIN_SIZE.
std::string SymbolMacros(const fb::Module& m, const std::string& upper);

// NAME_workspace_size(): runs NAME_shapes() and reads the workspace register.
std::string WorkspaceSizeFunction(const fb::Module& m, const std::string& name,
                                  const std::string& upper);

// NAME_output_dims(): runs NAME_shapes() and gives an output's shape and
// bytes for the symbols (expression dims from their registers).
std::string OutputDimsFunction(const fb::Module& m, const std::string& name);

// NAME_broken_requirement(): runs NAME_shapes() and names the first
// requirement of the model (a run-time equality of sizes) these symbols
// break, as a formula of them, or NULL.
std::string BrokenRequirementFunction(const fb::Module& m, const std::string& name);

}  // namespace kiln::aot

#endif  // KILN_AOT_SYMBOLIC_INTERFACE_H_
