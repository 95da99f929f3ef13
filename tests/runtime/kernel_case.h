// Shared by the runtime kernel tests: loads a reference case written by
// tests/runtime/make_reference.py, runs the kernel named in it through the
// table in kiln/kernel_table.def, and checks both the numbers and the
// checker's verdicts on the case's parameters.
#ifndef KILN_TESTS_RUNTIME_KERNEL_CASE_H_
#define KILN_TESTS_RUNTIME_KERNEL_CASE_H_

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "kiln/kernels.h"

namespace kiln_test {

// Tolerance for float outputs against the float64 references:
// |got - want| <= kAtol + kRtol * |want|.
constexpr double kRtol = 1e-5;
constexpr double kAtol = 1e-5;

struct KernelEntry {
  const char* name;
  int binding_count;
  kiln_kernel_fn fn;
  kiln_kernel_check_fn check;
};

inline const KernelEntry* FindKernel(const std::string& name) {
  static const KernelEntry kTable[] = {
#define KILN_KERNEL(NAME, BINDINGS, WRITES, SOURCE, IPARAMS, FPARAMS) \
  {#NAME, BINDINGS, kiln_##NAME, kiln_##NAME##_check},
#include "kiln/kernel_table.def"
#undef KILN_KERNEL
  };
  for (const KernelEntry& e : kTable)
    if (name == e.name) return &e;
  return nullptr;
}

// kScratch: the kernel's working memory (written, never compared).
enum Role : uint32_t { kIn = 0, kOut = 1, kUnused = 2, kInOut = 3, kScratch = 4 };

struct CaseBinding {
  uint32_t role = kIn;
  bool tight = true;  // the kernel reaches the binding's last byte
  uint64_t nbytes = 0;
  std::vector<unsigned char> initial, expected;
};

struct Case {
  std::string name, kernel;
  bool bitwise = false;
  std::vector<int64_t> iparams;
  std::vector<float> fparams;
  std::vector<CaseBinding> bindings;

  const float* fp() const { return fparams.empty() ? nullptr : fparams.data(); }
  std::vector<uint64_t> binding_bytes() const {
    std::vector<uint64_t> b;
    for (const CaseBinding& cb : bindings) b.push_back(cb.nbytes);
    return b;
  }
  int Check(const std::vector<int64_t>& ip, const std::vector<uint64_t>& bytes) const {
    return FindKernel(kernel)->check(ip.data(), static_cast<uint32_t>(ip.size()), fp(),
                                     static_cast<uint32_t>(fparams.size()), bytes.data());
  }
};

class Reader {
 public:
  explicit Reader(std::vector<unsigned char> data) : data_(std::move(data)) {}
  bool Take(void* out, size_t n) {
    if (n > data_.size() - pos_) return false;
    if (n) std::memcpy(out, data_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  bool Bytes(std::vector<unsigned char>* out, size_t n) {
    out->resize(n);
    return Take(out->data(), n);
  }
  bool AtEnd() const { return pos_ == data_.size(); }

 private:
  std::vector<unsigned char> data_;
  size_t pos_ = 0;
};

// Loads tests/runtime/data/<name>.bin; on failure returns false with *error set.
inline bool LoadCase(const std::string& name, Case* c, std::string* error) {
  const std::string path = std::string(KILN_SOURCE_DIR) + "/tests/runtime/data/" + name + ".bin";
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    *error = "cannot open " + path + " (run tests/runtime/make_reference.py)";
    return false;
  }
  Reader r(std::vector<unsigned char>(std::istreambuf_iterator<char>(f), {}));
  *error = path + ": malformed case file";
  char magic[8];
  uint32_t len, compare, n;
  if (!r.Take(magic, 8) || std::memcmp(magic, "KILNCAS1", 8) != 0) return false;
  if (!r.Take(&len, 4) || len > 64) return false;
  c->kernel.assign(len, '\0');
  if (!r.Take(&c->kernel[0], len) || !r.Take(&compare, 4)) return false;
  c->name = name;
  c->bitwise = compare == 1;
  // Parameters: up to a few thousand (resize_f32's tap tables).
  if (!r.Take(&n, 4) || n > 4096) return false;
  c->iparams.resize(n);
  if (!r.Take(c->iparams.data(), n * sizeof(int64_t))) return false;
  if (!r.Take(&n, 4) || n > 4096) return false;
  c->fparams.resize(n);
  if (!r.Take(c->fparams.data(), n * sizeof(float))) return false;
  if (!r.Take(&n, 4) || n > 16) return false;
  c->bindings.resize(n);
  for (CaseBinding& b : c->bindings) {
    uint32_t tight;
    if (!r.Take(&b.role, 4) || !r.Take(&tight, 4) || !r.Take(&b.nbytes, 8)) return false;
    b.tight = tight != 0;
    if (b.nbytes > (1u << 24)) return false;
    if ((b.role == kIn || b.role == kInOut) && !r.Bytes(&b.initial, b.nbytes)) return false;
    if ((b.role == kOut || b.role == kInOut) && !r.Bytes(&b.expected, b.nbytes)) return false;
  }
  if (!r.AtEnd()) return false;
  if (FindKernel(c->kernel) == nullptr) {
    *error = path + ": unknown kernel " + c->kernel;
    return false;
  }
  if (FindKernel(c->kernel)->binding_count != static_cast<int>(c->bindings.size())) {
    *error = path + ": binding count differs from kernel_table.def";
    return false;
  }
  error->clear();
  return true;
}

// A copy of ip with some entries replaced: With(ip, {{index, value}, ...}).
inline std::vector<int64_t> With(std::vector<int64_t> ip,
                                 std::initializer_list<std::pair<size_t, int64_t>> changes) {
  for (const auto& ch : changes) ip.at(ch.first) = ch.second;
  return ip;
}

// Loads a case or fails the current test.
#define KILN_LOAD_CASE(name, c)                          \
  kiln_test::Case c;                                     \
  {                                                      \
    std::string load_error_;                             \
    ASSERT_TRUE(kiln_test::LoadCase(name, &c, &load_error_)) << load_error_; \
  }

// Runs the case's kernel on exactly-sized buffers (so ASan sees any overrun)
// and compares every output binding with the reference.
inline void ExpectMatchesReference(const std::string& name) {
  KILN_LOAD_CASE(name, c);
  const std::vector<uint64_t> bytes = c.binding_bytes();
  ASSERT_EQ(c.Check(c.iparams, bytes), KILN_OK) << "checker rejects the reference case";

  std::vector<std::vector<unsigned char>> buffers(c.bindings.size());
  std::vector<void*> ptrs(c.bindings.size(), nullptr);
  for (size_t k = 0; k < c.bindings.size(); ++k) {
    const CaseBinding& b = c.bindings[k];
    if (b.role == kIn || b.role == kInOut) buffers[k] = b.initial;
    // Outputs start as all-ones bytes (a NaN as float) so unwritten elements show.
    if (b.role == kOut || b.role == kScratch) buffers[k].assign(b.nbytes, 0xFF);
    if (!buffers[k].empty()) ptrs[k] = buffers[k].data();
  }
  ASSERT_EQ(FindKernel(c.kernel)->fn(c.iparams.data(), c.fp(), ptrs.data(), nullptr), KILN_OK);

  for (size_t k = 0; k < c.bindings.size(); ++k) {
    const CaseBinding& b = c.bindings[k];
    if (b.role == kIn) {
      EXPECT_EQ(buffers[k], b.initial) << "kernel wrote into input binding " << k;
    }
    if (b.role != kOut && b.role != kInOut) continue;
    if (c.bitwise) {
      EXPECT_EQ(buffers[k], b.expected) << "binding " << k;
      continue;
    }
    const size_t n = b.nbytes / sizeof(float);
    std::vector<float> got(n), want(n);
    if (n > 0) {  // an empty output's vectors may hold no storage at all
      std::memcpy(got.data(), buffers[k].data(), n * sizeof(float));
      std::memcpy(want.data(), b.expected.data(), n * sizeof(float));
    }
    int reported = 0;
    for (size_t i = 0; i < n; ++i) {
      const double g = got[i], w = want[i];
      const bool ok = (std::isnan(w) && std::isnan(g)) ||
                      (std::isinf(w) ? g == w : std::fabs(g - w) <= kAtol + kRtol * std::fabs(w));
      if (!ok && reported++ < 5) {
        ADD_FAILURE() << name << " binding " << k << " element " << i << ": got " << g
                      << ", want " << w;
      }
    }
    EXPECT_EQ(reported, 0) << name << ": " << reported << " of " << n << " elements differ";
  }
}

// The checker accepts the case's parameters with exactly-sized bindings and
// rejects every deviation a corrupt module could carry.
inline void ExpectCheckerVerdicts(const std::string& name) {
  KILN_LOAD_CASE(name, c);
  const KernelEntry* k = FindKernel(c.kernel);
  const std::vector<uint64_t> bytes = c.binding_bytes();
  EXPECT_EQ(c.Check(c.iparams, bytes), KILN_OK);

  // One byte short in any binding the kernel reads to its end.
  for (size_t b = 0; b < bytes.size(); ++b) {
    if (bytes[b] == 0 || !c.bindings[b].tight) continue;
    std::vector<uint64_t> small = bytes;
    small[b] -= 1;
    EXPECT_EQ(c.Check(c.iparams, small), KILN_ERR_OUT_OF_RANGE) << "binding " << b;
  }

  // Parameter counts off by one either way.
  const uint32_t ni = static_cast<uint32_t>(c.iparams.size());
  const uint32_t nf = static_cast<uint32_t>(c.fparams.size());
  std::vector<int64_t> longer = c.iparams;
  longer.push_back(0);
  std::vector<float> fp_longer = c.fparams;
  fp_longer.push_back(0.0f);
  EXPECT_EQ(k->check(longer.data(), ni + 1, c.fp(), nf, bytes.data()), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(k->check(c.iparams.data(), ni - 1, c.fp(), nf, bytes.data()),
            KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(k->check(c.iparams.data(), ni, fp_longer.data(), nf + 1, bytes.data()),
            KILN_ERR_INVALID_ARGUMENT);
  if (nf > 0) {
    EXPECT_EQ(k->check(c.iparams.data(), ni, c.fp(), nf - 1, bytes.data()),
              KILN_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(k->check(c.iparams.data(), ni, nullptr, nf, bytes.data()),
              KILN_ERR_INVALID_ARGUMENT);
  }
  EXPECT_EQ(k->check(nullptr, ni, c.fp(), nf, bytes.data()), KILN_ERR_INVALID_ARGUMENT);

  // No iparam of any kernel may be negative (sizes, strides, offsets, enums),
  // except strided_copy's source strides (Slice with negative steps; their
  // lower bound is tested in movement_kernels_test.cc) and resize_f32's tap
  // indices, where -1 marks an output outside the input (their range is
  // tested in movement_kernels_test.cc).
  for (size_t i = 0; i < c.iparams.size(); ++i) {
    if (c.kernel == "strided_copy" && c.iparams.size() > 1) {
      const size_t r = static_cast<size_t>(c.iparams[1]);
      if (i >= 4 + r && i < 4 + 2 * r) continue;
    }
    if (c.kernel == "resize_f32" && i >= 1 + 3 * static_cast<size_t>(c.iparams[0])) continue;
    std::vector<int64_t> bad = c.iparams;
    bad[i] = -1;
    EXPECT_EQ(c.Check(bad, bytes), KILN_ERR_INVALID_ARGUMENT) << "iparam " << i;
  }
}

}  // namespace kiln_test

// One value-parameterised suite per kernel family over its reference cases.
#define KILN_REFERENCE_SUITE(Suite, ...)                                              \
  class Suite : public ::testing::TestWithParam<const char*> {};                      \
  TEST_P(Suite, MatchesReference) { kiln_test::ExpectMatchesReference(GetParam()); } \
  TEST_P(Suite, CheckerVerdicts) { kiln_test::ExpectCheckerVerdicts(GetParam()); }   \
  INSTANTIATE_TEST_SUITE_P(Ref, Suite, ::testing::Values(__VA_ARGS__),                \
                           [](const ::testing::TestParamInfo<const char*>& info) {    \
                             std::string s = info.param;                              \
                             for (char& ch : s)                                       \
                               if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_'; \
                             return s;                                                \
                           })

#endif  // KILN_TESTS_RUNTIME_KERNEL_CASE_H_
