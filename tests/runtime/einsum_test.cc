// einsum (float32) against numpy.einsum references
// (tests/runtime/make_reference_einsum.py): batches of matrix products, which
// run as GEMMs, and einsums that do not fit that shape, which run the loops.
#include <gtest/gtest.h>

#include "kernel_case.h"

namespace {

KILN_REFERENCE_SUITE(EinsumReference, "einsum.attention_scores", "einsum.attention_apply",
                     "einsum.transposed_output", "einsum.transposed_batched",
                     "einsum.merged_rows", "einsum.matrix_vector",
                     "einsum.diagonal_rows", "einsum.two_summed_letters",
                     "einsum.batch_letter_last", "einsum.separate_rows");

}  // namespace
