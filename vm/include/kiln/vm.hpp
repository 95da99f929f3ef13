// C++ wrapper over the Kiln VM C API (kiln/vm.h): RAII handles, errors as
// kiln::embed::Error exceptions. Header-only; link the same library.
//
//   kiln::embed::Module module = kiln::embed::Module::LoadFile("model.kiln");
//   kiln::embed::Instance vm(module);
//   vm.BindInput(0, input.data(), input.size() * sizeof(float));
//   vm.BindOutput(0, output.data(), output.size() * sizeof(float));
//   vm.Run();
//
// Limits on a run of a module the host may not trust to end (kiln/vm.h, run
// options); a stopped run throws an Error whose code() is KILN_VM_CANCELLED,
// KILN_VM_DEADLINE_EXCEEDED or KILN_VM_ITERATION_LIMIT, and `vm` runs again:
//   kiln::embed::RunOptions limits;
//   limits.SetTimeout(std::chrono::milliseconds(500)).SetMaxIterations(100000);
//   vm.Run(limits);            // another thread may call limits.Cancel()
#ifndef KILN_VM_HPP_
#define KILN_VM_HPP_

#include <chrono>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

#include "kiln/vm.h"

namespace kiln::embed {

class Error : public std::runtime_error {
 public:
  Error(kiln_vm_code code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  kiln_vm_code code() const { return code_; }

 private:
  kiln_vm_code code_;
};

// Throws when `e` is an error (and frees it).
inline void Check(kiln_vm_error* e) {
  if (e == nullptr) return;
  Error error(kiln_vm_error_code(e), kiln_vm_error_message(e));
  kiln_vm_error_free(e);
  throw error;
}

class Module {
 public:
  static Module LoadFile(const std::string& path) {
    kiln_vm_module* m = nullptr;
    Check(kiln_vm_module_load_file(path.c_str(), &m));
    return Module(m);
  }
  static Module LoadMemory(const void* data, size_t size) {
    kiln_vm_module* m = nullptr;
    Check(kiln_vm_module_load_memory(data, size, &m));
    return Module(m);
  }
  Module(Module&& other) noexcept : m_(std::exchange(other.m_, nullptr)) {}
  Module& operator=(Module&& other) noexcept {
    std::swap(m_, other.m_);
    return *this;
  }
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  ~Module() { kiln_vm_module_release(m_); }

  size_t input_count() const { return kiln_vm_module_input_count(m_); }
  size_t output_count() const { return kiln_vm_module_output_count(m_); }
  kiln_vm_tensor_info input(size_t index) const {
    kiln_vm_tensor_info info;
    Check(kiln_vm_module_input_info(m_, index, &info));
    return info;
  }
  kiln_vm_tensor_info output(size_t index) const {
    kiln_vm_tensor_info info;
    Check(kiln_vm_module_output_info(m_, index, &info));
    return info;
  }
  size_t FindInput(const std::string& name) const {
    size_t index = 0;
    Check(kiln_vm_module_find_input(m_, name.c_str(), &index));
    return index;
  }
  size_t FindOutput(const std::string& name) const {
    size_t index = 0;
    Check(kiln_vm_module_find_output(m_, name.c_str(), &index));
    return index;
  }
  uint64_t arena_bytes() const { return kiln_vm_module_arena_bytes(m_); }
  const kiln_vm_module* get() const { return m_; }

 private:
  explicit Module(kiln_vm_module* m) : m_(m) {}
  kiln_vm_module* m_;
};

// Run options (kiln_vm_run_options): set the limits before the runs that use
// them; Cancel() and ClearCancel() may be called from any thread meanwhile.
class RunOptions {
 public:
  RunOptions() { Check(kiln_vm_run_options_create(&o_)); }
  RunOptions(RunOptions&& other) noexcept : o_(std::exchange(other.o_, nullptr)) {}
  RunOptions& operator=(RunOptions&& other) noexcept {
    std::swap(o_, other.o_);
    return *this;
  }
  RunOptions(const RunOptions&) = delete;
  RunOptions& operator=(const RunOptions&) = delete;
  ~RunOptions() { kiln_vm_run_options_release(o_); }

  // Each run stops once it has run this long (zero: no limit).
  template <typename Rep, typename Period>
  RunOptions& SetTimeout(std::chrono::duration<Rep, Period> timeout) {
    Check(kiln_vm_run_options_set_timeout(
        o_, std::chrono::duration_cast<std::chrono::duration<double>>(timeout).count()));
    return *this;
  }
  // Each run stops before loop iteration number n + 1 (0: no limit).
  RunOptions& SetMaxIterations(uint64_t n) {
    Check(kiln_vm_run_options_set_max_iterations(o_, n));
    return *this;
  }
  void Cancel() { kiln_vm_run_options_cancel(o_); }
  void ClearCancel() { kiln_vm_run_options_clear_cancel(o_); }
  const kiln_vm_run_options* get() const { return o_; }

 private:
  kiln_vm_run_options* o_ = nullptr;
};

class Instance {
 public:
  explicit Instance(const Module& module) { Check(kiln_vm_instance_create(module.get(), &i_)); }
  Instance(Instance&& other) noexcept : i_(std::exchange(other.i_, nullptr)) {}
  Instance& operator=(Instance&& other) noexcept {
    std::swap(i_, other.i_);
    return *this;
  }
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;
  ~Instance() { kiln_vm_instance_release(i_); }

  void BindInput(size_t index, const void* data, size_t bytes) {
    Check(kiln_vm_instance_bind_input(i_, index, data, bytes));
  }
  void BindOutput(size_t index, void* data, size_t bytes) {
    Check(kiln_vm_instance_bind_output(i_, index, data, bytes));
  }
  void Run() { Check(kiln_vm_instance_run(i_)); }
  void Run(const RunOptions& options) {
    Check(kiln_vm_instance_run_with_options(i_, options.get()));
  }

 private:
  kiln_vm_instance* i_ = nullptr;
};

}  // namespace kiln::embed

#endif  // KILN_VM_HPP_
