// The base of the observers that read debug values (vm/tools/dump.h): it keeps
// what a run reports about its sizes (the integer registers, each
// DISPATCH_DYN's real binding sizes) and gives each value as the run has
// it, so values with symbolic dims get their run-time shape and are never
// read past their binding.
#ifndef KILN_VM_TOOLS_VALUE_OBSERVER_H_
#define KILN_VM_TOOLS_VALUE_OBSERVER_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "vm/observer.h"
#include "vm/tools/debug_info.h"

namespace kiln::vm {

class ValueObserver : public DispatchObserver {
 public:
  explicit ValueObserver(const std::vector<DispatchInfo>* dispatches) : dispatches_(dispatches) {}
  void IntRegisters(const int64_t* registers, uint32_t count) override;
  void FunctionIntRegisters(const int64_t* registers, uint32_t count) override;
  void DynamicBindingBytes(uint32_t dispatch, const uint64_t* bytes, uint32_t count) override;
  void BeforeDispatch(uint32_t, void* const*) override {}
  // Why the observer stopped the run, when it could not read a value.
  const absl::Status& status() const { return status_; }

 protected:
  // `v` (a value of dispatch `d`) as this run has it: `v` itself when its
  // shape is static and its dispatch too, else a copy with the run's shape
  // and bytes, checked against the binding's real size. The pointer holds
  // until the next call. nullptr when it cannot be read: status() says why
  // and the observer should stop the run.
  const ValueInfo* InRun(const DispatchInfo& d, const ValueInfo& v);

  const std::vector<DispatchInfo>* dispatches_;
  absl::Status status_;

 private:
  absl::StatusOr<const ValueInfo*> Resolve(const DispatchInfo& d, const ValueInfo& v);

  const int64_t* int_registers_ = nullptr;
  uint32_t int_count_ = 0;
  uint32_t dynamic_dispatch_ = UINT32_MAX;  // whose sizes dynamic_bytes_ holds
  std::vector<uint64_t> dynamic_bytes_;
  ValueInfo in_run_;
};

}  // namespace kiln::vm

#endif  // KILN_VM_TOOLS_VALUE_OBSERVER_H_
