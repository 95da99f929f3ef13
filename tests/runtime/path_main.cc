// main() of runtime_tests_<path>: the kernel tests, linked with one SIMD
// path's copy of the kernels (KILN_TEST_PATH). On a CPU that cannot run that
// path every test is skipped, and the skip says why.
#include <gtest/gtest.h>

#include <string>

#include "vm/kernel_paths.h"

namespace {

class PathGuard : public testing::Environment {
 public:
  void SetUp() override {
    const absl::StatusOr<kiln::vm::KernelPath> path = kiln::vm::ChooseKernelPath(KILN_TEST_PATH);
    if (!path.ok()) GTEST_SKIP() << path.status().message();
  }
};

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  testing::AddGlobalTestEnvironment(new PathGuard);
  return RUN_ALL_TESTS();
}
