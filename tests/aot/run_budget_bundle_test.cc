// The AOT side of the run budget: kiln_host.should_stop asked by
// NAME_run_with_host before each kernel call and loop iteration. A C program
// (fixtures/run_budget_driver.c) linked against the bundle of
// tests/models/control/loop_counted.onnx stops an endless run with a
// deadline, with a cancel from a second thread and with an iteration limit,
// each returning its stop code; runs within the limits and plain NAME_run on
// the same workspace then give the NumPy reference. (The runner's --timeout
// and --max-iterations: tests/e2e/run_budget_test.sh.) Only codes are
// asserted, never how long a run took.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "aot/bundle_writer.h"
#include "aot/c_emitter.h"
#include "compiler/compiler.h"
#include "gtest/gtest.h"
#include "kiln/kernel_abi.h"
#include "vm/module_image.h"
#include "vm/tools/npy.h"

namespace kiln::aot {
namespace {

const std::string kControl = std::string(KILN_SOURCE_DIR) + "/tests/models/control/";

TEST(RunBudgetBundle, ShouldStopEndsRunsWithTheirCodesAndTheWorkspaceRunsAgain) {
  auto bytes = compiler::BuildModule(kControl + "loop_counted.onnx", compiler::BuildOptions{});
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto image = vm::ModuleImage::LoadBytes(bytes->data(), bytes->size(), "loop_counted");
  ASSERT_TRUE(image.ok()) << image.status();
  AotOptions options;
  options.name = "counted";
  auto files = EmitBundle(**image, options);
  ASSERT_TRUE(files.ok()) << files.status();
  const std::string dir = std::string(KILN_BINARY_DIR) + "/tests/aot_run_budget";
  ASSERT_TRUE(WriteBundle(dir, *files).ok());
  const std::string flags = "-std=c11 -O1 -Wall -Wextra -Werror";
  ASSERT_EQ(std::system(absl::StrCat("make -s -C ", dir, " lib CFLAGS='", flags, "' > ", dir,
                                     ".make.log 2>&1")
                            .c_str()),
            0)
      << "see " << dir << ".make.log";
  ASSERT_EQ(std::system(absl::StrCat("cc ", flags, " -I", dir, " -I", dir, "/runtime/include ",
                                     KILN_SOURCE_DIR, "/tests/aot/fixtures/run_budget_driver.c ",
                                     dir, "/libcounted.a -lm -lpthread -o ", dir,
                                     "/driver > ", dir, ".cc.log 2>&1")
                            .c_str()),
            0)
      << "see " << dir << ".cc.log";
  auto s0 = vm::ReadNpy(kControl + "loop_counted.s0.npy");
  auto reference = vm::ReadNpy(kControl + "loop_counted.output7.npy");
  ASSERT_TRUE(s0.ok() && reference.ok());
  // %.9g round-trips a float32 exactly.
  char s0_args[64];
  std::snprintf(s0_args, sizeof s0_args, "%.9g %.9g", s0->floats()[0], s0->floats()[1]);
  // `timeout`: a hook that failed to stop a run fails the test, not hangs it.
  ASSERT_EQ(std::system(absl::StrCat("timeout 120 ", dir, "/driver ", s0_args, " > ", dir,
                                     "/driver.out 2>&1")
                            .c_str()),
            0)
      << "see " << dir << "/driver.out";
  std::ifstream out(dir + "/driver.out");
  std::map<std::string, std::vector<double>> lines;  // name -> code [, s0, s1]
  std::string line;
  while (std::getline(out, line)) {
    std::istringstream words(line);
    std::string name;
    words >> name;
    for (double v; words >> v;) lines[name].push_back(v);
  }
  EXPECT_EQ(lines["deadline"], std::vector<double>{KILN_ERR_DEADLINE});
  EXPECT_EQ(lines["cancel"], std::vector<double>{KILN_ERR_CANCELLED});
  EXPECT_EQ(lines["limit"], std::vector<double>{KILN_ERR_ITERATION_LIMIT});
  for (const char* name : {"within", "again"}) {
    ASSERT_EQ(lines[name].size(), 3u) << name;
    EXPECT_EQ(lines[name][0], KILN_OK) << name;
    // The NumPy reference's float32 multiply-adds; 1e-6 allows for FMA.
    for (int k = 0; k < 2; ++k) EXPECT_NEAR(lines[name][1 + k], reference->floats()[k], 1e-6) << name;
  }
}

}  // namespace
}  // namespace kiln::aot
