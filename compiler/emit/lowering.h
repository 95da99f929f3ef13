// Lowering: the planned graph → executables, constants and entry bytecode,
// i.e. everything the module holds, still as plain C++ data (module_writer.h
// serialises it).
#ifndef KILN_COMPILER_EMIT_LOWERING_H_
#define KILN_COMPILER_EMIT_LOWERING_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"
#include "compiler/passes/memory_planning.h"

namespace kiln::compiler::emit {

struct TensorDesc {
  std::string name;
  ir::DType dtype = ir::DType::Unknown;
  std::vector<int64_t> shape;              // -1 where dim_symbols names a symbol
  std::vector<std::string> dim_symbols;    // empty when every dim is static
  // Outputs: the integer register of each dim that is an expression of the
  // symbols (-1 elsewhere); empty when there is none.
  std::vector<int32_t> dim_registers;
  // Outputs shaped after the run: the bytes the result can take when fewer
  // than the bound shape's (ir::Value::capacity_bytes); 0 otherwise.
  uint64_t capacity_bytes = 0;
};

struct ExecutableDesc {
  std::string kernel;  // "kiln_<name>" from kiln/kernel_table.def
  std::vector<int64_t> iparams;
  std::vector<float> fparams;
  uint32_t binding_count = 0;
  std::vector<uint64_t> binding_bytes;
};

struct ConstantDesc {
  std::string name;
  ir::ConstantPtr data;
  uint8_t layout = 0;  // fb::ConstantLayout (0 = Plain)
};

// A value left in binding `binding` of a dispatch (debug info for dumps).
struct ValueDebugDesc {
  std::string name;
  ir::DType dtype = ir::DType::Unknown;
  std::vector<int64_t> shape;
  uint32_t binding = 0;
  bool channels_last = false;  // stored N,H,W,C (ir::Value::channels_last)
  // Per dim: the entry function's integer register holding a symbolic dim
  // (shape -1 there), -1 for a static one; empty when the shape is static.
  std::vector<int32_t> dim_registers;
};

struct DispatchDebugDesc {
  uint32_t function = 0;  // 0: the entry function
  uint32_t bytecode_offset = 0;
  uint32_t executable = 0;
  std::vector<std::string> nodes;
  std::vector<std::string> op_types;
  std::vector<std::string> outputs;
  std::vector<ValueDebugDesc> values;
};

// An arena tensor's placement and the dispatches that bind it (informational).
struct ArenaTensorDesc {
  std::string value;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t first_dispatch = 0;
  uint32_t last_dispatch = 0;
};

// A function IF and LOOP call (an ONNX subgraph), after the entry.
struct FunctionDesc {
  std::string name;
  std::vector<uint32_t> bytecode;
  uint32_t register_count = 0;
  uint32_t int_register_count = 0;  // its own shape arithmetic (symbols)
};

// An output dimension known only after a run (schemas/module.fbs).
struct ResultSymbolDesc {
  std::string name;
  int64_t bound = 0;
  uint64_t arena_offset = 0;
};

struct LoweredModule {
  std::string source;
  std::vector<TensorDesc> inputs;
  std::vector<TensorDesc> outputs;
  std::vector<std::pair<std::string, ir::ConstantPtr>> bound_inputs;  // ir::Graph's
  std::vector<ExecutableDesc> executables;
  std::vector<ConstantDesc> constants;
  std::vector<uint32_t> bytecode;  // functions[0], the entry point
  uint32_t register_count = 0;
  std::vector<FunctionDesc> called_functions;  // functions[1...]
  uint32_t int_register_count = 0;
  std::vector<std::string> symbols;  // symbolic dimensions, ISYM order
  std::vector<ResultSymbolDesc> result_symbols;
  int32_t workspace_register = -1;   // integer register with the workspace bytes
  uint64_t arena_size = 0;
  // The largest trip count of a LOOP reading it from a constant, over every
  // function (Module.max_trip_count: readers refuse larger constant ones).
  int64_t max_trip_count = 0;
  // While lowering: where the called functions' tensors end, when that
  // depends on the symbols (an encoded dim; 0 otherwise).
  int64_t called_workspace_end = 0;
  // While lowering: the arena offsets of the counts that called functions'
  // kernels write (by data symbol; the entry's come from its plan).
  std::map<int32_t, uint64_t> called_count_offsets;
  // The entry plan's slots for them (MemoryPlan::callee_count_slots).
  std::map<int32_t, uint64_t> callee_count_slots;
  uint32_t arena_alignment = 64;
  uint64_t live_bytes_lower_bound = 0;
  uint64_t unshared_bytes = 0;
  std::vector<DispatchDebugDesc> dispatches;
  std::vector<ArenaTensorDesc> arena_tensors;
};

// One executable + DISPATCH per kernel-backed node (Concat: one per input),
// none for aliases, then the output copies the plan asks for. Errors name the
// file and node; non-float32 tensors in compute kernels are Unimplemented.
absl::StatusOr<LoweredModule> Lower(const ir::Graph& graph, const compiler::MemoryPlan& plan);

}  // namespace kiln::compiler::emit

#endif  // KILN_COMPILER_EMIT_LOWERING_H_
