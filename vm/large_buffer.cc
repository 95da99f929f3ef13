#include "vm/large_buffer.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <utility>

namespace kiln::vm {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;

// Under AddressSanitizer every buffer comes from the allocator, whose
// redzones catch a kernel writing past the workspace or reading past the
// module; a mapping rounded up to 2 MiB would hide that.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kMapLarge = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kMapLarge = false;
#else
constexpr bool kMapLarge = true;
#endif
#else
constexpr bool kMapLarge = true;
#endif

}  // namespace

LargeBuffer LargeBuffer::Allocate(size_t bytes, size_t alignment) {
  LargeBuffer buffer;
  alignment = std::max<size_t>(alignment, 64);
  if (!kMapLarge || bytes < kHugePage || alignment > kHugePage) {
    const size_t rounded = (bytes + alignment - 1) / alignment * alignment;
    buffer.data_ = static_cast<uint8_t*>(std::aligned_alloc(alignment, rounded ? rounded : alignment));
    return buffer;
  }
  // Over-map by one huge page, then trim to a 2 MiB aligned run.
  const size_t length = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  void* base = ::mmap(nullptr, length + kHugePage, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) return buffer;
  const uintptr_t begin = reinterpret_cast<uintptr_t>(base);
  const uintptr_t start = (begin + kHugePage - 1) & ~(uintptr_t{kHugePage} - 1);
  if (start > begin) ::munmap(base, start - begin);
  const uintptr_t end = begin + length + kHugePage;
  if (end > start + length) ::munmap(reinterpret_cast<void*>(start + length), end - start - length);
#ifdef MADV_HUGEPAGE
  // A hint: where THP is off or unsupported the pages stay small.
  ::madvise(reinterpret_cast<void*>(start), length, MADV_HUGEPAGE);
#endif
  buffer.data_ = reinterpret_cast<uint8_t*>(start);
  buffer.mapped_length_ = length;
  return buffer;
}

LargeBuffer::LargeBuffer(LargeBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      mapped_length_(std::exchange(other.mapped_length_, 0)) {}

LargeBuffer& LargeBuffer::operator=(LargeBuffer&& other) noexcept {
  if (this != &other) {
    Release();
    data_ = std::exchange(other.data_, nullptr);
    mapped_length_ = std::exchange(other.mapped_length_, 0);
  }
  return *this;
}

LargeBuffer::~LargeBuffer() { Release(); }

void LargeBuffer::Release() {
  if (data_ == nullptr) return;
  if (mapped_length_ > 0) {
    ::munmap(data_, mapped_length_);
  } else {
    std::free(data_);
  }
  data_ = nullptr;
  mapped_length_ = 0;
}

}  // namespace kiln::vm
