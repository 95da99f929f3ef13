// Memory for what the kernels stream through on every run: the module's
// constants and the workspace. From 2 MiB up it is an anonymous mapping,
// 2 MiB aligned and advised for transparent huge pages (Linux's THP
// "madvise" mode, the common default), so weights and activations cost one
// TLB entry per 2 MiB instead of 512. ResNet-18 ran about 6% faster per run
// on AMD Zen 5 this way (every dispatch 2-24% faster; docs/benchmarks.md).
// Below 2 MiB, and where the hint is not supported, it is plain aligned
// memory.
#ifndef KILN_VM_LARGE_BUFFER_H_
#define KILN_VM_LARGE_BUFFER_H_

#include <cstddef>
#include <cstdint>

namespace kiln::vm {

class LargeBuffer {
 public:
  LargeBuffer() = default;
  // `bytes` (uninitialised) aligned to `alignment`, a power of two; data()
  // is null when the memory cannot be had.
  static LargeBuffer Allocate(size_t bytes, size_t alignment);

  LargeBuffer(LargeBuffer&& other) noexcept;
  LargeBuffer& operator=(LargeBuffer&& other) noexcept;
  LargeBuffer(const LargeBuffer&) = delete;
  LargeBuffer& operator=(const LargeBuffer&) = delete;
  ~LargeBuffer();

  uint8_t* data() const { return data_; }

 private:
  void Release();

  uint8_t* data_ = nullptr;
  size_t mapped_length_ = 0;  // > 0: munmap this many bytes; 0: free()
};

}  // namespace kiln::vm

#endif  // KILN_VM_LARGE_BUFFER_H_
