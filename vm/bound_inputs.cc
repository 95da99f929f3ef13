#include "vm/bound_inputs.h"

#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "vm/dtype.h"

namespace kiln::vm {
namespace {

// Element k of a little-endian buffer of `dtype`, as text.
std::string ElementText(fb::DType dtype, const uint8_t* p, size_t k) {
  switch (dtype) {
    case fb::DType::F32: { float v; std::memcpy(&v, p + 4 * k, 4); return absl::StrCat(v); }
    case fb::DType::F64: { double v; std::memcpy(&v, p + 8 * k, 8); return absl::StrCat(v); }
    case fb::DType::Bool: return p[k] ? "true" : "false";
    case fb::DType::I8: return absl::StrCat(static_cast<int8_t>(p[k]));
    case fb::DType::U8: return absl::StrCat(p[k]);
    case fb::DType::I16: { int16_t v; std::memcpy(&v, p + 2 * k, 2); return absl::StrCat(v); }
    case fb::DType::U16: { uint16_t v; std::memcpy(&v, p + 2 * k, 2); return absl::StrCat(v); }
    case fb::DType::I32: { int32_t v; std::memcpy(&v, p + 4 * k, 4); return absl::StrCat(v); }
    case fb::DType::U32: { uint32_t v; std::memcpy(&v, p + 4 * k, 4); return absl::StrCat(v); }
    case fb::DType::I64: { int64_t v; std::memcpy(&v, p + 8 * k, 8); return absl::StrCat(v); }
    case fb::DType::U64: { uint64_t v; std::memcpy(&v, p + 8 * k, 8); return absl::StrCat(v); }
    default: return "?";
  }
}

// "16000" or "1,2,3" (at most eight values, then "...").
std::string ValuesText(fb::DType dtype, const uint8_t* p, size_t bytes) {
  const size_t size = DTypeSize(dtype);
  const size_t count = size == 0 ? 0 : bytes / size;
  std::vector<std::string> parts;
  for (size_t k = 0; k < count && k < 8; ++k) parts.push_back(ElementText(dtype, p, k));
  if (count > 8) parts.push_back("...");
  return absl::StrJoin(parts, ",");
}

std::string ShapeText(const flatbuffers::Vector<int64_t>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ","), "]");
}

}  // namespace

const fb::BoundInput* FindBoundInput(const fb::Signature& sig, const std::string& name) {
  if (sig.bound_inputs() == nullptr) return nullptr;
  for (const fb::BoundInput* b : *sig.bound_inputs()) {
    if (b->desc()->name()->str() == name) return b;
  }
  return nullptr;
}

std::string DescribeBoundInput(const fb::BoundInput& bound) {
  const fb::TensorDesc& d = *bound.desc();
  return absl::StrCat(d.name()->str(), " ", DTypeName(d.dtype()), ShapeText(*d.shape()), " = ",
                      ValuesText(d.dtype(), bound.value()->data(), bound.value()->size()));
}

absl::Status CheckBoundInputValue(const fb::BoundInput& bound, fb::DType dtype,
                                  absl::Span<const int64_t> shape,
                                  absl::Span<const uint8_t> data) {
  const fb::TensorDesc& d = *bound.desc();
  const std::vector<int64_t> bound_shape(d.shape()->begin(), d.shape()->end());
  const bool same = dtype == d.dtype() && shape == absl::MakeConstSpan(bound_shape) &&
                    data.size() == bound.value()->size() &&
                    std::memcmp(data.data(), bound.value()->data(), data.size()) == 0;
  if (same) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "input '", d.name()->str(), "' was bound at compile time (--input-value) to ",
      DescribeBoundInput(bound), "; this run gives ", DTypeName(dtype), "[",
      absl::StrJoin(shape, ","), "] = ", ValuesText(dtype, data.data(), data.size()),
      ": compile the model again to use another value"));
}

}  // namespace kiln::vm
