// The compiler's own dtype meets the module format and the kernels' codes
// (compiler/emit/dtype_codes.h) with the same sizes and names, and each
// kernel code is the one kiln/kernel_abi.h defines.
#include <gtest/gtest.h>

#include <string>

#include "compiler/emit/dtype_codes.h"
#include "kiln/kernel_abi.h"
#include "vm/dtype.h"

namespace kiln::compiler::emit {
namespace {

TEST(DTypeCodes, EveryDTypeKeepsItsSizeAndNameInTheModule) {
  for (int k = 0; k <= static_cast<int>(ir::DType::BF16); ++k) {
    const auto t = static_cast<ir::DType>(k);
    EXPECT_EQ(ir::DTypeSize(t), ::kiln::DTypeSize(ModuleDType(t))) << k;
    EXPECT_EQ(std::string(ir::DTypeName(t)), ::kiln::DTypeName(ModuleDType(t))) << k;
  }
  EXPECT_EQ(ModuleDType(ir::DType::Unknown), fb::DType::Unknown);
}

TEST(DTypeCodes, KernelCodesAreTheKernelAbisNumbers) {
  EXPECT_EQ(KernelDTypeCode(ir::DType::F32), KILN_DTYPE_F32);
  EXPECT_EQ(KernelDTypeCode(ir::DType::F16), KILN_DTYPE_F16);
  EXPECT_EQ(KernelDTypeCode(ir::DType::F64), KILN_DTYPE_F64);
  EXPECT_EQ(KernelDTypeCode(ir::DType::I8), KILN_DTYPE_I8);
  EXPECT_EQ(KernelDTypeCode(ir::DType::I16), KILN_DTYPE_I16);
  EXPECT_EQ(KernelDTypeCode(ir::DType::I32), KILN_DTYPE_I32);
  EXPECT_EQ(KernelDTypeCode(ir::DType::I64), KILN_DTYPE_I64);
  EXPECT_EQ(KernelDTypeCode(ir::DType::U8), KILN_DTYPE_U8);
  EXPECT_EQ(KernelDTypeCode(ir::DType::Bool), KILN_DTYPE_BOOL);
  EXPECT_EQ(KernelDTypeCode(ir::DType::U16), KILN_DTYPE_U16);
  EXPECT_EQ(KernelDTypeCode(ir::DType::U32), KILN_DTYPE_U32);
  EXPECT_EQ(KernelDTypeCode(ir::DType::U64), KILN_DTYPE_U64);
  EXPECT_EQ(KernelDTypeCode(ir::DType::BF16), KILN_DTYPE_BF16);
}

}  // namespace
}  // namespace kiln::compiler::emit
