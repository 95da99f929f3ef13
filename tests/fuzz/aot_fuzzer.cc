// Fuzz target: AOT transpilation of every module the verifier accepts. The
// emitter must never crash on a verified module; scripts/fuzz.sh additionally
// compiles the bundles of the corpus with cc to check the C is valid.
#include <cstdint>

#include "aot/c_emitter.h"
#include "vm/module_image.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto image = kiln::vm::ModuleImage::LoadBytes(data, size, "fuzz.kiln");
  if (!image.ok()) return 0;
  kiln::aot::AotOptions options;
  options.name = "fuzz";
  auto files = kiln::aot::EmitBundle(**image, options);
  if (!files.ok()) __builtin_trap();  // a verified module must always transpile
  return 0;
}
