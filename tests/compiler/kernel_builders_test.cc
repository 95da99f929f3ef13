// The generated per-kernel parameter structs (compiler/emit/kernel_builders.h)
// flatten into the order the kernel table names, as the VM reads those names
// (vm/kernel_params.h), and refuse a field left unset or an array of the
// wrong length.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "compiler/emit/kernel_builders.h"
#include "vm/kernel_params.h"

namespace kiln::compiler::emit::kernel {
namespace {

template <typename Params>
KernelParamCollector Collect(const Params& p) {
  KernelParamCollector c(Params::kKernel);
  p.Collect(c);
  return c;
}

// Name -> value as the VM names the collected parameters.
template <typename Params>
std::map<std::string, int64_t> Named(KernelParamCollector& c) {
  std::map<std::string, int64_t> m;
  for (const auto& [name, value] : vm::NameIParams(Params::kKernel, c.ints())) m[name] = value;
  EXPECT_TRUE(vm::ParamNamesFit(Params::kKernel, c.ints(), c.floats())) << Params::kKernel;
  return m;
}

Conv2dF32 DistinctConv() {
  Conv2dF32 p;
  int64_t v = 100;
  for (KernelInt* f : {&p.N, &p.C, &p.H, &p.W, &p.OC, &p.OH, &p.OW, &p.KH, &p.KW, &p.stride_h,
                       &p.stride_w, &p.pad_top, &p.pad_left, &p.dilation_h, &p.dilation_w,
                       &p.groups, &p.activation, &p.has_bias}) {
    *f = v++;
  }
  p.act_alpha = 0.5f;
  p.act_beta = 2.0f;
  return p;
}

TEST(KernelBuilders, AnExtendedStructCollectsItsBaseFirstInTableOrder) {
  Conv2dPackedClF32 p(DistinctConv());
  p.x_channels_last = 1;
  p.y_channels_last = 0;
  KernelParamCollector c = Collect(p);
  ASSERT_EQ(c.error(), "");
  std::map<std::string, int64_t> named = Named<Conv2dPackedClF32>(c);
  EXPECT_EQ(named["N"], 100);
  EXPECT_EQ(named["OC"], 104);
  EXPECT_EQ(named["stride_w"], 110);
  EXPECT_EQ(named["groups"], 115);
  EXPECT_EQ(named["has_bias"], 117);
  EXPECT_EQ(named["x_channels_last"], 1);
  EXPECT_EQ(named["y_channels_last"], 0);
  ASSERT_EQ(c.floats().size(), 2u);
  EXPECT_EQ(c.floats()[0], 0.5f);
  EXPECT_EQ(c.floats()[1], 2.0f);
}

TEST(KernelBuilders, ArraysFollowTheirCounts) {
  MatmulF32 p;
  p.M = 3;
  p.N = 4;
  p.K = 5;
  p.R = 2;
  p.batch_dims = {6, 7};
  p.a_batch_strides = {60, 0};
  p.b_batch_strides = {0, 20};
  KernelParamCollector c = Collect(p);
  ASSERT_EQ(c.error(), "");
  std::map<std::string, int64_t> named = Named<MatmulF32>(c);
  EXPECT_EQ(named["batch_dims[1]"], 7);
  EXPECT_EQ(named["a_batch_strides[0]"], 60);
  EXPECT_EQ(named["b_batch_strides[1]"], 20);
}

TEST(KernelBuilders, RefusesAFieldLeftUnset) {
  Conv2dF32 p = DistinctConv();
  p.groups = KernelInt();
  KernelParamCollector c = Collect(p);
  EXPECT_EQ(c.error(), "kernel conv2d_f32: parameter 'groups' was not set");
  Conv2dF32 q = DistinctConv();
  q.act_beta = KernelFloat();
  EXPECT_EQ(Collect(q).error(), "kernel conv2d_f32: parameter 'act_beta' was not set");
}

TEST(KernelBuilders, RefusesAnArrayOfTheWrongLength) {
  MatmulF32 p;
  p.M = p.N = p.K = 1;
  p.R = 2;
  p.batch_dims = {6, 7};
  p.a_batch_strides = {1};
  p.b_batch_strides = {1, 1};
  EXPECT_EQ(Collect(p).error(),
            "kernel matmul_f32: parameter 'a_batch_strides' has 1 entries, not its count 2");
}

}  // namespace
}  // namespace kiln::compiler::emit::kernel
