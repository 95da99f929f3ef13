// pool_nd against the ONNX pooling definition written out in NumPy
// (tests/runtime/make_reference_pool_nd.py): 1-, 2- and 3-D float32 windows,
// max and average, pads, dilations, ceil-mode outputs, empty windows, NaN;
// rows wide enough for the separable max pool's vectors, and one too long
// for its stack buffer.
#include <gtest/gtest.h>

#include "kernel_case.h"

namespace {

KILN_REFERENCE_SUITE(PoolNdReference, "pool_nd.max3d_same", "pool_nd.max3d_spatial_stride2",
                     "pool_nd.max3d_dilated", "pool_nd.avg3d_asym_ceil",
                     "pool_nd.avg3d_asym_ceil_count_pad", "pool_nd.max3d_windows_in_padding",
                     "pool_nd.avg3d_windows_in_padding", "pool_nd.max3d_nan", "pool_nd.avg1d",
                     "pool_nd.max2d", "pool_nd.max3d_wide_rows_nan",
                     "pool_nd.max3d_wide_stride2_dilated", "pool_nd.max3d_row_past_stack");

}  // namespace
