// The verifier accepts a well-formed module and refuses each kind of broken
// one with a message naming the check and the place.
#include <random>

#include "gtest/gtest.h"
#include "tests/vm/test_module_builder.h"
#include "vm/module_image.h"

namespace kiln::vm {
namespace {

using kiln::testing::BuildCopyModule;
using kiln::testing::CopyModuleSpec;

absl::Status Load(const std::string& bytes) {
  return ModuleImage::LoadBytes(bytes.data(), bytes.size(), "test.kiln").status();
}

void ExpectRefused(const std::string& bytes, const std::string& fragment) {
  absl::Status status = Load(bytes);
  ASSERT_FALSE(status.ok()) << "expected an error containing: " << fragment;
  EXPECT_NE(std::string(status.message()).find(fragment), std::string::npos) << status.message();
  EXPECT_NE(std::string(status.message()).find("test.kiln"), std::string::npos) << status.message();
}

TEST(ModuleVerifier, AcceptsWellFormedModule) {
  EXPECT_TRUE(Load(BuildCopyModule({})).ok()) << Load(BuildCopyModule({})).message();
}

TEST(ModuleVerifier, RefusesRandomBytes) {
  std::mt19937 rng(7);
  std::string bytes(4096, '\0');
  for (char& c : bytes) c = static_cast<char>(rng());
  ExpectRefused(bytes, "not a Kiln module");
}

TEST(ModuleVerifier, RefusesEveryTruncation) {
  const std::string good = BuildCopyModule({});
  for (size_t len = 1; len < good.size(); len += 7) {
    EXPECT_FALSE(Load(good.substr(0, len)).ok()) << "truncated to " << len;
  }
}

TEST(ModuleVerifier, RefusesWrongFormatVersion) {
  CopyModuleSpec spec;
  spec.format_version = 99;
  ExpectRefused(BuildCopyModule(spec), "format version 99");
}

TEST(ModuleVerifier, RefusesUnknownKernel) {
  CopyModuleSpec spec;
  spec.kernel = "kiln_no_such_kernel";
  ExpectRefused(BuildCopyModule(spec), "unknown kernel 'kiln_no_such_kernel'");
}

TEST(ModuleVerifier, RefusesWrongBindingCount) {
  CopyModuleSpec spec;
  spec.binding_count = 3;
  ExpectRefused(BuildCopyModule(spec), "declares 3 bindings");
}

TEST(ModuleVerifier, RefusesParametersTheKernelRejects) {
  CopyModuleSpec spec;
  spec.copy_bytes = -4;  // a negative byte count
  ExpectRefused(BuildCopyModule(spec), "kernel rejects");
}

// Parameters are checked against the kernel table's names even where no
// kernel checker sees them (an executable nothing dispatches).
TEST(ModuleVerifier, RefusesParametersTheKernelTableDoesNotDescribe) {
  CopyModuleSpec spec;
  spec.unused_executable_iparams = {16};
  ASSERT_TRUE(Load(BuildCopyModule(spec)).ok()) << Load(BuildCopyModule(spec));  // one "bytes": fits
  spec.unused_executable_iparams = {16, 16};
  ExpectRefused(BuildCopyModule(spec),
                "executable 1 (kiln_copy) has 2 iparams and 0 fparams, which its row of the "
                "kernel table does not describe");
}

TEST(ModuleVerifier, RefusesRegisterOutOfRange) {
  CopyModuleSpec spec;
  spec.register_count = 2;  // the program uses r2
  ExpectRefused(BuildCopyModule(spec), "register r2 out of range");
}

TEST(ModuleVerifier, RefusesArenaViewOutsideArena) {
  CopyModuleSpec spec;
  spec.arena_view_offset = 64;  // 64 + 16 > 64-byte arena
  ExpectRefused(BuildCopyModule(spec), "outside the arena");
}

TEST(ModuleVerifier, RefusesBindingSmallerThanKernelNeeds) {
  CopyModuleSpec spec;
  spec.bytecode = kiln::testing::DefaultCopyBytecode(0, 8);  // arena view of 8 < 16 bytes
  ExpectRefused(BuildCopyModule(spec), "needs 16");
}

TEST(ModuleVerifier, RefusesUnknownOpcode) {
  CopyModuleSpec spec;
  spec.bytecode = {0xEE, KILN_OP_RETURN};
  ExpectRefused(BuildCopyModule(spec), "+0: unknown opcode 0xee");
}

TEST(ModuleVerifier, RefusesInstructionPastEnd) {
  CopyModuleSpec spec;
  spec.bytecode = {KILN_OP_VIEW_INPUT, 0};
  ExpectRefused(BuildCopyModule(spec), "runs past the function end");
}

TEST(ModuleVerifier, RefusesMissingReturn) {
  CopyModuleSpec spec;
  spec.bytecode = {KILN_OP_VIEW_INPUT, 0, 0};
  ExpectRefused(BuildCopyModule(spec), "does not end in RETURN");
}

TEST(ModuleVerifier, RefusesRegisterReadBeforeSet) {
  CopyModuleSpec spec;
  spec.bytecode = {KILN_OP_DISPATCH, 0, 2, 0, 1, KILN_OP_RETURN};
  ExpectRefused(BuildCopyModule(spec), "read before it is set");
}

TEST(ModuleVerifier, RefusesExecutableOrdinalOutOfRange) {
  CopyModuleSpec spec;
  spec.bytecode = {KILN_OP_DISPATCH, 5, 0, KILN_OP_RETURN};
  ExpectRefused(BuildCopyModule(spec), "executable 5 out of range");
}

TEST(ModuleVerifier, RefusesWritingIntoAnInput) {
  CopyModuleSpec spec;
  spec.bytecode = {KILN_OP_VIEW_INPUT, 0, 0, KILN_OP_VIEW_OUTPUT, 2, 0,
                   KILN_OP_DISPATCH, 0, 2, 2, 0,  // copy output -> input
                   KILN_OP_RETURN};
  ExpectRefused(BuildCopyModule(spec), "binding 1 (r0) is written by kiln_copy but views an input");
}

TEST(ModuleVerifier, RefusesOverlappingBindings) {
  CopyModuleSpec spec;
  spec.bytecode = {KILN_OP_VIEW_INPUT, 0, 0, KILN_OP_VIEW_ARENA, 1, 0, 0, 16, 0,
                   KILN_OP_VIEW_OUTPUT, 2, 0,
                   KILN_OP_DISPATCH, 0, 2, 1, 1,  // copy arena onto itself
                   KILN_OP_DISPATCH, 0, 2, 0, 2, KILN_OP_RETURN};
  ExpectRefused(BuildCopyModule(spec), "overlaps binding 0 (r1)");
}

TEST(ModuleVerifier, RefusesOutputNeverWritten) {
  CopyModuleSpec spec;
  spec.bytecode = {KILN_OP_VIEW_INPUT, 0, 0, KILN_OP_VIEW_ARENA, 1, 0, 0, 16, 0,
                   KILN_OP_DISPATCH, 0, 2, 0, 1, KILN_OP_RETURN};
  ExpectRefused(BuildCopyModule(spec), "never writes output 0");
}

TEST(ModuleVerifier, RefusesMissingFile) {
  auto image = ModuleImage::LoadFile("/nonexistent/dir/model.kiln");
  ASSERT_FALSE(image.ok());
  EXPECT_EQ(image.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(std::string(image.status().message()).find("/nonexistent/dir/model.kiln"),
            std::string::npos);
}

}  // namespace
}  // namespace kiln::vm
