// The module libFuzzer's `module` target found (scripts/fuzz.sh module 600,
// ../shared/reproducers/endless-loop.kiln, copied to
// tests/malformed/modules/endless_loop.kiln with its input): compiled from
// tests/models/result/loop_caller_length.onnx before modules declared their
// largest trip count, then bytes changed so the Loop's constant trip count
// became 144115188243628032 (about 2^57). It verified, then `kiln run` and
// the AOT runner never returned. Now the loader both back ends share refuses
// it, naming the function and the LOOP's offset (a recompiled module would
// declare 3 and be held to that; tests/vm/trip_limit_test.cc).
#include <string>

#include "gtest/gtest.h"
#include "vm/module_image.h"

namespace kiln {
namespace {

TEST(EndlessLoop, TheFuzzersConstantTripCountIsRefusedAtLoad) {
  const std::string path =
      std::string(KILN_SOURCE_DIR) + "/tests/malformed/modules/endless_loop.kiln";
  auto image = vm::ModuleImage::LoadFile(path);
  ASSERT_FALSE(image.ok());
  EXPECT_NE(std::string(image.status().message())
                .find("function 'main' +78: LOOP's trip count is 144115188243628032 (constant 4 "
                      "'trip'), above the limit 4294967295 for a module that declares no largest "
                      "trip count"),
            std::string::npos)
      << image.status();
}

}  // namespace
}  // namespace kiln
