#include "vm/module_image.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "vm/module_verifier.h"

namespace kiln::vm {

absl::StatusOr<std::shared_ptr<const ModuleImage>> ModuleImage::LoadFile(
    const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    std::string msg = absl::StrCat("cannot open module '", path, "': ", std::strerror(err));
    return err == ENOENT ? absl::NotFoundError(msg) : absl::InvalidArgumentError(msg);
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return absl::InvalidArgumentError(absl::StrCat("module '", path, "' is not a regular file"));
  }
  uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size == 0 || size > kMaxModuleBytes) {
    ::close(fd);
    return absl::InvalidArgumentError(absl::StrCat("module '", path, "' has size ", size,
                                                   " bytes; expected 1..", kMaxModuleBytes));
  }
  // Read, not mapped: a copy in a LargeBuffer gets huge pages, which a
  // mapping of the file's page cache mostly does not.
  LargeBuffer buffer = LargeBuffer::Allocate(size, 64);
  if (buffer.data() == nullptr) {
    ::close(fd);
    return absl::ResourceExhaustedError(
        absl::StrCat("out of memory loading module '", path, "' (", size, " bytes)"));
  }
  for (uint64_t done = 0; done < size;) {
    const ssize_t got = ::read(fd, buffer.data() + done, size - done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      const std::string why = got < 0 ? std::strerror(errno) : "the file ended early";
      ::close(fd);
      return absl::InvalidArgumentError(absl::StrCat("cannot read module '", path, "': ", why));
    }
    done += static_cast<uint64_t>(got);
  }
  ::close(fd);
  std::shared_ptr<ModuleImage> image(new ModuleImage());
  image->size_ = size;
  image->buffer_ = std::move(buffer);
  image->origin_ = path;
  if (absl::Status status = image->Verify(); !status.ok()) return status;
  return std::shared_ptr<const ModuleImage>(std::move(image));
}

absl::StatusOr<std::shared_ptr<const ModuleImage>> ModuleImage::LoadBytes(
    const void* bytes, size_t size, const std::string& origin) {
  if (size == 0 || size > kMaxModuleBytes) {
    return absl::InvalidArgumentError(absl::StrCat("module '", origin, "' has size ", size,
                                                   " bytes; expected 1..", kMaxModuleBytes));
  }
  // Constants are 64-byte aligned relative to the buffer start, so the copy
  // must start on a 64-byte boundary too.
  LargeBuffer buffer = LargeBuffer::Allocate(size, 64);
  if (buffer.data() == nullptr) return absl::ResourceExhaustedError("out of memory loading module");
  std::memcpy(buffer.data(), bytes, size);
  std::shared_ptr<ModuleImage> image(new ModuleImage());
  image->size_ = size;
  image->buffer_ = std::move(buffer);
  image->origin_ = origin;
  if (absl::Status status = image->Verify(); !status.ok()) return status;
  return std::shared_ptr<const ModuleImage>(std::move(image));
}

absl::Status ModuleImage::Verify() {
  absl::StatusOr<const fb::Module*> module = VerifyModuleBytes(data(), size_, origin_);
  if (!module.ok()) return module.status();
  module_ = *module;
  return absl::OkStatus();
}

const uint8_t* ModuleImage::ConstantData(uint32_t ordinal) const {
  const fb::Constant* constant = module_->constants()->Get(ordinal);
  return module_->constant_data()->data() + constant->offset();
}

}  // namespace kiln::vm
