// The field types of the generated per-kernel parameter structs
// (kernel_builders.h) and the collector that flattens one into the
// iparams/fparams an executable stores, in the kernel table's order.
#ifndef KILN_COMPILER_EMIT_KERNEL_PARAM_BUILDER_H_
#define KILN_COMPILER_EMIT_KERNEL_PARAM_BUILDER_H_

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::compiler::emit::kernel {

// A scalar parameter: unset until assigned, so a forgotten one is refused
// instead of passing as zero.
template <typename T>
struct KernelScalar {
  T value{};
  bool set = false;
  KernelScalar& operator=(T v) {
    value = v;
    set = true;
    return *this;
  }
};
using KernelInt = KernelScalar<int64_t>;
using KernelFloat = KernelScalar<float>;
using KernelInts = std::vector<int64_t>;
using KernelFloats = std::vector<float>;

class KernelParamCollector {
 public:
  explicit KernelParamCollector(const char* kernel) : kernel_(kernel) {}

  void Int(const char* name, const KernelInt& v) { Scalar(name, v, &ints_); }
  void Float(const char* name, const KernelFloat& v) { Scalar(name, v, &floats_); }
  // `count` < 0: any length (an "x[*]" entry of the table); `or_none`: count
  // entries or none ("x[R?]").
  void Ints(const char* name, const KernelInts& v, int64_t count, bool or_none = false) {
    Array(name, v, count, or_none, &ints_);
  }
  void Floats(const char* name, const KernelFloats& v, int64_t count, bool or_none = false) {
    Array(name, v, count, or_none, &floats_);
  }

  // Empty when every parameter was given; else what was not.
  const std::string& error() const { return error_; }
  std::vector<int64_t>& ints() { return ints_; }
  std::vector<float>& floats() { return floats_; }

 private:
  template <typename T>
  void Scalar(const char* name, const KernelScalar<T>& v, std::vector<T>* out) {
    if (!v.set && error_.empty()) error_ = Describe(name, "was not set");
    out->push_back(v.value);
  }
  template <typename T>
  void Array(const char* name, const std::vector<T>& v, int64_t count, bool or_none,
             std::vector<T>* out) {
    const bool fits = count < 0 || static_cast<int64_t>(v.size()) == count || (or_none && v.empty());
    if (!fits && error_.empty()) {
      error_ = Describe(name, "has " + std::to_string(v.size()) + " entries, not its count " +
                                  std::to_string(count));
    }
    out->insert(out->end(), v.begin(), v.end());
  }
  std::string Describe(const char* name, const std::string& what) const {
    return std::string("kernel ") + kernel_ + ": parameter '" + name + "' " + what;
  }

  const char* kernel_;
  std::vector<int64_t> ints_;
  std::vector<float> floats_;
  std::string error_;
};

}  // namespace kiln::compiler::emit::kernel

#endif  // KILN_COMPILER_EMIT_KERNEL_PARAM_BUILDER_H_
