// NumPy .npy files (format versions 1-3, little-endian, C order): how tensors
// enter and leave `kiln run` and the tests.
#ifndef KILN_VM_TOOLS_NPY_H_
#define KILN_VM_TOOLS_NPY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kiln/module_generated.h"

namespace kiln::vm {

struct NpyArray {
  fb::DType dtype = fb::DType::Unknown;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;  // element bytes, C order

  int64_t element_count() const;
  const float* floats() const { return reinterpret_cast<const float*>(data.data()); }
  float* floats() { return reinterpret_cast<float*>(data.data()); }
};

// Parses a .npy file; errors name the path and what is wrong.
absl::StatusOr<NpyArray> ReadNpy(const std::string& path);
absl::StatusOr<NpyArray> ParseNpy(const std::string& bytes, const std::string& origin);
absl::Status WriteNpy(const std::string& path, const NpyArray& array);
std::string SerializeNpy(const NpyArray& array);

}  // namespace kiln::vm

#endif  // KILN_VM_TOOLS_NPY_H_
