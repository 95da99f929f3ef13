// Fuzz target: .npy parsing (the format kiln run reads user tensors in).
#include <cstdint>
#include <string>

#include "vm/tools/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto array = kiln::vm::ParseNpy(std::string(reinterpret_cast<const char*>(data), size), "fuzz.npy");
  if (array.ok()) {
    // What parses must serialise and parse back to the same tensor.
    auto again = kiln::vm::ParseNpy(kiln::vm::SerializeNpy(*array), "again.npy");
    if (!again.ok() || again->shape != array->shape || again->data != array->data) __builtin_trap();
  }
  return 0;
}
