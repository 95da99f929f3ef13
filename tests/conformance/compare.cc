#include "tests/conformance/compare.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "vm/dtype.h"

namespace kiln::conformance {
namespace {

using fb::DType;

template <typename T>
T Load(const vm::NpyArray& a, int64_t k) {
  T v;
  std::memcpy(&v, a.data.data() + k * sizeof(T), sizeof(T));
  return v;
}

double HalfToDouble(uint16_t h) {
  const int sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  double v;
  if (exp == 0) {
    v = std::ldexp(static_cast<double>(mant), -24);
  } else if (exp == 31) {
    v = mant ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  } else {
    v = std::ldexp(static_cast<double>(mant | 0x400), exp - 25);
  }
  return sign ? -v : v;
}

bool IsFloat(DType t) {
  return t == DType::F32 || t == DType::F64 || t == DType::F16 || t == DType::BF16;
}

// Integers compared through their exact 64-bit patterns (uint64 included).
uint64_t IntBits(const vm::NpyArray& a, int64_t k) {
  switch (a.dtype) {
    case DType::I8: return static_cast<uint64_t>(static_cast<int64_t>(Load<int8_t>(a, k)));
    case DType::I16: return static_cast<uint64_t>(static_cast<int64_t>(Load<int16_t>(a, k)));
    case DType::I32: return static_cast<uint64_t>(static_cast<int64_t>(Load<int32_t>(a, k)));
    case DType::I64: return static_cast<uint64_t>(Load<int64_t>(a, k));
    case DType::U8:
    case DType::Bool: return Load<uint8_t>(a, k);
    case DType::U16: return Load<uint16_t>(a, k);
    case DType::U32: return Load<uint32_t>(a, k);
    case DType::U64: return Load<uint64_t>(a, k);
    default: return 0;
  }
}

std::string IntStr(const vm::NpyArray& a, int64_t k) {
  const uint64_t b = IntBits(a, k);
  if (a.dtype == DType::U64) return absl::StrCat(b);
  return absl::StrCat(static_cast<int64_t>(b));
}

}  // namespace

double ElementAsDouble(const vm::NpyArray& a, int64_t k) {
  switch (a.dtype) {
    case DType::F32: return Load<float>(a, k);
    case DType::F64: return Load<double>(a, k);
    case DType::F16: return HalfToDouble(Load<uint16_t>(a, k));
    case DType::BF16: {  // a float32's high half
      const uint32_t bits = static_cast<uint32_t>(Load<uint16_t>(a, k)) << 16;
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    }
    case DType::U64: return static_cast<double>(IntBits(a, k));
    default: return static_cast<double>(static_cast<int64_t>(IntBits(a, k)));
  }
}

std::string CompareTensors(const vm::NpyArray& got, const vm::NpyArray& ref) {
  if (got.dtype != ref.dtype) {
    return absl::StrCat("dtype ", DTypeName(got.dtype), " != reference ", DTypeName(ref.dtype));
  }
  if (got.shape != ref.shape) {
    return absl::StrCat("shape [", absl::StrJoin(got.shape, ","), "] != reference [",
                        absl::StrJoin(ref.shape, ","), "]");
  }
  const int64_t n = ref.element_count();
  if (got.data.size() < static_cast<size_t>(n) * DTypeSize(ref.dtype)) return "output too small";
  if (!IsFloat(ref.dtype)) {
    int64_t bad = 0, first = -1;
    for (int64_t k = 0; k < n; ++k) {
      if (IntBits(got, k) != IntBits(ref, k)) {
        if (first < 0) first = k;
        ++bad;
      }
    }
    if (bad == 0) return "";
    return absl::StrCat("numerics: ", bad, " of ", n, " ", DTypeName(ref.dtype),
                        " elements differ, first at ", first, " (got ", IntStr(got, first),
                        ", ref ", IntStr(ref, first), ")");
  }
  int64_t bad = 0, worst_k = -1;
  double worst = 0;
  for (int64_t k = 0; k < n; ++k) {
    const double g = ElementAsDouble(got, k), r = ElementAsDouble(ref, k);
    if (std::isnan(r) && std::isnan(g)) continue;
    if (g == r) continue;  // equal infinities included
    const double diff = std::fabs(g - r);
    if (!(diff <= kAtol + kRtol * std::fabs(r))) {
      ++bad;
      if (worst_k < 0 || !(diff <= worst)) {
        worst = diff;
        worst_k = k;
      }
    }
  }
  if (bad == 0) return "";
  return absl::StrCat("numerics: ", bad, " of ", n, " elements beyond tolerance, worst |diff| ",
                      worst, " at ", worst_k, " (got ", ElementAsDouble(got, worst_k), ", ref ",
                      ElementAsDouble(ref, worst_k), ")");
}

}  // namespace kiln::conformance
