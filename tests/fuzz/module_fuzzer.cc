// Fuzz target: module load + verify, then run every module the verifier
// accepts on zero-filled inputs. The verifier is the only guard before the
// interpreter and kernels run unchecked, so any crash or sanitizer report
// here is a verifier bug.
#include <cstdint>
#include <cstring>
#include <vector>

#include "vm/instance.h"
#include "vm/module_verifier.h"

namespace {

// Inputs larger than this are skipped so the fuzzer stays fast.
constexpr uint64_t kMaxRunBytes = uint64_t{64} << 20;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto image = kiln::vm::ModuleImage::LoadBytes(data, size, "fuzz.kiln");
  if (!image.ok()) return 0;
  const kiln::fb::Module& m = (*image)->module();
  uint64_t total = m.memory()->arena_size();
  for (const auto* t : *m.signature()->inputs()) total += kiln::vm::TensorDescBytes(*t);
  for (const auto* t : *m.signature()->outputs()) total += kiln::vm::TensorDescBytes(*t);
  if (total > kMaxRunBytes || m.signature()->inputs()->size() > 16 ||
      m.signature()->outputs()->size() > 16) {
    return 0;
  }
  auto instance = kiln::vm::Instance::Create(*image);
  if (!instance.ok()) return 0;
  std::vector<std::vector<uint8_t>> inputs, outputs;
  std::vector<const void*> in;
  std::vector<void*> out;
  for (const auto* t : *m.signature()->inputs()) {
    inputs.emplace_back(kiln::vm::TensorDescBytes(*t) + 1, 0);
    in.push_back(inputs.back().data());
  }
  for (const auto* t : *m.signature()->outputs()) {
    outputs.emplace_back(kiln::vm::TensorDescBytes(*t) + 1, 0);
    out.push_back(outputs.back().data());
  }
  (void)(*instance)->RunUnchecked(in.data(), out.data());
  return 0;
}
