// The AOT side of sizes found during the run without a bound: the bundle of
// tests/models/opset/unbounded/constantofshape18_runtime_then_add.onnx
// (y = ConstantOfShape(s, 1.5) + x) called by a C program
// (fixtures/growing_driver.c) that starts from the header's static sizes and
// grows whatever buffer each KILN_ERR_BUFFER_TOO_SMALL names. Checked: NULL
// output_bytes / shortfall are refused, every short run names a buffer and
// leaves the output's guard bytes alone, the output's shortfall is
// prod(s) * 4 bytes, and the grown run gives ONNX Runtime's output (for
// s = [4, 3, 4] the reference's rows repeat: every row is 1.5 + x).
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

const std::string kModel = std::string(KILN_SOURCE_DIR) +
                           "/tests/models/opset/unbounded/constantofshape18_runtime_then_add";

struct DriverRun {
  std::map<std::string, std::vector<double>> lines;  // first word -> the numbers after it
  std::vector<std::vector<double>> shorts;           // every "short" line
};

std::string Dir() { return std::string(KILN_BINARY_DIR) + "/tests/aot_growing"; }

// The bundle as libgrow.a and the driver linked against it (fails the test
// that calls it, with ASSERTs, when anything does not build).
void BuildDriver(uint64_t* arena_bytes) {
  auto bytes = compiler::BuildModule(kModel + ".onnx", compiler::BuildOptions{});
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto image = vm::ModuleImage::LoadBytes(bytes->data(), bytes->size(), "grow");
  ASSERT_TRUE(image.ok()) << image.status();
  *arena_bytes = (*image)->module().memory()->arena_size();
  AotOptions options;
  options.name = "grow";
  auto files = EmitBundle(**image, options);
  ASSERT_TRUE(files.ok()) << files.status();
  ASSERT_TRUE(WriteBundle(Dir(), *files).ok());
  const std::string flags = "-std=c11 -O1 -Wall -Wextra -Werror";
  ASSERT_EQ(std::system(absl::StrCat("make -s -C ", Dir(), " lib CFLAGS='", flags, "' > ", Dir(),
                                     ".make.log 2>&1")
                            .c_str()),
            0)
      << "see " << Dir() << ".make.log";
  ASSERT_EQ(std::system(absl::StrCat("cc ", flags, " -I", Dir(), " -I", Dir(), "/runtime/include ",
                                     KILN_SOURCE_DIR, "/tests/aot/fixtures/growing_driver.c ", Dir(),
                                     "/libgrow.a -lm -o ", Dir(), "/driver > ", Dir(),
                                     ".cc.log 2>&1")
                            .c_str()),
            0)
      << "see " << Dir() << ".cc.log";
}

DriverRun Drive(const std::vector<int64_t>& s, const float* x) {
  std::string args;
  for (int64_t d : s) absl::StrAppend(&args, " ", d);
  char buf[32];
  for (int k = 0; k < 4; ++k) {
    std::snprintf(buf, sizeof buf, " %.9g", x[k]);  // round-trips a float32
    args += buf;
  }
  const std::string out = absl::StrCat(Dir(), "/driver.out");
  DriverRun run;
  EXPECT_EQ(std::system(absl::StrCat(Dir(), "/driver", args, " > ", out, " 2>&1").c_str()), 0)
      << "see " << out;
  std::ifstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string name;
    words >> name;
    std::vector<double> values;
    for (double v; words >> v;) values.push_back(v);
    if (name == "short") run.shorts.push_back(values);
    run.lines[name] = values;
  }
  return run;
}

TEST(GrowingBundle, ShortRunsNameTheBufferAndTheGrownRunMatchesOnnxRuntime) {
  uint64_t arena_bytes = 0;
  ASSERT_NO_FATAL_FAILURE(BuildDriver(&arena_bytes));
  auto x = vm::ReadNpy(kModel + ".input1.npy");
  auto ref = vm::ReadNpy(kModel + ".output0.npy");
  ASSERT_TRUE(x.ok() && ref.ok());
  ASSERT_EQ(x->shape, (std::vector<int64_t>{4}));
  ASSERT_EQ(ref->shape, (std::vector<int64_t>{2, 3, 4}));
  for (const std::vector<int64_t>& s : {std::vector<int64_t>{2, 3, 4}, std::vector<int64_t>{4, 3, 4}}) {
    SCOPED_TRACE(absl::StrCat("s = [", s[0], ",", s[1], ",", s[2], "]"));
    const DriverRun run = Drive(s, x->floats());
    ASSERT_EQ(run.lines.count("done"), 1u);
    EXPECT_EQ(run.lines.at("null_output_bytes"), std::vector<double>{KILN_ERR_INVALID_ARGUMENT});
    EXPECT_EQ(run.lines.at("null_shortfall"), std::vector<double>{KILN_ERR_INVALID_ARGUMENT});
    const uint64_t y_bytes = static_cast<uint64_t>(s[0] * s[1] * s[2]) * 4;
    ASSERT_FALSE(run.shorts.empty());
    bool output_short = false;
    for (const std::vector<double>& line : run.shorts) {
      ASSERT_EQ(line.size(), 4u);
      EXPECT_EQ(line[0], KILN_ERR_BUFFER_TOO_SMALL);
      EXPECT_EQ(line[3], 1) << "a short run wrote past the output buffer";
      if (line[1] == 0) {
        output_short = true;
        EXPECT_EQ(line[2], static_cast<double>(y_bytes));
      } else {
        // The ConstantOfShape's tensor past the planned workspace.
        EXPECT_EQ(line[1], -1);
        EXPECT_GT(line[2], static_cast<double>(arena_bytes));
      }
    }
    EXPECT_TRUE(output_short);
    const std::vector<double>& done = run.lines.at("done");
    ASSERT_EQ(done.size(), 2u);
    EXPECT_EQ(done[0], KILN_OK);
    EXPECT_EQ(done[1], static_cast<double>(run.shorts.size() + 1));
    EXPECT_EQ(run.lines.at("shape"),
              (std::vector<double>{0, static_cast<double>(s[0]), static_cast<double>(s[1]),
                                   static_cast<double>(s[2]), static_cast<double>(y_bytes)}));
    const std::vector<double>& y = run.lines.at("y");
    ASSERT_EQ(y.size(), y_bytes / 4);
    for (size_t k = 0; k < y.size(); ++k) {
      EXPECT_FLOAT_EQ(static_cast<float>(y[k]), ref->floats()[k % 24]) << k;
    }
    // grows = 1; the output's first dim is found during the run (-3).
    EXPECT_EQ(run.lines.at("metadata"), (std::vector<double>{1, -3}));
  }
}

}  // namespace
}  // namespace kiln::aot
