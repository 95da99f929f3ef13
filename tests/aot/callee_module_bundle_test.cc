// Bundles of the hand-made LOOP_DYN / called-function modules of
// tests/malformed/modules (make_callee_module_corpus.py), built with strict
// flags and run: an entry without integer instructions of its own (a
// callee's do the work) left NAME_shapes' register array unused, which
// -Werror refused; the runs end as the VM's do.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "aot/bundle_writer.h"
#include "aot/c_emitter.h"
#include "gtest/gtest.h"
#include "vm/module_image.h"
#include "vm/tools/npy.h"

namespace kiln::aot {
namespace {

// Emits and builds the bundle of tests/malformed/modules/NAME.kiln.
std::string BuildBundle(const std::string& name) {
  std::ifstream in(std::string(KILN_SOURCE_DIR) + "/tests/malformed/modules/" + name + ".kiln",
                   std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  const std::string data = bytes.str();
  auto image = vm::ModuleImage::LoadBytes(data.data(), data.size(), name);
  EXPECT_TRUE(image.ok()) << image.status();
  if (!image.ok()) return "";
  AotOptions options;
  options.name = "m";
  auto files = EmitBundle(**image, options);
  EXPECT_TRUE(files.ok()) << files.status();
  if (!files.ok()) return "";
  const std::string dir = std::string(KILN_BINARY_DIR) + "/tests/aot_callee_modules/" + name;
  EXPECT_TRUE(WriteBundle(dir, *files).ok());
  const std::string make = absl::StrCat("make -s -C ", dir,
                                        " CFLAGS='-std=c11 -O1 -Wall -Wextra -Werror' > ", dir,
                                        ".make.log 2>&1");
  EXPECT_EQ(std::system(make.c_str()), 0) << "see " << dir << ".make.log";
  return dir;
}

// Runs the runner on x = float32[1] (N = 1); y.npy holds the output.
int RunBundle(const std::string& dir) {
  vm::NpyArray x{fb::DType::F32, {1}, std::vector<uint8_t>(4, 0)};
  EXPECT_TRUE(vm::WriteNpy(dir + "/x.npy", x).ok());
  std::remove((dir + "/y.npy").c_str());
  const std::string command = absl::StrCat(dir, "/m_run --input ", dir, "/x.npy --output ", dir,
                                           "/y.npy > ", dir, "/run.log 2>&1");
  return std::system(command.c_str());
}

TEST(CalleeModuleBundle, AnEntryWithoutIntegerInstructionsBuildsAndItsCalleeRequirementFails) {
  const std::string dir = BuildBundle("callee_iassert_expression_blowup");
  ASSERT_FALSE(dir.empty());
  // The callee requires max(N, ...) == 0: the run fails, as in the VM.
  EXPECT_NE(RunBundle(dir), 0) << "see " << dir << "/run.log";
}

TEST(CalleeModuleBundle, ANegativeTripCountRunsNoIteration) {
  const std::string dir = BuildBundle("loop_dyn_negative_trip");
  ASSERT_FALSE(dir.empty());
  ASSERT_EQ(RunBundle(dir), 0) << "see " << dir << "/run.log";
  auto y = vm::ReadNpy(dir + "/y.npy");
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->shape, std::vector<int64_t>{1});  // y = an arena slot (its value is not set)
}

TEST(CalleeModuleBundle, AnExpectedCountTheTripNeverReachesFailsTheRun) {
  const std::string dir = BuildBundle("loop_dyn_expected_huge");
  ASSERT_FALSE(dir.empty());
  EXPECT_NE(RunBundle(dir), 0) << "see " << dir << "/run.log";
}

}  // namespace
}  // namespace kiln::aot
