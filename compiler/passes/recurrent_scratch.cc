#include "compiler/passes/recurrent_scratch.h"

#include "kiln/kernels.h"

namespace kiln::compiler {

int64_t RecurrentScratchFloats(ir::DimPool& dims, int64_t cell, int64_t seq, int64_t input,
                               int64_t hidden, int64_t dirs, bool packed) {
  if (!ir::IsSymbolic(seq)) {
    return kiln_recurrent_scratch_floats(cell, seq, input, hidden, dirs, packed ? 1 : 0);
  }
  // Everything but the chunk of steps is static: the count at seq = 1 less
  // its one-step chunk, plus the chunk min(seq, steps that fit) (the kernel
  // header's kiln_recurrent_chunk; at least one step).
  const int64_t at_one = kiln_recurrent_scratch_floats(cell, 1, input, hidden, 1, packed ? 1 : 0);
  if (at_one < 0) return -1;
  const int64_t gates = cell == 2 ? 4 : cell == 1 ? 3 : 1;
  const int64_t cols = gates * ((hidden + 15) / 16 * 16);
  const int64_t cap = int64_t{1} << 16;
  const int64_t fit = cols > 0 && cap / cols > 0 ? cap / cols : 1;
  const int64_t chunk = cols > 0 ? dims.Min(seq, fit) : seq;
  const int64_t per_dir = dims.Add(at_one - cols, dims.Mul(chunk, cols));
  return dims.Mul(per_dir, dirs);
}

}  // namespace kiln::compiler
