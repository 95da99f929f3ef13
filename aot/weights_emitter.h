// Constant data as C source that compiles quickly even at tens of megabytes:
// one string literal (compilers scan these linearly) instead of an integer
// array initialiser (one AST node per element).
#ifndef KILN_AOT_WEIGHTS_EMITTER_H_
#define KILN_AOT_WEIGHTS_EMITTER_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace kiln::aot {

// A translation unit defining `const unsigned char SYMBOL[SIZE]`, 64-byte
// aligned, holding `size` bytes of `data`.
std::string EmitWeightsSource(const std::string& symbol, const uint8_t* data, size_t size);

}  // namespace kiln::aot

#endif  // KILN_AOT_WEIGHTS_EMITTER_H_
