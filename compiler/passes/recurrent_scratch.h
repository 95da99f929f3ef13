// The scratch of the recurrent kernels (kiln_recurrent_scratch_floats in
// kiln/kernels.h) as a dim: the number for a static sequence length, else the
// same formula through the pool, so a symbolic length plans a workspace
// formula. The shape rule sizes the scratch output with it and the lowering
// checks the planned one against it.
#ifndef KILN_COMPILER_PASSES_RECURRENT_SCRATCH_H_
#define KILN_COMPILER_PASSES_RECURRENT_SCRATCH_H_

#include <cstdint>

#include "compiler/ir/dim_expr.h"

namespace kiln::compiler {

// -1 when the static count overflows (as the kernel header's).
int64_t RecurrentScratchFloats(ir::DimPool& dims, int64_t cell, int64_t seq, int64_t input,
                               int64_t hidden, int64_t dirs, bool packed);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_RECURRENT_SCRATCH_H_
