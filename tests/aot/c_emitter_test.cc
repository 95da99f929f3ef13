// The AOT emitter: which files a bundle holds, one C statement per bytecode
// instruction, prefixed symbols, and weights that decode to the exact bytes.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "aot/bundle_writer.h"
#include "aot/c_emitter.h"
#include "aot/weights_emitter.h"
#include "gtest/gtest.h"
#include "tests/vm/test_module_builder.h"
#include "vm/module_image.h"

namespace kiln::aot {
namespace {

std::shared_ptr<const vm::ModuleImage> CopyModule() {
  std::string bytes = kiln::testing::BuildCopyModule({});
  auto image = vm::ModuleImage::LoadBytes(bytes.data(), bytes.size(), "copy.kiln");
  EXPECT_TRUE(image.ok()) << image.status();
  return *image;
}

const BundleFile* Find(const std::vector<BundleFile>& files, const std::string& path) {
  for (const BundleFile& f : files) {
    if (f.path == path) return &f;
  }
  return nullptr;
}

TEST(CEmitter, BundleHoldsTheFilesTheModelNeeds) {
  AotOptions options;
  options.name = "net";
  auto files = EmitBundle(*CopyModule(), options);
  ASSERT_TRUE(files.ok()) << files.status();
  for (const char* path : {"net.h", "net.c", "net_weights.c", "net_main.c", "Makefile",
                           "runtime/kernels/data_movement.c", "runtime/include/kiln/kernels.h"}) {
    EXPECT_NE(Find(*files, path), nullptr) << path;
  }
  // Only the kernels the module calls are copied.
  EXPECT_EQ(Find(*files, "runtime/kernels/conv2d.c"), nullptr);
  EXPECT_TRUE(absl::StrContains(Find(*files, "Makefile")->contents, "CC ?= cc"));
}

TEST(CEmitter, OneStatementPerInstruction) {
  auto files = EmitBundle(*CopyModule(), {});
  ASSERT_TRUE(files.ok()) << files.status();
  const std::string& c = Find(*files, "model.c")->contents;
  // The copy module has 6 instructions: 3 views, 2 dispatches and RETURN.
  std::vector<std::string> lines = absl::StrSplit(c, '\n');
  int instructions = 0;
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    if (absl::StartsWith(lines[i], "  /* 00")) {
      ++instructions;
      const std::string& statement = lines[i + 1];
      EXPECT_EQ(std::count(statement.begin(), statement.end(), ';'), 1) << statement;
    }
  }
  EXPECT_EQ(instructions, 6);
  // Kernels get the caller's host hooks (NULL through model_run).
  EXPECT_TRUE(absl::StrContains(c, "kiln_copy(model_e0_i, NULL, (void* const[]){r[0], r[1]}, host)"));
  EXPECT_TRUE(absl::StrContains(c, "return model_run_with_host(inputs, outputs, workspace, NULL);"));
  EXPECT_FALSE(absl::StrContains(c, "malloc"));
}

TEST(CEmitter, HeaderStatesWorkspaceAndShapes) {
  AotOptions options;
  options.name = "tiny";
  auto files = EmitBundle(*CopyModule(), options);
  ASSERT_TRUE(files.ok());
  const std::string& h = Find(*files, "tiny.h")->contents;
  EXPECT_TRUE(absl::StrContains(h, "#define TINY_WORKSPACE_SIZE 64u"));
  EXPECT_TRUE(absl::StrContains(h, "#define TINY_INPUT0_SHAPE {4}"));
  EXPECT_TRUE(absl::StrContains(h, "#define TINY_OUTPUT0_BYTES 16u"));
  EXPECT_TRUE(absl::StrContains(
      h, "int tiny_run(const void* const* inputs, void* const* outputs, void* workspace);"));
}

TEST(CEmitter, PrefixesEveryKernelSymbolWithTheModelName) {
  AotOptions options;
  options.name = "net";
  auto files = EmitBundle(*CopyModule(), options);
  ASSERT_TRUE(files.ok());
  const std::string& prefix = Find(*files, "runtime/include/kiln/symbol_prefix.h")->contents;
  EXPECT_TRUE(absl::StrContains(prefix, "#define kiln_copy net_kiln_copy\n"));
  EXPECT_TRUE(absl::StrContains(prefix, "#define kiln_conv2d_f32_check net_kiln_conv2d_f32_check\n"));
  // Without prefixing the runtime's own (empty) header is copied unchanged.
  options.prefix_kernel_symbols = false;
  files = EmitBundle(*CopyModule(), options);
  ASSERT_TRUE(files.ok());
  EXPECT_FALSE(absl::StrContains(
      Find(*files, "runtime/include/kiln/symbol_prefix.h")->contents, "#define kiln_copy"));
}

TEST(CEmitter, MetadataDescribesTheSignature) {
  AotOptions options;
  options.name = "tiny";
  auto files = EmitBundle(*CopyModule(), options);
  ASSERT_TRUE(files.ok());
  const std::string& c = Find(*files, "tiny.c")->contents;
  EXPECT_TRUE(absl::StrContains(c, "KILN_EXPORT const kiln_model_info* tiny_metadata(void)"));
  EXPECT_TRUE(absl::StrContains(c, "static const kiln_tensor_info tiny_input_info[] = {\n  {\"x\", 1, \"float32\", 1, {4}, 16u, "
                                    "{-1, -1, -1, -1, -1, -1, -1, -1}},"))
      << c;
  EXPECT_TRUE(absl::StrContains(Find(*files, "tiny.h")->contents, "#define TINY_INPUT0_CTYPE float"));
  EXPECT_TRUE(absl::StrContains(Find(*files, "README.md")->contents, kSizeReportMarker));
}

TEST(CEmitter, ExternalWeightsArePassedToRun) {
  AotOptions options;
  options.name = "ext";
  options.external_weights = true;
  auto files = EmitBundle(*CopyModule(), options);
  ASSERT_TRUE(files.ok());
  EXPECT_EQ(Find(*files, "ext_weights.c"), nullptr);
  ASSERT_NE(Find(*files, "ext_weights.bin"), nullptr);
  const std::string& h = Find(*files, "ext.h")->contents;
  EXPECT_TRUE(absl::StrContains(
      h, "int ext_run(const void* const* inputs, void* const* outputs, void* workspace, const void* weights);"));
  EXPECT_TRUE(absl::StrContains(h, "#define EXT_WEIGHTS_EXTERNAL 1"));
  const std::string& c = Find(*files, "ext.c")->contents;
  EXPECT_TRUE(absl::StrContains(c, "if (weights == NULL || (uintptr_t)weights % EXT_WEIGHTS_ALIGNMENT != 0) return KILN_ERR_ALIGNMENT;"));
  EXPECT_FALSE(absl::StrContains(c, "ext_weights["));
}

TEST(CEmitter, CortexMBundleCarriesStartupAndLinkerScript) {
  AotOptions options;
  options.target = Target::kCortexM4;
  auto files = EmitBundle(*CopyModule(), options);
  ASSERT_TRUE(files.ok()) << files.status();
  EXPECT_NE(Find(*files, "startup.c"), nullptr);
  EXPECT_NE(Find(*files, "cortex_m.ld"), nullptr);
  const std::string& mk = Find(*files, "Makefile")->contents;
  EXPECT_TRUE(absl::StrContains(mk, "CPU = cortex-m4"));
  EXPECT_TRUE(absl::StrContains(mk, "qemu:"));
  options.emit = EmitKind::kShared;
  EXPECT_FALSE(EmitBundle(*CopyModule(), options).ok());
}

TEST(CEmitter, RefusesNamesThatAreNotCIdentifiers) {
  for (const char* bad : {"", "9lives", "my-model", "a b"}) {
    AotOptions options;
    options.name = bad;
    EXPECT_FALSE(EmitBundle(*CopyModule(), options).ok()) << bad;
  }
  EXPECT_TRUE(IsCIdentifier("_model2"));
}

// Decodes the string literal pieces of an emitted weights file.
std::string DecodeLiteral(const std::string& source) {
  std::string out;
  size_t i = source.find("=\n\"");
  EXPECT_NE(i, std::string::npos);
  i += 3;
  bool in_string = true;
  for (; i < source.size(); ++i) {
    char c = source[i];
    if (!in_string) {
      if (c == '"') in_string = true;
      if (c == ';') break;
      continue;
    }
    if (c == '"') {
      in_string = false;
    } else if (c == '\\') {
      int v = (source[i + 1] - '0') * 64 + (source[i + 2] - '0') * 8 + (source[i + 3] - '0');
      out += static_cast<char>(v);
      i += 3;
    } else {
      out += c;
    }
  }
  return out;
}

TEST(WeightsEmitter, LiteralDecodesToTheExactBytes) {
  std::vector<uint8_t> bytes;
  for (int v = 0; v < 256; ++v) bytes.push_back(static_cast<uint8_t>(v));
  // Escapes followed by digits, trigraph starts and quotes.
  for (const char* tricky : {"\0" "1", "?" "?=", "\"\\", "\x07" "7"}) {
    for (const char* p = tricky; p < tricky + 3; ++p) bytes.push_back(static_cast<uint8_t>(*p));
  }
  std::mt19937 rng(3);
  for (int i = 0; i < 5000; ++i) bytes.push_back(static_cast<uint8_t>(rng()));
  std::string source = EmitWeightsSource("w", bytes.data(), bytes.size());
  EXPECT_TRUE(absl::StrContains(source, "_Alignas(64) const unsigned char w[" +
                                            std::to_string(bytes.size()) + "]"));
  std::string decoded = DecodeLiteral(source);
  ASSERT_EQ(decoded.size(), bytes.size());
  EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), decoded.begin(),
                         [](uint8_t a, char b) { return a == static_cast<uint8_t>(b); }));
  EXPECT_FALSE(absl::StrContains(source, "??"));  // no trigraphs
}

// From 2 MiB up the weights are 2 MiB aligned on 64-bit Linux hosts (huge
// pages for their read-only mapping) and 64-byte aligned elsewhere.
TEST(WeightsEmitter, LargeWeightsAreHugePageAlignedOnLinuxHosts) {
  const size_t huge = size_t{2} << 20;
  std::vector<uint8_t> bytes(huge, 0x41);
  std::string large = EmitWeightsSource("w", bytes.data(), bytes.size());
  EXPECT_TRUE(absl::StrContains(
      large, "#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))\n"
             "#define KILN_WEIGHTS_ALIGN 2097152\n#else\n#define KILN_WEIGHTS_ALIGN 64\n#endif\n"
             "_Alignas(KILN_WEIGHTS_ALIGN) const unsigned char w[2097152]"))
      << large.substr(0, 300);
  EXPECT_EQ(DecodeLiteral(large).size(), huge);
  std::string small = EmitWeightsSource("w", bytes.data(), huge - 1);
  EXPECT_FALSE(absl::StrContains(small, "KILN_WEIGHTS_ALIGN"));
  EXPECT_TRUE(absl::StrContains(small, "_Alignas(64) const unsigned char w[2097151]"));
}

TEST(BundleWriter, ReplacesItsOwnBundleButNotOtherDirectories) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(KILN_BINARY_DIR) / "tests" / "aot_bundle_writer";
  fs::remove_all(root);
  fs::create_directories(root / "mine");
  std::ofstream(root / "mine" / "precious.txt") << "keep";
  EXPECT_FALSE(WriteBundle((root / "mine").string(), {{"a.c", "int a;"}}).ok());
  EXPECT_TRUE(fs::exists(root / "mine" / "precious.txt"));

  ASSERT_TRUE(WriteBundle((root / "bundle").string(), {{"a.c", "int a;"}}).ok());
  ASSERT_TRUE(WriteBundle((root / "bundle").string(), {{"b.c", "int b;"}}).ok());
  EXPECT_FALSE(fs::exists(root / "bundle" / "a.c"));  // replaced as a whole
  EXPECT_TRUE(fs::exists(root / "bundle" / "b.c"));
}

}  // namespace
}  // namespace kiln::aot
