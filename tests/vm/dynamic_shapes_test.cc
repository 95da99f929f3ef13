// Symbolic dimensions in the VM: symbols bound from input shapes, integer
// bytecode sizing the views, the workspace reserved before runs, and each
// run-time check of the *_DYN opcodes failing with an error, never a fault.
#include <vector>

#include "gtest/gtest.h"
#include "tests/vm/dynamic_module_builder.h"
#include "vm/instance.h"

namespace kiln::vm {
namespace {

using kiln::testing::BuildDynamicCopyModule;
using kiln::testing::DynamicCopySpec;

absl::StatusOr<std::shared_ptr<const ModuleImage>> Load(const DynamicCopySpec& spec) {
  const std::string bytes = BuildDynamicCopyModule(spec);
  return ModuleImage::LoadBytes(bytes.data(), bytes.size(), "dyn.kiln");
}

std::unique_ptr<Instance> MakeInstance(const DynamicCopySpec& spec = {}) {
  auto image = Load(spec);
  EXPECT_TRUE(image.ok()) << image.status();
  auto instance = Instance::Create(*image);
  EXPECT_TRUE(instance.ok()) << instance.status();
  return std::move(*instance);
}

void ExpectRejected(const DynamicCopySpec& spec, const std::string& fragment) {
  auto image = Load(spec);
  ASSERT_FALSE(image.ok());
  EXPECT_NE(std::string(image.status().message()).find(fragment), std::string::npos)
      << image.status().message();
}

TEST(DynamicShapes, OneModuleRunsAtEveryBatch) {
  auto instance = MakeInstance();
  ASSERT_TRUE(instance->has_symbols());
  for (int64_t n : {1, 3, 7}) {
    std::vector<float> in(static_cast<size_t>(n * 4)), out(in.size(), -1.0f);
    for (size_t k = 0; k < in.size(); ++k) in[k] = 0.5f * static_cast<float>(k) - 3.0f;
    const int64_t shape[] = {n, 4};
    HostTensor x{fb::DType::F32, shape, in.data(), in.size() * 4};
    HostTensor y{fb::DType::F32, shape, out.data(), out.size() * 4};
    ASSERT_TRUE(instance->Reserve({x}).ok());
    EXPECT_EQ(instance->workspace_needed(), static_cast<uint64_t>(n * 16));
    EXPECT_EQ(instance->OutputShape(0), (std::vector<int64_t>{n, 4}));
    ASSERT_TRUE(instance->Run({x}, {y}).ok());
    EXPECT_EQ(out, in);  // a copy through the workspace
  }
}

TEST(DynamicShapes, RunRefusesMoreWorkspaceThanReserved) {
  auto instance = MakeInstance();
  std::vector<float> buf(12);
  const int64_t one[] = {1, 4}, three[] = {3, 4};
  ASSERT_TRUE(instance->Reserve({HostTensor{fb::DType::F32, one, buf.data(), 16}}).ok());
  absl::Status s = instance->Run({HostTensor{fb::DType::F32, three, buf.data(), 48}},
                                 {HostTensor{fb::DType::F32, three, buf.data(), 48}});
  ASSERT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_NE(std::string(s.message()).find("48-byte workspace"), std::string::npos) << s;
}

TEST(DynamicShapes, RefusesBadSymbolValues) {
  auto instance = MakeInstance();
  std::vector<float> buf(8);
  const int64_t empty[] = {0, 4}, wrong_static[] = {2, 5};
  absl::Status s = instance->Reserve({HostTensor{fb::DType::F32, empty, buf.data(), 0}});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("symbol 'N' = 0 is outside 1..2^40"), std::string::npos)
      << s;
  s = instance->Reserve({HostTensor{fb::DType::F32, wrong_static, buf.data(), 32}});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("has shape [2,5]; the module expects [2,4]"),
            std::string::npos)
      << s;
}

TEST(DynamicShapes, OutputBufferMustMatchTheBoundShape) {
  auto instance = MakeInstance();
  std::vector<float> buf(8);
  const int64_t two[] = {2, 4}, one[] = {1, 4};
  ASSERT_TRUE(instance->Reserve({HostTensor{fb::DType::F32, two, buf.data(), 32}}).ok());
  absl::Status s = instance->Run({HostTensor{fb::DType::F32, two, buf.data(), 32}},
                                 {HostTensor{fb::DType::F32, one, buf.data(), 16}});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("output 0 ('y') has shape [1,4]"), std::string::npos) << s;
}

TEST(DynamicShapes, ShapeArithmeticOverflowIsAnError) {
  DynamicCopySpec spec;
  spec.row_bytes = int64_t{1} << 62;  // N * 2^62 overflows int64 for N = 2
  auto instance = MakeInstance(spec);
  std::vector<float> buf(8);
  const int64_t two[] = {2, 4};
  absl::Status s = instance->Reserve({HostTensor{fb::DType::F32, two, buf.data(), 32}});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("shape arithmetic overflows"), std::string::npos) << s;
}

TEST(DynamicShapes, ArenaViewOutsideTheWorkspaceFailsTheRun) {
  DynamicCopySpec spec;
  spec.workspace_register = -1;  // the module does not state its workspace
  auto instance = MakeInstance(spec);
  std::vector<float> buf(8);
  const int64_t two[] = {2, 4};
  HostTensor t{fb::DType::F32, two, buf.data(), 32};
  ASSERT_TRUE(instance->Reserve({t}).ok());  // reserves the static arena: 0 bytes
  absl::Status s = instance->Run({t}, {t});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("VIEW_ARENA_DYN failed"), std::string::npos) << s;
}

// An output dim that is an expression of the symbols (S + T rows) comes
// from the integer register the module names for it.
TEST(DynamicShapes, AnOutputDimMayBeAnExpressionInARegister) {
  DynamicCopySpec spec;
  spec.output_dim_name = "N*1";   // held by n0 (= N); the name is only shown
  spec.output_dim_registers = {0, -1};
  auto instance = MakeInstance(spec);
  std::vector<float> in(12, 1.5f), out(12, 0.0f);
  const int64_t shape[] = {3, 4};
  HostTensor x{fb::DType::F32, shape, in.data(), 48};
  HostTensor y{fb::DType::F32, shape, out.data(), 48};
  ASSERT_TRUE(instance->Reserve({x}).ok());
  EXPECT_EQ(instance->OutputShape(0), (std::vector<int64_t>{3, 4}));
  ASSERT_TRUE(instance->Run({x}, {y}).ok());
  EXPECT_EQ(out, in);
  const int64_t wrong[] = {2, 4};
  HostTensor small{fb::DType::F32, wrong, out.data(), 32};
  absl::Status s = instance->Run({x}, {small});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("output 0 ('y') has shape [2,4]; the module expects [3,4]"),
            std::string::npos)
      << s.message();

  DynamicCopySpec beyond = spec;
  beyond.output_dim_registers = {9, -1};
  ExpectRejected(beyond, "signature output 0 dim 0 names integer register 9");
  DynamicCopySpec on_input = spec;
  on_input.input_dim_registers = {0, -1};
  ExpectRejected(on_input, "signature input 0 has dim registers but is no output");
}

TEST(DynamicShapes, VerifierChecksTheDynamicOpcodes) {
  DynamicCopySpec unknown_symbol;
  unknown_symbol.input_symbol = "M";
  ExpectRejected(unknown_symbol, "names unknown symbol 'M'");

  DynamicCopySpec read_before_set;
  read_before_set.bytecode = {KILN_OP_IMUL, 2, 0, 1, KILN_OP_RETURN};
  ExpectRejected(read_before_set, "integer register n0 is read before it is set");

  DynamicCopySpec out_of_range;
  out_of_range.bytecode = {KILN_OP_ISYM, 9, 0, KILN_OP_RETURN};
  ExpectRejected(out_of_range, "integer register n9 out of range");

  DynamicCopySpec bad_symbol;
  bad_symbol.bytecode = {KILN_OP_ISYM, 0, 4, KILN_OP_RETURN};
  ExpectRejected(bad_symbol, "symbol 4 out of range");

  // A static DISPATCH may not bind a view whose size is only known at run time.
  DynamicCopySpec static_dispatch;
  static_dispatch.bytecode = {KILN_OP_ISYM, 0, 0, KILN_OP_VIEW_INPUT_DYN, 0, 0, 0,
                              KILN_OP_VIEW_OUTPUT_DYN, 2, 0, 0, KILN_OP_DISPATCH, 0, 2, 0, 2,
                              KILN_OP_RETURN};
  ExpectRejected(static_dispatch, "only DISPATCH_DYN may bind it");

  DynamicCopySpec bad_patch;
  bad_patch.bytecode = {KILN_OP_ISYM, 0, 0, KILN_OP_VIEW_INPUT_DYN, 0, 0, 0,
                        KILN_OP_VIEW_OUTPUT_DYN, 2, 0, 0,
                        KILN_OP_DISPATCH_DYN, 0, 2, 0, 2, 1, 7, 0, KILN_OP_RETURN};
  ExpectRejected(bad_patch, "names iparam 7");

  DynamicCopySpec writes_input;
  writes_input.bytecode = {KILN_OP_ISYM, 0, 0, KILN_OP_VIEW_INPUT_DYN, 0, 0, 0,
                           KILN_OP_VIEW_OUTPUT_DYN, 2, 0, 0,
                           KILN_OP_DISPATCH_DYN, 0, 2, 2, 0, 0, KILN_OP_RETURN};
  ExpectRejected(writes_input, "is written by kiln_copy but views an input");
}

}  // namespace
}  // namespace kiln::vm
