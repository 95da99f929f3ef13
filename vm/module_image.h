// The bytes of a module, read from a file or copied from memory, verified
// once (structure and semantics) before anything reads them. The VM and the
// AOT tool both load modules through this class.
#ifndef KILN_VM_MODULE_IMAGE_H_
#define KILN_VM_MODULE_IMAGE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "kiln/module_generated.h"
#include "vm/large_buffer.h"

namespace kiln::vm {

// Largest module file the loader accepts.
constexpr uint64_t kMaxModuleBytes = uint64_t{4} << 30;

class ModuleImage {
 public:
  // Reads `path` and verifies it.
  static absl::StatusOr<std::shared_ptr<const ModuleImage>> LoadFile(const std::string& path);
  // Copies `bytes` into 64-byte aligned memory and verifies them; `origin`
  // names the source in error messages.
  static absl::StatusOr<std::shared_ptr<const ModuleImage>> LoadBytes(
      const void* bytes, size_t size, const std::string& origin);

  ModuleImage(const ModuleImage&) = delete;
  ModuleImage& operator=(const ModuleImage&) = delete;
  ~ModuleImage() = default;

  const fb::Module& module() const { return *module_; }
  const uint8_t* data() const { return buffer_.data(); }
  size_t size() const { return size_; }
  const std::string& origin() const { return origin_; }
  // Start of constant `ordinal`'s bytes (verified in range and 64-byte aligned).
  const uint8_t* ConstantData(uint32_t ordinal) const;

 private:
  ModuleImage() = default;
  absl::Status Verify();

  size_t size_ = 0;
  LargeBuffer buffer_;  // the module's bytes
  const fb::Module* module_ = nullptr;
  std::string origin_;
};

}  // namespace kiln::vm

#endif  // KILN_VM_MODULE_IMAGE_H_
