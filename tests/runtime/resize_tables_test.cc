// resize_f32 (tap tables fixed by the compiler) against its contract applied
// in NumPy (tests/runtime/make_reference_resize_tables.py): bilinear
// upsampling, four-tap random tables, extrapolated outputs, one axis, and
// more outer tap combinations than a row lists.
#include <gtest/gtest.h>

#include "kernel_case.h"

namespace {

KILN_REFERENCE_SUITE(ResizeTablesReference, "resize_f32.bilinear_upsample_2d",
                     "resize_f32.four_taps_random", "resize_f32.extrapolated_edges",
                     "resize_f32.one_axis", "resize_f32.many_outer_combinations");

}  // namespace
