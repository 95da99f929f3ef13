// Hand-made malformed modules for the result symbols (ILOAD) and the output
// dims held in integer registers (TensorDesc.dim_registers), written by
// tests/malformed/make_module_corpus.py: each is refused at load (the VM's
// ModuleImage and `kiln aot`, which loads the same way) with its own error.
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "vm/module_image.h"

namespace kiln {
namespace {

const std::string kModules = std::string(KILN_SOURCE_DIR) + "/tests/malformed/modules/";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

struct Case {
  const char* file;
  const char* error;  // a fragment the message must contain
};

class DataSymbolModule : public ::testing::TestWithParam<Case> {};

TEST_P(DataSymbolModule, IsRefusedWithItsError) {
  const Case& c = GetParam();
  const std::string bytes = ReadFile(kModules + c.file);
  ASSERT_FALSE(bytes.empty()) << c.file;
  auto image = vm::ModuleImage::LoadBytes(bytes.data(), bytes.size(), c.file);
  ASSERT_FALSE(image.ok()) << c.file << " was accepted";
  const std::string message(image.status().message());
  EXPECT_NE(message.find(c.error), std::string::npos) << message;
  EXPECT_NE(message.find(c.file), std::string::npos) << "message does not name the file: " << message;
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, DataSymbolModule,
    ::testing::Values(
        Case{"iload_result_out_of_range.kiln", "function 'main' +54: result symbol 5 out of range"},
        Case{"iload_callee_result_out_of_range.kiln",
             "function 'callee' +0: result symbol 5 out of range"},
        Case{"result_slot_outside_arena.kiln",
             "result symbol 0 is read at arena offset 448, not an aligned int64 inside the "
             "448-byte arena"},
        Case{"result_slot_past_uint64.kiln", "arena offset 18446744073709551608"},
        Case{"result_slot_misaligned.kiln", "arena offset 385, not an aligned int64"},
        Case{"result_symbol_repeated.kiln", "result symbol 1 is unnamed or repeats"},
        Case{"result_bound_negative.kiln", "but is not its bound -1"},
        Case{"result_dim_not_bound.kiln", "but is not its bound 12"},
        Case{"dim_registers_on_input.kiln",
             "signature input 0 has dim registers but is no output with symbolic dims"},
        Case{"dim_registers_out_of_range.kiln",
             "signature output 1 dim 0 names integer register 100000, which is out of range"},
        Case{"dim_registers_negative_huge.kiln",
             "signature output 1 dim 1 names integer register 2147483647"},
        Case{"dim_registers_short.kiln", "signature output 1 has dim registers but is no output"},
        Case{"dim_registers_static_dim.kiln",
             "signature output 1 dim 1 names integer register 2, which is out of range or not "
             "for a -1 dim"},
        // Accepted before: the VM refused the run at BindInputs, while the
        // AOT bundle's NAME_output_dims read the register uninitialised.
        Case{"dim_register_after_iload.kiln",
             "signature output 0 dim 0 names integer register n8, which the entry function "
             "does not write before any ILOAD"},
        Case{"dim_register_unwritten.kiln",
             "which the entry function does not write before any ILOAD"},
        // Accepted before: the VM used a stale workspace size, the AOT
        // bundle read the register uninitialised.
        Case{"workspace_register_after_iload.kiln",
             "workspace register n8 is not written by the entry function before any ILOAD"},
        Case{"workspace_register_is_iload.kiln",
             "workspace register n7 is not written by the entry function"},
        Case{"workspace_register_unwritten.kiln",
             "workspace register n53 is not written by the entry function"},
        // Accepted before: the output's dim is N - N = 0, yet a static view
        // let a 16-byte copy write into the caller's empty buffer.
        Case{"dim_register_zero_static_view.kiln",
             "+10: VIEW_OUTPUT of output 0, whose dims include an expression of the symbols"}),
    [](const ::testing::TestParamInfo<Case>& info) {
      std::string name = info.param.file;
      return name.substr(0, name.find('.'));
    });

}  // namespace
}  // namespace kiln
