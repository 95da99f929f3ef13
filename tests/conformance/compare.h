// The ONNX backend test comparison: floats within atol + rtol * |ref| (NaN
// matches NaN, infinities must be equal), integers and bools exactly; dtype
// and shape must match.
#ifndef KILN_TESTS_CONFORMANCE_COMPARE_H_
#define KILN_TESTS_CONFORMANCE_COMPARE_H_

#include <string>

#include "vm/tools/npy.h"

namespace kiln::conformance {

constexpr double kRtol = 1e-3;
constexpr double kAtol = 1e-7;

// Empty when `got` matches `ref`; otherwise a one-line reason naming the
// first mismatch (e.g. "numerics: max |diff| 0.5 at element 3 (got 1, ref 1.5)").
std::string CompareTensors(const vm::NpyArray& got, const vm::NpyArray& ref);

// Element k as double (float16 decoded), for messages and float comparison.
double ElementAsDouble(const vm::NpyArray& a, int64_t k);

}  // namespace kiln::conformance

#endif  // KILN_TESTS_CONFORMANCE_COMPARE_H_
