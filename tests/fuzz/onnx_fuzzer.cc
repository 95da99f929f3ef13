// Fuzz target: ONNX import and the whole compiler pipeline on arbitrary
// bytes. Every input must end in a module or an error status — never a
// crash, hang or sanitizer report.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "compiler/compiler.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The compiler reads files; give it one in memory-backed storage.
  static const std::string path = "/dev/shm/kiln_onnx_fuzz_" + std::to_string(::getpid()) + ".onnx";
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  (void)kiln::compiler::BuildModule(path, {});
  return 0;
}
