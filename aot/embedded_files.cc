#include "aot/embedded_files.h"

namespace kiln::aot {

const EmbeddedFile* FindEmbeddedFile(std::string_view path) {
  for (size_t i = 0; i < kEmbeddedFileCount; ++i) {
    if (path == kEmbeddedFiles[i].path) return &kEmbeddedFiles[i];
  }
  return nullptr;
}

}  // namespace kiln::aot
