// .npy parsing: round trips, NumPy-written files, and malformed input.
#include <fstream>
#include <sstream>

#include "gtest/gtest.h"
#include "vm/npy.h"

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
