// The AOT emitter on called functions that use the dynamic opcodes and on
// LOOP_DYN (the hand-built module of tests/vm/dynamic_callee_builder.h): the
// callee signature and its own integer registers in the C text, then the
// bundle built with the system C compiler and run at several S against
// plain C++ arithmetic over the inputs, and a broken expected count refused.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "aot/bundle_writer.h"
#include "aot/c_emitter.h"
#include "gtest/gtest.h"
#include "tests/vm/dynamic_callee_builder.h"
#include "vm/module_image.h"
#include "vm/tools/npy.h"

namespace kiln::aot {
namespace {

using testing::BuildDynamicCalleeModule;
using testing::DynamicCalleeSpec;
using testing::IntSource;

std::vector<BundleFile> Emit(const DynamicCalleeSpec& spec) {
  const std::string bytes = BuildDynamicCalleeModule(spec);
  auto image = vm::ModuleImage::LoadBytes(bytes.data(), bytes.size(), "callee.kiln");
  EXPECT_TRUE(image.ok()) << image.status();
  if (!image.ok()) return {};
  AotOptions options;
  options.name = "dc";
  auto files = EmitBundle(**image, options);
  EXPECT_TRUE(files.ok()) << files.status();
  return files.ok() ? *files : std::vector<BundleFile>{};
}

std::string FileText(const std::vector<BundleFile>& files, const std::string& path) {
  for (const BundleFile& f : files) {
    if (f.path == path) return f.contents;
  }
  ADD_FAILURE() << "no " << path << " in the bundle";
  return "";
}

// The text between `begin` and the next line that is exactly "}".
std::string Body(const std::string& c, const std::string& begin) {
  const size_t at = c.find(begin);
  if (at == std::string::npos) return "";
  return c.substr(at, c.find("\n}\n", at) - at);
}

TEST(DynamicCalleeEmitter, CalleesTakeTheSymbolsAndComputeTheirOwnSizes) {
  const std::string c = FileText(Emit({}), "dc.c");
  const std::string signature =
      "(const void* const* inputs, void* const* outputs, unsigned char* arena, const unsigned "
      "char* constants, const kiln_host* host, const int64_t* symbols, size_t workspace_bytes)";
  EXPECT_TRUE(absl::StrContains(c, "static int dc_function3" + signature + ";")) << c;
  const std::string body = Body(c, "static int dc_function3" + signature + " {");
  ASSERT_FALSE(body.empty()) << c;
  EXPECT_TRUE(absl::StrContains(body, "  uint64_t rb[5];\n  int64_t n[8];\n")) << body;
  EXPECT_TRUE(absl::StrContains(body, "n[0] = symbols[0];")) << body;
  EXPECT_TRUE(absl::StrContains(body, "kiln_imul(n[2], n[1], &n[3])")) << body;
  EXPECT_TRUE(absl::StrContains(body, "kiln_check_view(n[4], n[3], workspace_bytes)")) << body;
  // The entry's shape function holds only the entry's integer instructions.
  const std::string shapes = Body(c, "static int dc_shapes(");
  EXPECT_TRUE(absl::StrContains(shapes, "n[5] = INT64_C(-1);")) << shapes;
  EXPECT_FALSE(absl::StrContains(shapes, "INT64_C(4)")) << shapes;  // the callees' constant 4
  // IF and LOOP_DYN pass them on; LOOP_DYN reads its counts from n[].
  const std::string run = Body(c, "\nKILN_EXPORT int dc_run_with_host(");
  EXPECT_TRUE(absl::StrContains(
      run, "dc_function1(inputs, outputs, arena, constants, host, symbols, workspace_bytes)"))
      << run;
  EXPECT_TRUE(absl::StrContains(run, "const int64_t trip = n[4];")) << run;
  EXPECT_TRUE(absl::StrContains(run, "kiln_loop_next(i, trip, cond, kiln_loop_expected(n[5]), &run)"))
      << run;
}

// Writes x [s,4] and cond, runs the built runner, reads y and z.
int RunBundle(const std::string& dir, int64_t s, bool cond, std::vector<float>* y,
              std::vector<float>* z) {
  vm::NpyArray x{fb::DType::F32, {s, 4}, std::vector<uint8_t>(static_cast<size_t>(s) * 16)};
  for (int64_t i = 0; i < s * 4; ++i) x.floats()[i] = 0.25f * static_cast<float>(i) - 2.0f;
  vm::NpyArray c{fb::DType::Bool, {1}, {static_cast<uint8_t>(cond ? 1 : 0)}};
  EXPECT_TRUE(vm::WriteNpy(dir + "/x.npy", x).ok());
  EXPECT_TRUE(vm::WriteNpy(dir + "/c.npy", c).ok());
  std::remove((dir + "/y.npy").c_str());
  std::remove((dir + "/z.npy").c_str());
  const std::string command = absl::StrCat(dir, "/dc_run --input ", dir, "/x.npy --input ", dir,
                                           "/c.npy --output ", dir, "/y.npy --output ", dir,
                                           "/z.npy > ", dir, "/run.log 2>&1");
  const int rc = std::system(command.c_str());
  if (rc != 0) return rc;
  auto ya = vm::ReadNpy(dir + "/y.npy");
  auto za = vm::ReadNpy(dir + "/z.npy");
  if (!ya.ok() || !za.ok()) return -1;
  y->assign(ya->floats(), ya->floats() + s * 4);
  z->assign(za->floats(), za->floats() + s * 4);
  return 0;
}

std::string BuildBundle(const DynamicCalleeSpec& spec, const std::string& leaf) {
  const std::string dir = std::string(KILN_BINARY_DIR) + "/tests/aot_dynamic_callee/" + leaf;
  EXPECT_TRUE(WriteBundle(dir, Emit(spec)).ok());
  // Strict flags: the callees' generated C must be warning-free.
  const std::string make = absl::StrCat("make -s -C ", dir,
                                        " CFLAGS='-std=c11 -O2 -Wall -Wextra -Werror' > ", dir,
                                        ".make.log 2>&1");
  EXPECT_EQ(std::system(make.c_str()), 0) << "see " << dir << ".make.log";
  return dir;
}

TEST(DynamicCalleeEmitter, BuiltBundleRunsIfAndLoopDynAtEverySize) {
  const std::string dir = BuildBundle({}, "trip_s");
  for (int64_t s : {1, 3, 8}) {
    for (bool cond : {true, false}) {
      std::vector<float> y, z;
      ASSERT_EQ(RunBundle(dir, s, cond, &y, &z), 0) << "S = " << s << ", see " << dir << "/run.log";
      for (int64_t i = 0; i < s * 4; ++i) {
        const float x = 0.25f * static_cast<float>(i) - 2.0f;
        ASSERT_EQ(y[static_cast<size_t>(i)], cond ? x + x : x) << "y[" << i << "] S = " << s;
        // z = x, plus x once per iteration (trip count S).
        ASSERT_EQ(z[static_cast<size_t>(i)], x * static_cast<float>(1 + s)) << "z[" << i << "] S = " << s;
      }
    }
  }
}

TEST(DynamicCalleeEmitter, BuiltBundleRefusesAnotherCountThanExpected) {
  DynamicCalleeSpec spec;
  spec.trip = IntSource{false, 3};
  spec.expected = IntSource{true, 0};  // S
  const std::string dir = BuildBundle(spec, "expected_s");
  std::vector<float> y, z;
  ASSERT_EQ(RunBundle(dir, 3, false, &y, &z), 0) << "see " << dir << "/run.log";
  const float last = 0.25f * 11.0f - 2.0f;
  EXPECT_EQ(z[11], last * 4.0f);
  EXPECT_NE(RunBundle(dir, 2, false, &y, &z), 0);
  EXPECT_NE(RunBundle(dir, 4, false, &y, &z), 0);
}

}  // namespace
}  // namespace kiln::aot
