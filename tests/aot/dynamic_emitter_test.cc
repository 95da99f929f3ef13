// The AOT emitter on a module with symbolic dimensions (the dynamic-batch
// MLP of tests/models/dynamic): the header's symbol interface, the shape
// function that runs the integer instructions once, run-time view sizes, and
// metadata; and that a static module keeps its interface.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "aot/c_emitter.h"
#include "compiler/compiler.h"
#include "gtest/gtest.h"
#include "tests/vm/test_module_builder.h"
#include "vm/module_image.h"

namespace kiln::aot {
namespace {

std::shared_ptr<const vm::ModuleImage> DynamicMlp() {
  auto bytes = compiler::BuildModule(
      std::string(KILN_SOURCE_DIR) + "/tests/models/dynamic/mlp_dynbatch.onnx", {});
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  if (!bytes.ok()) return nullptr;
  auto image = vm::ModuleImage::LoadBytes(bytes->data(), bytes->size(), "mlp.kiln");
  EXPECT_TRUE(image.ok()) << image.status();
  return image.ok() ? *image : nullptr;
}

std::string FileText(const std::vector<BundleFile>& files, const std::string& path) {
  for (const BundleFile& f : files) {
    if (f.path == path) return f.contents;
  }
  ADD_FAILURE() << "no " << path << " in the bundle";
  return "";
}

std::vector<BundleFile> Emit(const vm::ModuleImage& image, const std::string& name,
                             bool external_weights = false) {
  AotOptions options;
  options.name = name;
  options.external_weights = external_weights;
  auto files = EmitBundle(image, options);
  EXPECT_TRUE(files.ok()) << files.status();
  return files.ok() ? *files : std::vector<BundleFile>{};
}

TEST(DynamicEmitter, HeaderDeclaresSymbolsWorkspaceSizeAndRun) {
  auto image = DynamicMlp();
  ASSERT_NE(image, nullptr);
  const std::string h = FileText(Emit(*image, "mlp"), "mlp.h");
  for (const char* line :
       {"#define MLP_HAS_SYMBOLS 1\n", "#define MLP_SYMBOL_COUNT 1\n", "#define MLP_SYMBOL0_NAME \"N\"\n",
        "#define MLP_INPUT0_SHAPE {-1, 20}\n", "#define MLP_INPUT0_DIM_SYMBOLS {0, -1}\n",
        "#define MLP_INPUT0_STATIC_SIZE 20u\n", "#define MLP_INPUT0_STATIC_BYTES 80u\n",
        "#define MLP_OUTPUT0_SHAPE {-1, 5}\n", "#define MLP_OUTPUT0_DIM_SYMBOLS {0, -1}\n",
        "#define MLP_OUTPUT0_STATIC_BYTES 20u\n", "#include \"kiln/dynamic_ops.h\"\n",
        "int mlp_workspace_size(const int64_t* symbols, size_t* bytes);\n",
        "int mlp_run(const int64_t* symbols, const void* const* inputs, void* const* outputs, "
        "void* workspace, size_t workspace_bytes);\n",
        "int mlp_run_with_host(const int64_t* symbols, const void* const* inputs, void* const* "
        "outputs, void* workspace, size_t workspace_bytes,\n    const kiln_host* host);\n",
        "#define MLP_WORKSPACE_MIN_SIZE "}) {
    EXPECT_TRUE(absl::StrContains(h, line)) << line << "\n" << h;
  }
  // No fixed sizes for what the symbols size: code assuming them fails to compile.
  EXPECT_FALSE(absl::StrContains(h, "MLP_WORKSPACE_SIZE ")) << h;
  EXPECT_FALSE(absl::StrContains(h, "MLP_INPUT0_BYTES")) << h;
  EXPECT_FALSE(absl::StrContains(h, "MLP_OUTPUT0_SIZE")) << h;
  // The header comment states the contract and the workspace formula.
  EXPECT_TRUE(absl::StrContains(h, "mlp_workspace_size(symbols, &bytes)")) << h;
  EXPECT_TRUE(absl::StrContains(h, "input 0  Nx20")) << h;
  EXPECT_TRUE(absl::StrContains(h, "KILN_ERR_OUT_OF_RANGE for a symbol out of range or a workspace smaller"))
      << h;
  EXPECT_TRUE(absl::StrContains(h, "needs: N*")) << h;
}

TEST(DynamicEmitter, IntegerInstructionsRunOnceInTheShapeFunction) {
  auto image = DynamicMlp();
  ASSERT_NE(image, nullptr);
  const std::string c = FileText(Emit(*image, "mlp"), "mlp.c");
  EXPECT_TRUE(absl::StrContains(c, "#include <string.h>\n")) << c;
  EXPECT_TRUE(absl::StrContains(c, "#include \"kiln/dynamic_ops.h\"\n")) << c;
  const size_t shapes =
      c.find("static int mlp_shapes(const int64_t* symbols, int64_t* n, const char** broken) {");
  const size_t size_fn = c.find("KILN_EXPORT int mlp_workspace_size(const int64_t* symbols, size_t* bytes) {");
  const size_t run = c.find("\nKILN_EXPORT int mlp_run_with_host(");
  ASSERT_NE(shapes, std::string::npos) << c;
  ASSERT_NE(size_fn, std::string::npos) << c;
  ASSERT_NE(run, std::string::npos) << c;
  EXPECT_LT(shapes, size_fn);
  EXPECT_LT(size_fn, run);
  EXPECT_TRUE(absl::StrContains(
      c, "if (symbols[k] < 1 || symbols[k] > KILN_MAX_SYMBOL_VALUE) return KILN_ERR_OUT_OF_RANGE;"));
  // Each integer instruction appears exactly once, inside mlp_shapes().
  const std::string shape_body = c.substr(shapes, size_fn - shapes);
  const std::string run_body = c.substr(run);
  int integer_ops = 0;
  for (const char* op : {"ISYM", "ICONST", "IADD", "ISUB", "IMUL", "IDIV", "IMIN", "IMAX"}) {
    const std::string tag = absl::StrCat(" ", op, " ");
    for (size_t at = shape_body.find(tag); at != std::string::npos; at = shape_body.find(tag, at + 1)) {
      ++integer_ops;
    }
    EXPECT_FALSE(absl::StrContains(run_body, tag)) << op << " repeated in the run:\n" << run_body;
  }
  EXPECT_GT(integer_ops, 1);
  EXPECT_TRUE(absl::StrContains(shape_body, "n[0] = symbols[0];")) << shape_body;
  // The run computes the integer registers, checks the workspace, and every
  // view records its bytes.
  EXPECT_TRUE(absl::StrContains(run_body, "if ((rc = mlp_shapes(symbols, n, NULL)) != 0) return rc;"));
  EXPECT_TRUE(absl::StrContains(run_body, "if (symbols == NULL) return KILN_ERR_INVALID_ARGUMENT;"));
  EXPECT_TRUE(absl::StrContains(run_body, "(uint64_t)workspace_bytes) return KILN_ERR_OUT_OF_RANGE;"))
      << run_body;
  std::vector<std::string> lines = absl::StrSplit(run_body, '\n');
  int views = 0;
  for (size_t i = 0; i + 2 < lines.size(); ++i) {
    if (!absl::StrContains(lines[i], "/* 0") || !absl::StrContains(lines[i], " VIEW_")) continue;
    ++views;
    // A *_DYN view checks on its first line and assigns on the next.
    const std::string statement = lines[i + 1] + lines[i + 2];
    EXPECT_TRUE(absl::StrContains(statement, "rb[")) << lines[i] << "\n" << statement;
  }
  EXPECT_GE(views, 4);
  EXPECT_TRUE(absl::StrContains(run_body, "kiln_check_dynamic_dispatch(")) << run_body;
  EXPECT_FALSE(absl::StrContains(c, "malloc"));
}

// A requirement checked before the run (concat_updown_dynhw: x concatenated
// with its down-then-up-sampled self needs an even H) carries its formula,
// which NAME_broken_requirement() returns for the symbols that break it (the
// runner's message; tests/e2e/dynamic_models_test.sh runs it).
TEST(DynamicEmitter, RequirementsNameTheirFormula) {
  auto bytes = compiler::BuildModule(
      std::string(KILN_SOURCE_DIR) + "/tests/models/dynamic/concat_updown_dynhw.onnx", {});
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto image = vm::ModuleImage::LoadBytes(bytes->data(), bytes->size(), "cu.kiln");
  ASSERT_TRUE(image.ok()) << image.status();
  const std::vector<BundleFile> files = Emit(**image, "cu");
  const std::string h = FileText(files, "cu.h"), c = FileText(files, "cu.c");
  EXPECT_TRUE(absl::StrContains(h, "const char* cu_broken_requirement(const int64_t* symbols);\n"))
      << h;
  const size_t shapes = c.find("static int cu_shapes(");
  const size_t size_fn = c.find("KILN_EXPORT int cu_workspace_size(");
  ASSERT_NE(shapes, std::string::npos) << c;
  ASSERT_NE(size_fn, std::string::npos) << c;
  const std::string shape_body = c.substr(shapes, size_fn - shapes);
  EXPECT_TRUE(absl::StrContains(shape_body, "if (broken) *broken = \"H == (H / 2)*2\";\n"))
      << shape_body;
  EXPECT_TRUE(absl::StrContains(c, "KILN_EXPORT const char* cu_broken_requirement(const int64_t* "
                                   "symbols) {"))
      << c;
  EXPECT_TRUE(absl::StrContains(c, "(void)cu_shapes(symbols, n, &broken);")) << c;
}

TEST(DynamicEmitter, MetadataNamesTheSymbolOfEachDim) {
  auto image = DynamicMlp();
  ASSERT_NE(image, nullptr);
  const std::vector<BundleFile> files = Emit(*image, "mlp");
  const std::string c = FileText(files, "mlp.c");
  EXPECT_TRUE(absl::StrContains(
      c, "{\"input\", 1, \"float32\", 2, {-1, 20}, 80u, {0, -1, -1, -1, -1, -1, -1, -1}},"))
      << c;
  EXPECT_TRUE(absl::StrContains(c, "static const char* const mlp_symbol_names[] = {MLP_SYMBOL0_NAME};"));
  EXPECT_TRUE(absl::StrContains(c, "MLP_SYMBOL_COUNT, mlp_symbol_names, MLP_GROWS};"));
  EXPECT_TRUE(absl::StrContains(c, "MLP_WORKSPACE_MIN_SIZE, MLP_WORKSPACE_ALIGNMENT"));
  // The pre-linked object keeps the workspace-size entry point.
  EXPECT_TRUE(absl::StrContains(FileText(files, "Makefile"), "-Wl,-u,mlp_workspace_size"));
  const std::string readme = FileText(files, "README.md");
  EXPECT_TRUE(absl::StrContains(readme, "symbolic dimensions: `N`")) << readme;
  EXPECT_TRUE(absl::StrContains(readme, "`N*")) << readme;  // the workspace formula
  EXPECT_TRUE(absl::StrContains(readme, "| `input` | float32 | Nx20 |")) << readme;
}

TEST(DynamicEmitter, ExternalWeightsFollowTheWorkspaceSize) {
  auto image = DynamicMlp();
  ASSERT_NE(image, nullptr);
  const std::string h = FileText(Emit(*image, "mlp", /*external_weights=*/true), "mlp.h");
  EXPECT_TRUE(absl::StrContains(h, "void* workspace, size_t workspace_bytes, const void* weights);"))
      << h;
}

TEST(DynamicEmitter, StaticModuleKeepsItsInterface) {
  std::string bytes = kiln::testing::BuildCopyModule({});
  auto image = vm::ModuleImage::LoadBytes(bytes.data(), bytes.size(), "copy.kiln");
  ASSERT_TRUE(image.ok()) << image.status();
  const std::vector<BundleFile> files = Emit(**image, "st");
  const std::string h = FileText(files, "st.h");
  const std::string c = FileText(files, "st.c");
  EXPECT_TRUE(absl::StrContains(h, "#define ST_HAS_SYMBOLS 0\n"));
  EXPECT_TRUE(absl::StrContains(h, "#define ST_GROWS 0\n"));
  EXPECT_TRUE(absl::StrContains(h, "#define ST_WORKSPACE_SIZE "));
  EXPECT_TRUE(absl::StrContains(h, "int st_run(const void* const* inputs, void* const* outputs, void* workspace);"));
  EXPECT_FALSE(absl::StrContains(h, "DIM_SYMBOLS"));
  EXPECT_FALSE(absl::StrContains(h, "dynamic_ops.h"));
  EXPECT_FALSE(absl::StrContains(c, "rb["));
  EXPECT_FALSE(absl::StrContains(c, "_shapes("));
  EXPECT_TRUE(absl::StrContains(c, "ST_INPUT_COUNT, ST_OUTPUT_COUNT, st_input_info, st_output_info,\n  0u, NULL, ST_GROWS};"))
      << c;
  EXPECT_FALSE(absl::StrContains(FileText(files, "Makefile"), "workspace_size"));
}

}  // namespace
}  // namespace kiln::aot
