// Two runs of one model on the same inputs, every ONNX value each keeps
// recorded, and the values both have compared in A's order: two modules (what
// `kiln compare` prints and `kiln.compare` in Python returns), or a module
// and ONNX Runtime (`kiln compare --reference ort`, tools/ort_reference.h).
#ifndef KILN_TOOLS_MODULE_COMPARE_H_
#define KILN_TOOLS_MODULE_COMPARE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "vm/module_image.h"
#include "vm/tools/debug_info.h"
#include "vm/tools/dump.h"
#include "vm/tools/npy.h"

namespace kiln::tools {

// One run of a module with a ValueRecorder attached.
struct RecordedRun {
  std::vector<vm::DispatchInfo> dispatches;
  std::unique_ptr<vm::ValueRecorder> recorder;
};

// Runs `image` in the VM on `inputs`. When `inputs` is empty it is filled
// first: from `input_files` (signature order or NAME=FILE.npy), or with
// fixed-seed random tensors when there are none. Errors name `image`'s origin.
absl::StatusOr<RecordedRun> RunAndRecord(std::shared_ptr<const vm::ModuleImage> image,
                                         const std::vector<std::string>& input_files,
                                         std::vector<vm::NpyArray>* inputs);

// One value as one side of a comparison has it.
struct ComparedValue {
  std::string name;  // the ONNX value
  fb::DType dtype = fb::DType::Unknown;
  std::vector<int64_t> shape;
  const std::vector<uint8_t>* bytes = nullptr;  // C order; owned by the side's run
  std::string where;  // what computed it: vm::DescribeDispatch, or the reference's node
};

// A module run's values in dispatch order.
std::vector<ComparedValue> ValuesOf(const RecordedRun& run);

// The first value outside the tolerance, as `kiln compare` describes it.
struct ValueDifference {
  std::string value;     // the ONNX value, NAME__k for its k-th recording (k > 1)
  std::vector<int64_t> shape;
  double max_abs_diff = 0;
  uint64_t outside = 0;  // elements with |a - b| > atol + rtol * |a|
  uint64_t elements = 0;
  uint64_t worst_at = 0;  // flat index of the element furthest outside
  double a = 0, b = 0;    // the two values there
  std::string dispatch_a, dispatch_b;  // ComparedValue::where of each side
};

struct ModuleComparison {
  double atol = 0, rtol = 0;
  std::string label_a = "A", label_b = "B";  // the sides' names in Report()
  size_t compared = 0, only_a = 0, only_b = 0, skipped = 0, differing = 0;
  bool has_first = false;
  ValueDifference first;
  // The report `kiln compare` prints (ends with a newline).
  std::string Report() const;
};

// Pairs the values both sides have by name (a value recorded several times,
// in a Loop or Scan body, pairs its k-th recording in A with its k-th in B)
// and compares the floating ones element by element, in A's order.
ModuleComparison CompareValues(const std::vector<ComparedValue>& a,
                               const std::vector<ComparedValue>& b, double atol, double rtol);

// CompareValues of two module runs.
ModuleComparison CompareRecordedRuns(const RecordedRun& a, const RecordedRun& b, double atol,
                                     double rtol);

}  // namespace kiln::tools

#endif  // KILN_TOOLS_MODULE_COMPARE_H_
