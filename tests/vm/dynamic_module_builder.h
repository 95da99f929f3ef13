// Builds a small module with a symbolic dimension by hand: float32 [N,4] in,
// the same out, copied through the workspace with sizes computed by integer
// bytecode. Knobs break each run-time or verifier rule of the dynamic opcodes.
#ifndef KILN_TESTS_VM_DYNAMIC_MODULE_BUILDER_H_
#define KILN_TESTS_VM_DYNAMIC_MODULE_BUILDER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "flatbuffers/flatbuffers.h"
#include "kiln/module_generated.h"
#include "kiln/opcodes.h"

namespace kiln::testing {

struct DynamicCopySpec {
  std::string input_symbol = "N";       // the name the input's dim 0 carries
  int32_t workspace_register = 2;       // n2 = N*16 bytes
  uint32_t int_register_count = 4;
  int64_t row_bytes = 16;               // ICONST feeding n1
  std::vector<uint32_t> bytecode;       // default: the program below
  // The output's dim 0 as an expression held by an integer register
  // (TensorDesc.dim_registers), and registers put on the input instead.
  std::string output_dim_name = "N";
  std::vector<int32_t> output_dim_registers, input_dim_registers;
};

// n0 = N; n1 = 16; n2 = N*16; n3 = 0; input -> arena -> output.
inline std::vector<uint32_t> DefaultDynamicCopyBytecode(int64_t row_bytes) {
  const uint64_t rb = static_cast<uint64_t>(row_bytes);
  return {KILN_OP_ISYM, 0, 0,
          KILN_OP_ICONST, 1, static_cast<uint32_t>(rb), static_cast<uint32_t>(rb >> 32),
          KILN_OP_IMUL, 2, 0, 1,
          KILN_OP_ICONST, 3, 0, 0,
          KILN_OP_VIEW_INPUT_DYN, 0, 0, 2,
          KILN_OP_VIEW_ARENA_DYN, 1, 3, 2,
          KILN_OP_VIEW_OUTPUT_DYN, 2, 0, 2,
          KILN_OP_DISPATCH_DYN, 0, 2, 0, 1, 1, 0, 2,
          KILN_OP_DISPATCH_DYN, 0, 2, 1, 2, 1, 0, 2,
          KILN_OP_RETURN};
}

inline std::string BuildDynamicCopyModule(const DynamicCopySpec& spec) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<int64_t> shape = {-1, 4};
  std::vector<std::string> dims = {spec.input_symbol, ""};
  std::vector<std::string> out_dims = {spec.output_dim_name, ""};
  auto registers = [&](const std::vector<int32_t>& r) {
    return r.empty() ? 0 : b.CreateVector(r);
  };
  auto in = fb::CreateTensorDesc(b, b.CreateString("x"), fb::DType::F32, b.CreateVector(shape),
                                 b.CreateVectorOfStrings(dims), registers(spec.input_dim_registers));
  auto out = fb::CreateTensorDesc(b, b.CreateString("y"), fb::DType::F32, b.CreateVector(shape),
                                  b.CreateVectorOfStrings(out_dims),
                                  registers(spec.output_dim_registers));
  auto sig = fb::CreateSignature(b, b.CreateVector(std::vector{in}), b.CreateVector(std::vector{out}));
  std::vector<int64_t> iparams = {0};  // patched with N*16 at run time
  std::vector<uint64_t> binding_bytes = {UINT64_MAX, UINT64_MAX};
  auto exec = fb::CreateExecutable(b, b.CreateString("kiln_copy"), b.CreateVector(iparams), 0, 2,
                                   b.CreateVector(binding_bytes));
  std::vector<uint32_t> code =
      spec.bytecode.empty() ? DefaultDynamicCopyBytecode(spec.row_bytes) : spec.bytecode;
  auto fn = fb::CreateFunction(b, b.CreateString("main"), 3, b.CreateVector(code),
                               spec.int_register_count);
  auto plan = fb::CreateMemoryPlan(b, 0, 64, 0, 0, 0, spec.workspace_register);
  std::vector<std::string> symbols = {"N"};
  auto module = fb::CreateModule(b, KILN_FORMAT_VERSION, b.CreateString("test"), sig,
                                 b.CreateVector(std::vector{fn}), b.CreateVector(std::vector{exec}),
                                 0, 0, plan, 0, b.CreateVectorOfStrings(symbols));
  fb::FinishModuleBuffer(b, module);
  return std::string(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
}

}  // namespace kiln::testing

#endif  // KILN_TESTS_VM_DYNAMIC_MODULE_BUILDER_H_
