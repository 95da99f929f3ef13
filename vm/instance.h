// A loaded module ready to run: executables resolved to function pointers,
// constants located in the mapped image, the arena and register file
// allocated once. Run() allocates nothing.
#ifndef KILN_VM_INSTANCE_H_
#define KILN_VM_INSTANCE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "kiln/kernel_abi.h"
#include "vm/interpreter.h"
#include "vm/module_image.h"
#include "vm/observer.h"
#include "vm/thread_pool.h"

namespace kiln::vm {

// A caller-owned buffer bound to one signature input or output.
struct HostTensor {
  fb::DType dtype = fb::DType::Unknown;
  absl::Span<const int64_t> shape;
  void* data = nullptr;
  uint64_t bytes = 0;
};

class Instance {
 public:
  // threads > 1 starts threads - 1 pool workers now, never on the run path.
  static absl::StatusOr<std::unique_ptr<Instance>> Create(
      std::shared_ptr<const ModuleImage> image, int threads = 1);
  ~Instance();

  const ModuleImage& image() const { return *image_; }
  const fb::Signature& signature() const { return *image_->module().signature(); }
  uint64_t arena_bytes() const { return arena_size_; }

  // Checks every buffer's dtype, shape and size against the signature, then runs.
  // With an observer (vm/observer.h) the instrumented interpreter loop runs.
  absl::Status Run(absl::Span<const HostTensor> inputs, absl::Span<const HostTensor> outputs,
                   DispatchObserver* observer = nullptr);

  // Runs with buffers already checked by the caller (in signature order).
  absl::Status RunUnchecked(const void* const* inputs, void* const* outputs);
  // The same, reporting each dispatch to `observer`; an observer that stops
  // the run makes this return an Aborted status naming the dispatch.
  absl::Status RunObserved(const void* const* inputs, void* const* outputs,
                           DispatchObserver& observer);

 private:
  explicit Instance(std::shared_ptr<const ModuleImage> image) : image_(std::move(image)) {}
  absl::Status DispatchError(uint32_t pc, int code) const;
  // The interpreter's view of this instance for one run (plain or observed).
  InterpreterFrame Frame(const void* const* inputs, void* const* outputs);

  std::shared_ptr<const ModuleImage> image_;
  std::vector<ResolvedExecutable> executables_;
  std::vector<const void*> constants_;
  std::vector<void*> registers_;
  std::vector<void*> bindings_;
  uint8_t* arena_ = nullptr;
  uint64_t arena_size_ = 0;
  std::unique_ptr<ThreadPool> pool_;  // null: kernels run serially
};

}  // namespace kiln::vm

#endif  // KILN_VM_INSTANCE_H_
