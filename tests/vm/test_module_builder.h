// Builds small modules by hand for VM and AOT tests: a copy kernel between an
// input and an output through the arena, plus knobs to break each rule the
// verifier enforces.
#ifndef KILN_TESTS_VM_TEST_MODULE_BUILDER_H_
#define KILN_TESTS_VM_TEST_MODULE_BUILDER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "flatbuffers/flatbuffers.h"
#include "kiln/module_generated.h"
#include "kiln/opcodes.h"

namespace kiln::testing {

constexpr int64_t kDefaultBytes = INT64_MIN;

struct CopyModuleSpec {
  int64_t elements = 4;           // float32 [elements] input and output
  uint64_t arena_size = 64;       // the arena holds the intermediate copy
  uint64_t arena_view_offset = 0;
  uint32_t register_count = 3;
  uint32_t format_version = KILN_FORMAT_VERSION;
  std::string kernel = "kiln_copy";
  uint32_t binding_count = 2;
  int64_t copy_bytes = kDefaultBytes;  // kDefaultBytes: elements * 4
  std::vector<uint32_t> bytecode; // default: the straight-line program below
  // Non-empty: a second copy executable with these iparams that no
  // instruction dispatches (so no kernel checker sees them).
  std::vector<int64_t> unused_executable_iparams;
};

// input -> copy -> arena -> copy -> output.
inline std::vector<uint32_t> DefaultCopyBytecode(uint64_t arena_offset, uint64_t view_bytes) {
  return {KILN_OP_VIEW_INPUT, 0, 0,
          KILN_OP_VIEW_ARENA, 1, static_cast<uint32_t>(arena_offset),
          static_cast<uint32_t>(arena_offset >> 32), static_cast<uint32_t>(view_bytes),
          static_cast<uint32_t>(view_bytes >> 32),
          KILN_OP_VIEW_OUTPUT, 2, 0,
          KILN_OP_DISPATCH, 0, 2, 0, 1,
          KILN_OP_DISPATCH, 0, 2, 1, 2,
          KILN_OP_RETURN};
}

inline std::string BuildCopyModule(const CopyModuleSpec& spec) {
  flatbuffers::FlatBufferBuilder b;
  const int64_t bytes = spec.copy_bytes == kDefaultBytes ? spec.elements * 4 : spec.copy_bytes;
  std::vector<int64_t> shape = {spec.elements};
  auto in = fb::CreateTensorDesc(b, b.CreateString("x"), fb::DType::F32, b.CreateVector(shape));
  auto out = fb::CreateTensorDesc(b, b.CreateString("y"), fb::DType::F32, b.CreateVector(shape));
  auto sig = fb::CreateSignature(b, b.CreateVector(std::vector{in}), b.CreateVector(std::vector{out}));
  std::vector<int64_t> iparams = {bytes};
  std::vector<uint64_t> binding_bytes(spec.binding_count, static_cast<uint64_t>(bytes));
  std::vector<flatbuffers::Offset<fb::Executable>> execs = {
      fb::CreateExecutable(b, b.CreateString(spec.kernel), b.CreateVector(iparams), 0,
                           spec.binding_count, b.CreateVector(binding_bytes))};
  if (!spec.unused_executable_iparams.empty()) {
    execs.push_back(fb::CreateExecutable(b, b.CreateString("kiln_copy"),
                                         b.CreateVector(spec.unused_executable_iparams), 0, 2,
                                         b.CreateVector(std::vector<uint64_t>(2, 16))));
  }
  std::vector<uint32_t> code = spec.bytecode.empty()
                                   ? DefaultCopyBytecode(spec.arena_view_offset,
                                                         static_cast<uint64_t>(spec.elements * 4))
                                   : spec.bytecode;
  auto fn = fb::CreateFunction(b, b.CreateString("main"), spec.register_count, b.CreateVector(code));
  auto plan = fb::CreateMemoryPlan(b, spec.arena_size, 64);
  std::vector<std::string> nodes = {"copy_node"};
  std::vector<std::string> ops = {"Identity"};
  auto dbg = fb::CreateDispatchDebug(b, 12, 0, b.CreateVectorOfStrings(nodes),
                                     b.CreateVectorOfStrings(ops));
  auto debug = fb::CreateDebugInfo(b, b.CreateString("hand-built"), b.CreateVector(std::vector{dbg}));
  auto module = fb::CreateModule(b, spec.format_version, b.CreateString("test"), sig,
                                 b.CreateVector(std::vector{fn}), b.CreateVector(execs),
                                 0, 0, plan, debug);
  fb::FinishModuleBuffer(b, module);
  return std::string(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
}

}  // namespace kiln::testing

#endif  // KILN_TESTS_VM_TEST_MODULE_BUILDER_H_
