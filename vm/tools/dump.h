// Observers that read the values a dispatch leaves in its bindings (from the
// module's debug info, vm/tools/debug_info.h):
//  - ValueDumper writes each as DIR/<value>.npy plus DIR/values.json (kiln run --dump);
//  - NanChecker stops the run at the first dispatch producing NaN/Inf (--check-nan);
//  - ValueRecorder keeps copies in memory, in dispatch order (kiln compare).
// They allocate and write files while the run is paused between dispatches:
// debugging modes, not the timed path. Values with symbolic dims are read
// with the run's shapes (vm/tools/value_observer.h); a value they cannot read
// stops the run with status() saying why.
#ifndef KILN_VM_TOOLS_DUMP_H_
#define KILN_VM_TOOLS_DUMP_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "vm/observer.h"
#include "vm/tools/debug_info.h"
#include "vm/tools/npy.h"
#include "vm/tools/value_observer.h"

namespace kiln::vm {

// A file name made of [A-Za-z0-9._-] from an ONNX value name.
std::string SanitizeFileName(const std::string& name);

class ValueDumper : public ValueObserver {
 public:
  ValueDumper(const std::vector<DispatchInfo>* dispatches, std::string dir);
  bool AfterDispatch(uint32_t dispatch, void* const* bindings) override;
  // Writes DIR/values.json (value -> file, dispatch, nodes, dtype, shape;
  // the shape the run gave it).
  absl::Status Finish();
  size_t written() const { return entries_.size(); }

 private:
  struct Entry {
    std::string file, value;
    uint32_t dispatch;
    fb::DType dtype;
    std::vector<int64_t> shape;
  };
  std::string dir_;
  std::map<std::string, int> used_files_;
  std::vector<Entry> entries_;
};

class NanChecker : public ValueObserver {
 public:
  explicit NanChecker(const std::vector<DispatchInfo>* dispatches) : ValueObserver(dispatches) {}
  bool AfterDispatch(uint32_t dispatch, void* const* bindings) override;
  bool found() const { return !message_.empty(); }
  // "dispatch 12 (+340, kernel kiln_conv2d_f32, ONNX nodes Conv_3:Conv + ...):
  //  value 'x' has 5 NaN and 0 Inf of 1024 elements, first at [0,1,2,3]"
  const std::string& message() const { return message_; }
  uint32_t checked_values() const { return checked_; }

 private:
  std::string message_;
  uint32_t checked_ = 0;
};

struct RecordedValue {
  const ValueInfo* info;
  uint32_t dispatch;
  std::vector<uint8_t> bytes;
  std::vector<int64_t> shape;  // as the run had it (info->shape may be symbolic)
};

class ValueRecorder : public ValueObserver {
 public:
  explicit ValueRecorder(const std::vector<DispatchInfo>* dispatches) : ValueObserver(dispatches) {}
  bool AfterDispatch(uint32_t dispatch, void* const* bindings) override;
  const std::vector<RecordedValue>& values() const { return values_; }

 private:
  std::vector<RecordedValue> values_;
};

// "dispatch 3 (+52, kiln_conv2d_f32; ONNX nodes Conv_0:Conv + Relu_1:Relu)"
std::string DescribeDispatch(const DispatchInfo& d);

}  // namespace kiln::vm

#endif  // KILN_VM_TOOLS_DUMP_H_
