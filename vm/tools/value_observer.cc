#include "vm/tools/value_observer.h"

#include "absl/strings/str_cat.h"
#include "vm/tools/dump.h"

namespace kiln::vm {

void ValueObserver::IntRegisters(const int64_t* registers, uint32_t count) {
  int_registers_ = registers;
  int_count_ = count;
  dynamic_dispatch_ = UINT32_MAX;
}

void ValueObserver::FunctionIntRegisters(const int64_t* registers, uint32_t count) {
  int_registers_ = registers;
  int_count_ = count;
}

void ValueObserver::DynamicBindingBytes(uint32_t dispatch, const uint64_t* bytes, uint32_t count) {
  dynamic_dispatch_ = dispatch;
  dynamic_bytes_.assign(bytes, bytes + count);
}

const ValueInfo* ValueObserver::InRun(const DispatchInfo& d, const ValueInfo& v) {
  absl::StatusOr<const ValueInfo*> in_run = Resolve(d, v);
  if (in_run.ok()) return *in_run;
  status_ = in_run.status();
  return nullptr;
}

absl::StatusOr<const ValueInfo*> ValueObserver::Resolve(const DispatchInfo& d,
                                                        const ValueInfo& v) {
  // A static DISPATCH binds views at least as large as its executable's
  // binding_bytes (verified at load); DescribeDispatches checked static
  // values against those. A DISPATCH_DYN's executable holds placeholders:
  // its real sizes are the ones this run reported.
  if (!d.dynamic && !v.symbolic()) return &v;
  uint64_t binding_bytes;
  if (d.dynamic) {
    if (dynamic_dispatch_ != d.index || v.binding >= dynamic_bytes_.size()) {
      return absl::InternalError(absl::StrCat(DescribeDispatch(d), ": the run did not report "
                                              "its binding sizes"));
    }
    binding_bytes = dynamic_bytes_[v.binding];
  } else {
    binding_bytes = v.binding < d.binding_bytes.size() ? d.binding_bytes[v.binding] : 0;
  }
  auto resolved = ValueInRun(v, int_registers_, int_count_, binding_bytes);
  if (!resolved.ok()) {
    return absl::Status(resolved.status().code(),
                        absl::StrCat(DescribeDispatch(d), ": ", resolved.status().message()));
  }
  in_run_ = std::move(*resolved);
  return &in_run_;
}

}  // namespace kiln::vm
