// Source files compiled into the kiln binary (aot/embed_files.cmake): the
// runtime kernels and headers an AOT bundle copies, and the runner template.
#ifndef KILN_AOT_EMBEDDED_FILES_H_
#define KILN_AOT_EMBEDDED_FILES_H_

#include <cstddef>
#include <string_view>

namespace kiln::aot {

struct EmbeddedFile {
  const char* path;  // relative to the source root, e.g. "runtime/kernels/conv2d.c"
  const char* contents;
};

extern const EmbeddedFile kEmbeddedFiles[];
extern const size_t kEmbeddedFileCount;

// The embedded file at `path`, or nullptr.
const EmbeddedFile* FindEmbeddedFile(std::string_view path);

}  // namespace kiln::aot

#endif  // KILN_AOT_EMBEDDED_FILES_H_
