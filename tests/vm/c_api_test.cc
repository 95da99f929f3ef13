// The C embedding API (kiln/vm.h) and its C++ wrapper: a round trip through a
// hand-built copy module, and every misuse gets an error naming what is wrong.
#include <cstring>
#include <string>

#include "gtest/gtest.h"
#include "kiln/vm.h"
#include "kiln/vm.hpp"
#include "tests/vm/c_api_util.h"
#include "tests/vm/dynamic_module_builder.h"
#include "tests/vm/test_module_builder.h"

namespace {

using kiln::testing::Loaded;
using kiln::testing::Message;

void Load(Loaded* l) {
  std::string bytes = kiln::testing::BuildCopyModule({});
  ASSERT_EQ(kiln_vm_module_load_memory(bytes.data(), bytes.size(), &l->module), nullptr);
  ASSERT_EQ(kiln_vm_instance_create(l->module, &l->instance), nullptr);
}

TEST(CApi, RoundTrip) {
  Loaded l;
  Load(&l);
  ASSERT_EQ(kiln_vm_module_input_count(l.module), 1u);
  ASSERT_EQ(kiln_vm_module_output_count(l.module), 1u);
  kiln_vm_tensor_info info;
  ASSERT_EQ(kiln_vm_module_input_info(l.module, 0, &info), nullptr);
  EXPECT_STREQ(info.name, "x");
  EXPECT_EQ(info.dtype, KILN_VM_DTYPE_F32);
  EXPECT_STREQ(kiln_vm_dtype_name(info.dtype), "float32");
  ASSERT_EQ(info.rank, 1u);
  EXPECT_EQ(info.shape[0], 4);
  EXPECT_EQ(info.element_count, 4u);
  EXPECT_EQ(info.byte_size, 16u);
  size_t index = 9;
  ASSERT_EQ(kiln_vm_module_find_output(l.module, "y", &index), nullptr);
  EXPECT_EQ(index, 0u);
  EXPECT_EQ(kiln_vm_module_arena_bytes(l.module), 64u);

  // The module handle may go before the instance.
  kiln_vm_module_release(l.module);
  l.module = nullptr;
  float in[4] = {0.5f, -1, 2, 3}, out[4] = {};
  ASSERT_EQ(kiln_vm_instance_bind_input(l.instance, 0, in, sizeof in), nullptr);
  ASSERT_EQ(kiln_vm_instance_bind_output(l.instance, 0, out, sizeof out), nullptr);
  ASSERT_EQ(kiln_vm_instance_run(l.instance), nullptr);
  EXPECT_EQ(std::memcmp(in, out, sizeof in), 0);
}

TEST(CApi, ErrorsNameTheProblem) {
  kiln_vm_module* m = nullptr;
  kiln_vm_error* e = kiln_vm_module_load_file("/nonexistent/model.kiln", &m);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(m, nullptr);
  EXPECT_NE(std::string(kiln_vm_error_message(e)).find("/nonexistent/model.kiln"), std::string::npos);
  kiln_vm_error_free(e);

  const char junk[] = "definitely not a flatbuffer module";
  e = kiln_vm_module_load_memory(junk, sizeof junk, &m);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(kiln_vm_error_code(e), KILN_VM_INVALID_ARGUMENT);
  kiln_vm_error_free(e);

  Loaded l;
  Load(&l);
  kiln_vm_tensor_info info;
  EXPECT_NE(Message(kiln_vm_module_output_info(l.module, 3, &info)).find("output index 3 is out of range"),
            std::string::npos);
  size_t index;
  EXPECT_NE(Message(kiln_vm_module_find_input(l.module, "nope", &index)).find("no input named 'nope'"),
            std::string::npos);
  EXPECT_NE(Message(kiln_vm_instance_run(l.instance)).find("input 0 is not bound"), std::string::npos);
  float small[2];
  EXPECT_NE(Message(kiln_vm_instance_bind_input(l.instance, 0, small, sizeof small))
                .find("input 0 ('x'): buffer holds 8 bytes; the module needs 16"),
            std::string::npos);
  alignas(8) unsigned char raw[32];
  EXPECT_NE(Message(kiln_vm_instance_bind_output(l.instance, 0, raw + 1, 17)).find("not aligned"),
            std::string::npos);
  EXPECT_NE(Message(kiln_vm_instance_bind_output(l.instance, 0, nullptr, 16)).find("null buffer"),
            std::string::npos);
  EXPECT_EQ(kiln_vm_error_code(nullptr), KILN_VM_OK);
}

TEST(CppWrapper, RunsAndThrows) {
  std::string bytes = kiln::testing::BuildCopyModule({});
  kiln::embed::Module module = kiln::embed::Module::LoadMemory(bytes.data(), bytes.size());
  EXPECT_EQ(module.FindInput("x"), 0u);
  kiln::embed::Instance vm(module);
  float in[4] = {1, 2, 3, 4}, out[4] = {};
  vm.BindInput(0, in, sizeof in);
  vm.BindOutput(0, out, sizeof out);
  vm.Run();
  EXPECT_EQ(out[3], 4.0f);
  try {
    vm.BindInput(1, in, sizeof in);
    FAIL() << "no exception";
  } catch (const kiln::embed::Error& e) {
    EXPECT_EQ(e.code(), KILN_VM_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("input index 1"), std::string::npos);
  }
}

// A module with a symbolic batch N ([N,4] in and out): shapes set per run,
// the workspace reserved, output shapes reported; too little workspace and
// a wrong static dim are errors.
TEST(CApi, SymbolicDimensions) {
  Loaded l;
  const std::string bytes = kiln::testing::BuildDynamicCopyModule({});
  ASSERT_EQ(kiln_vm_module_load_memory(bytes.data(), bytes.size(), &l.module), nullptr);
  ASSERT_EQ(kiln_vm_instance_create(l.module, &l.instance), nullptr);
  kiln_vm_tensor_info info;
  ASSERT_EQ(kiln_vm_module_input_info(l.module, 0, &info), nullptr);
  EXPECT_EQ(info.shape[0], -1);
  EXPECT_EQ(info.byte_size, 16u);  // the static factor: N counts as 1
  float in[12], out[12] = {};
  for (int k = 0; k < 12; ++k) in[k] = static_cast<float>(k) - 2.5f;
  const int64_t three[] = {3, 4};
  ASSERT_EQ(kiln_vm_instance_set_input_shape(l.instance, 0, three, 2), nullptr);
  ASSERT_EQ(kiln_vm_instance_bind_input(l.instance, 0, in, sizeof in), nullptr);
  ASSERT_EQ(kiln_vm_instance_bind_output(l.instance, 0, out, sizeof out), nullptr);
  ASSERT_EQ(kiln_vm_instance_reserve(l.instance), nullptr);
  int64_t dims[4] = {};
  size_t rank = 0;
  ASSERT_EQ(kiln_vm_instance_output_shape(l.instance, 0, dims, 4, &rank), nullptr);
  ASSERT_EQ(rank, 2u);
  EXPECT_EQ(dims[0], 3);
  EXPECT_EQ(dims[1], 4);
  kiln_vm_error* e = kiln_vm_instance_run(l.instance);
  ASSERT_EQ(e, nullptr) << Message(e);
  EXPECT_EQ(std::memcmp(in, out, sizeof in), 0);

  // Two rows fit the workspace reserved for three.
  const int64_t two[] = {2, 4};
  ASSERT_EQ(kiln_vm_instance_set_input_shape(l.instance, 0, two, 2), nullptr);
  std::memset(out, 0, sizeof out);
  e = kiln_vm_instance_run(l.instance);
  ASSERT_EQ(e, nullptr) << Message(e);
  EXPECT_EQ(std::memcmp(in, out, 8 * sizeof(float)), 0);

  float big_in[20] = {}, big_out[20] = {};
  const int64_t five[] = {5, 4};
  ASSERT_EQ(kiln_vm_instance_set_input_shape(l.instance, 0, five, 2), nullptr);
  ASSERT_EQ(kiln_vm_instance_bind_input(l.instance, 0, big_in, sizeof big_in), nullptr);
  ASSERT_EQ(kiln_vm_instance_bind_output(l.instance, 0, big_out, sizeof big_out), nullptr);
  e = kiln_vm_instance_run(l.instance);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(kiln_vm_error_code(e), KILN_VM_RESOURCE_EXHAUSTED);
  EXPECT_NE(Message(e).find("80-byte workspace"), std::string::npos);
  ASSERT_EQ(kiln_vm_instance_reserve(l.instance), nullptr);
  e = kiln_vm_instance_run(l.instance);
  ASSERT_EQ(e, nullptr) << Message(e);

  const int64_t bad[] = {5, 3};
  ASSERT_EQ(kiln_vm_instance_set_input_shape(l.instance, 0, bad, 2), nullptr);
  e = kiln_vm_instance_run(l.instance);
  ASSERT_NE(e, nullptr);
  EXPECT_NE(Message(e).find("has shape [5,3]; the module expects [5,4]"), std::string::npos);
  const int64_t rank3[] = {1, 2, 3};
  e = kiln_vm_instance_set_input_shape(l.instance, 0, rank3, 3);
  ASSERT_NE(e, nullptr);
  EXPECT_NE(Message(e).find("has rank 2; got a shape of rank 3"), std::string::npos);
}

}  // namespace
