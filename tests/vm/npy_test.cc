// .npy parsing: round trips, NumPy-written files, and malformed input.
#include <fstream>
#include <sstream>

#include "gtest/gtest.h"
#include "vm/tools/npy.h"

namespace kiln::vm {
namespace {

TEST(Npy, RoundTripsFloat32) {
  NpyArray a;
  a.dtype = fb::DType::F32;
  a.shape = {2, 3};
  a.data.resize(24);
  for (int i = 0; i < 6; ++i) a.floats()[i] = 0.5f * static_cast<float>(i) - 1.0f;
  auto b = ParseNpy(SerializeNpy(a), "mem");
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->dtype, fb::DType::F32);
  EXPECT_EQ(b->shape, a.shape);
  EXPECT_EQ(b->data, a.data);
}

TEST(Npy, RoundTripsScalarAndVector) {
  for (std::vector<int64_t> shape : {std::vector<int64_t>{}, std::vector<int64_t>{5}}) {
    NpyArray a;
    a.dtype = fb::DType::F32;
    a.shape = shape;
    a.data.assign(4 * static_cast<size_t>(a.element_count()), 1);
    auto b = ParseNpy(SerializeNpy(a), "mem");
    ASSERT_TRUE(b.ok()) << b.status();
    EXPECT_EQ(b->shape, shape);
  }
}

// bfloat16 has no NumPy type: written as ml_dtypes does ('<V2'), read from
// '<V2' or '|V2' (what NumPy writes for a plain 2-byte void array).
TEST(Npy, BFloat16IsTwoByteVoid) {
  NpyArray a;
  a.dtype = fb::DType::BF16;
  a.shape = {2};
  a.data = {0x80, 0x3f, 0x00, 0xc0};  // 1.0, -2.0
  const std::string bytes = SerializeNpy(a);
  EXPECT_NE(bytes.find("'descr': '<V2'"), std::string::npos) << bytes.substr(0, 64);
  auto b = ParseNpy(bytes, "mem");
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->dtype, fb::DType::BF16);
  EXPECT_EQ(b->data, a.data);
  std::string plain_void = bytes;
  plain_void.replace(plain_void.find("<V2"), 3, "|V2");
  auto c = ParseNpy(plain_void, "mem");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->dtype, fb::DType::BF16);
}

// A file NumPy wrote (by tests/models/generate.py): float64 [1, 784].
TEST(Npy, ReadsNumpyWrittenFile) {
  auto a = ReadNpy(std::string(KILN_SOURCE_DIR) + "/tests/models/bad/tiny_mlp.input0.float64.npy");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->dtype, fb::DType::F64);
  EXPECT_EQ(a->data.size(), static_cast<size_t>(a->element_count()) * 8);
}

TEST(Npy, RefusesGarbage) {
  auto a = ParseNpy("definitely not numpy", "junk.npy");
  ASSERT_FALSE(a.ok());
  EXPECT_NE(std::string(a.status().message()).find("junk.npy"), std::string::npos);
}

TEST(Npy, RefusesTruncatedData) {
  NpyArray a;
  a.dtype = fb::DType::F32;
  a.shape = {8};
  a.data.resize(32);
  std::string bytes = SerializeNpy(a);
  auto b = ParseNpy(bytes.substr(0, bytes.size() - 3), "short.npy");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(std::string(b.status().message()).find("data bytes"), std::string::npos);
}

TEST(Npy, RefusesMissingFile) {
  auto a = ReadNpy("/no/such/file.npy");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace kiln::vm
