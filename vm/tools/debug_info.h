// The dispatches of a module, function by function in bytecode order (the
// interpreter's dispatch ordinals), joined with
// their debug info (ONNX nodes, the values each leaves in its bindings) and
// checked against the executables, so tools can read intermediate tensors
// safely. Built once before a run; observers index it by dispatch ordinal.
#ifndef KILN_VM_TOOLS_DEBUG_INFO_H_
#define KILN_VM_TOOLS_DEBUG_INFO_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kiln/module_generated.h"
#include "vm/module_image.h"

namespace kiln::vm {

struct ValueInfo {
  std::string name;   // the ONNX value
  fb::DType dtype = fb::DType::Unknown;
  std::vector<int64_t> shape;
  uint32_t binding = 0;  // which of the dispatch's bindings holds it
  uint64_t bytes = 0;    // elements * dtype size (<= that binding's bytes)
  bool channels_last = false;  // bytes are N,H,W,C for the N,C,H,W shape
  // Symbolic dims: per dim, the entry function's integer register holding
  // it in a run (its `shape` entry is -1), or -1 for a static dim; empty
  // when the shape is static. `bytes` is then 0: a run gives the real shape
  // (ValueInRun). `dim_exprs` spells each dim ("N", "S + T", "8").
  std::vector<int32_t> dim_registers;
  std::vector<std::string> dim_exprs;
  bool symbolic() const { return !dim_registers.empty(); }
};

// `v` as one run has it: each symbolic dim read from that run's integer
// registers (`count` of them), bytes recomputed and checked against
// `binding_bytes`, the bytes its binding views in that run. Fails (naming
// the value) on a register out of range, a negative or overflowing dim, or
// more bytes than the binding holds; never reads outside `int_registers`.
absl::StatusOr<ValueInfo> ValueInRun(const ValueInfo& v, const int64_t* int_registers,
                                     uint32_t count, uint64_t binding_bytes);
// "[N,8,16,16]" for a symbolic value, else ShapeText(shape).
std::string ValueShapeText(const ValueInfo& v);

// The value's bytes in C order of its shape (transposed back when the
// binding holds it channels last).
std::vector<uint8_t> ValueBytes(const ValueInfo& v, const void* binding);
// The C-order index of its shape of the element stored at `stored`.
uint64_t ValueIndexOfStored(const ValueInfo& v, uint64_t stored);

struct DispatchInfo {
  uint32_t index = 0;       // ordinal among all functions' DISPATCHes
  uint32_t function = 0;    // the function holding it (0: the entry)
  uint32_t pc = 0;          // word offset of the DISPATCH in that function
  uint32_t executable = 0;
  std::string kernel;       // runtime symbol, e.g. "kiln_conv2d_f32"
  std::vector<std::string> nodes;     // ONNX nodes fused into it (may be empty)
  std::vector<std::string> op_types;  // their op types
  std::vector<std::string> outputs;   // ONNX values it writes
  std::vector<uint64_t> binding_bytes;
  std::vector<ValueInfo> values;      // values complete after it
  double flops = -1;                  // per call; -1 when unknown
  bool dynamic = false;               // DISPATCH_DYN: sizes patched per run

  // "Conv_0+Relu_1", or "dispatch 3" without debug info.
  std::string Label() const;
  // "Conv+Relu", or the kernel name without debug info.
  std::string OpPattern() const;
  // The first op type, or the kernel name.
  std::string PrimaryOp() const;
  uint64_t TotalBindingBytes() const;
};

// Fails (InvalidArgument naming the module and dispatch) when debug info
// points outside a dispatch's bindings or claims more bytes than they hold.
absl::StatusOr<std::vector<DispatchInfo>> DescribeDispatches(const ModuleImage& image);

// "[1,3,224,224]"
std::string ShapeText(const std::vector<int64_t>& shape);

}  // namespace kiln::vm

#endif  // KILN_VM_TOOLS_DEBUG_INFO_H_
