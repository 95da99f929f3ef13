#include "compiler/emit/panel_packing.h"

#include <cstring>
#include <memory>
#include <vector>

namespace kiln::compiler::emit {

ir::ConstantPtr PackPanels16(const ir::ConstantData& src, int64_t k, int64_t n,
                             const std::function<int64_t(int64_t, int64_t)>& at) {
  auto packed = std::make_shared<ir::ConstantData>();
  const int64_t panels = (n + kPanel - 1) / kPanel;
  packed->dtype = ir::DType::F32;
  packed->shape = {panels, k, kPanel};
  std::vector<float> out(static_cast<size_t>(panels * k * kPanel), 0.0f);
  const float* b = src.data<float>();
  for (int64_t kk = 0; kk < k; ++kk) {
    for (int64_t j = 0; j < n; ++j) out[(j / kPanel) * k * kPanel + kk * kPanel + j % kPanel] = b[at(kk, j)];
  }
  packed->bytes.resize(out.size() * sizeof(float));
  if (!out.empty()) std::memcpy(packed->bytes.data(), out.data(), packed->bytes.size());
  return packed;
}

ir::ConstantPtr PackConvPanels16(const ir::ConstantData& w, int64_t taps, int64_t c, int64_t oc) {
  return PackPanels16(w, taps * c, oc,
                      [taps, c](int64_t k, int64_t o) { return (o * c + k % c) * taps + k / c; });
}

ir::ConstantPtr TransposeF32(const ir::ConstantData& src, int64_t rows, int64_t cols) {
  auto out = std::make_shared<ir::ConstantData>();
  out->dtype = ir::DType::F32;
  out->shape = {cols, rows};
  out->bytes.resize(static_cast<size_t>(rows * cols) * sizeof(float));
  const float* a = src.data<float>();
  float* t = reinterpret_cast<float*>(out->bytes.data());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) t[c * rows + r] = a[r * cols + c];
  }
  return out;
}

}  // namespace kiln::compiler::emit
