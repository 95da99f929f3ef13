// Kernel static parameters by name (runtime/include/kiln/kernel_table.def)
// and the FLOPs of the kernels that know them: for kiln inspect and profiles.
#ifndef KILN_VM_KERNEL_PARAMS_H_
#define KILN_VM_KERNEL_PARAMS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace kiln::vm {

// (name, value) for each iparam of `kernel` ("kiln_conv2d_f32" or
// "conv2d_f32"). Parameters the table does not name are called "i<k>".
std::vector<std::pair<std::string, int64_t>> NameIParams(absl::string_view kernel,
                                                         absl::Span<const int64_t> iparams);
std::vector<std::pair<std::string, float>> NameFParams(absl::string_view kernel,
                                                       absl::Span<const float> fparams);

// Whether the table's names describe exactly these parameters: every value
// named, every plain name given a value (the verifier refuses executables
// whose parameters do not fit).
bool ParamNamesFit(absl::string_view kernel, absl::Span<const int64_t> iparams,
                   absl::Span<const float> fparams);

// Floating-point operations of one call (a multiply-add counts 2), or -1 when
// the kernel does not say (only conv2d, gemm and matmul do).
double KernelFlops(absl::string_view kernel, absl::Span<const int64_t> iparams);

}  // namespace kiln::vm

#endif  // KILN_VM_KERNEL_PARAMS_H_
