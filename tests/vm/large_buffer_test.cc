// LargeBuffer holds the module image and the workspace: aligned as asked,
// every byte usable, owned once; the loader reads a module file into one,
// and a workspace of several MiB (the huge-page route) runs a model.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "tests/vm/test_module_builder.h"
#include "vm/instance.h"
#include "vm/large_buffer.h"
#include "vm/module_image.h"

namespace kiln::vm {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

bool AlignedTo(const void* p, size_t alignment) {
  return reinterpret_cast<uintptr_t>(p) % alignment == 0;
}

TEST(LargeBuffer, IsAlignedAndEveryByteIsUsable) {
  for (size_t bytes : {size_t{1}, size_t{4096}, 2 * kMiB - 1, 2 * kMiB, 5 * kMiB + 3}) {
    for (size_t alignment : {size_t{64}, size_t{256}, size_t{4096}}) {
      LargeBuffer buffer = LargeBuffer::Allocate(bytes, alignment);
      ASSERT_NE(buffer.data(), nullptr) << bytes;
      EXPECT_TRUE(AlignedTo(buffer.data(), alignment)) << bytes << " " << alignment;
      std::memset(buffer.data(), 0x5a, bytes);
      EXPECT_EQ(buffer.data()[0], 0x5a);
      EXPECT_EQ(buffer.data()[bytes - 1], 0x5a);
    }
  }
}

TEST(LargeBuffer, MovesOwnership) {
  LargeBuffer a = LargeBuffer::Allocate(3 * kMiB, 64);
  uint8_t* const p = a.data();
  ASSERT_NE(p, nullptr);
  LargeBuffer b(std::move(a));
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): moved-from is empty
  EXPECT_EQ(b.data(), p);
  LargeBuffer c = LargeBuffer::Allocate(64, 64);
  c = std::move(b);  // c's small buffer is released, b's taken
  EXPECT_EQ(c.data(), p);
  EXPECT_EQ(b.data(), nullptr);  // NOLINT(bugprone-use-after-move)
}

TEST(LargeBuffer, LoadFileReadsTheFilesBytes) {
  const std::string bytes = kiln::testing::BuildCopyModule({});
  const std::string path = ::testing::TempDir() + "/large_buffer_copy.kiln";
  {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  auto image = ModuleImage::LoadFile(path);
  std::remove(path.c_str());
  ASSERT_TRUE(image.ok()) << image.status();
  ASSERT_EQ((*image)->size(), bytes.size());
  EXPECT_EQ(std::memcmp((*image)->data(), bytes.data(), bytes.size()), 0);
  EXPECT_TRUE(AlignedTo((*image)->data(), 64));
}

TEST(LargeBuffer, ADirectoryIsNotAModule) {
  auto image = ModuleImage::LoadFile(::testing::TempDir());
  ASSERT_FALSE(image.ok());
  EXPECT_NE(std::string(image.status().message()).find("is not a regular file"), std::string::npos)
      << image.status();
}

// A 6 MiB workspace: the copy passes through the arena on the huge-page route.
TEST(LargeBuffer, AWorkspaceOfSeveralMiBRunsTheModel) {
  kiln::testing::CopyModuleSpec spec;
  spec.elements = int64_t{3} << 19;  // 6 MiB of float32
  spec.arena_size = static_cast<uint64_t>(spec.elements) * 4;
  const std::string bytes = kiln::testing::BuildCopyModule(spec);
  auto image = ModuleImage::LoadBytes(bytes.data(), bytes.size(), "copy6m.kiln");
  ASSERT_TRUE(image.ok()) << image.status();
  auto instance = Instance::Create(*image);
  ASSERT_TRUE(instance.ok()) << instance.status();
  EXPECT_EQ((*instance)->arena_bytes(), spec.arena_size);
  std::vector<float> in(static_cast<size_t>(spec.elements)), out(in.size(), -1.0f);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 1000) * 0.5f;
  const int64_t shape[] = {spec.elements};
  HostTensor x{fb::DType::F32, shape, in.data(), in.size() * sizeof(float)};
  HostTensor y{fb::DType::F32, shape, out.data(), out.size() * sizeof(float)};
  ASSERT_TRUE((*instance)->Run({x}, {y}).ok());
  EXPECT_EQ(out, in);
}

}  // namespace
}  // namespace kiln::vm
