// Runs a loaded module on zero-filled inputs, binding every symbolic
// dimension to `symbol_value`: how the fuzzer and the malformed-module tests
// drive untrusted modules through the interpreter, dynamic opcodes included.
#ifndef KILN_TESTS_VM_ZERO_INPUT_RUN_H_
#define KILN_TESTS_VM_ZERO_INPUT_RUN_H_

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "vm/dtype.h"
#include "vm/instance.h"
#include "vm/module_verifier.h"

namespace kiln::testing {

// Runs when the buffers (and, with symbols, the workspace) stay under
// `max_bytes`, within `limits` (a loop whose trip count or condition is data
// may run as long as the data says), reporting to `observer` if given;
// returns the run's status, or OK when it was skipped.
inline absl::Status RunOnZeroInputs(const std::shared_ptr<const vm::ModuleImage>& image,
                                    int64_t symbol_value, uint64_t max_bytes,
                                    const vm::RunLimits& limits = {},
                                    vm::DispatchObserver* observer = nullptr) {
  const fb::Signature& sig = *image->module().signature();
  if (sig.inputs()->size() > 16 || sig.outputs()->size() > 16) return absl::OkStatus();
  auto instance = vm::Instance::Create(image);
  if (!instance.ok()) return absl::OkStatus();
  // Shapes with the symbolic dims (-1) replaced by the symbol value.
  auto shape_of = [&](const fb::TensorDesc& t) {
    std::vector<int64_t> shape(t.shape()->begin(), t.shape()->end());
    for (int64_t& d : shape) d = d < 0 ? symbol_value : d;
    return shape;
  };
  auto bytes_of = [&](const fb::TensorDesc& t, const std::vector<int64_t>& shape) {
    uint64_t bytes = DTypeSize(t.dtype());
    for (int64_t d : shape) {
      if (d != 0 && bytes > max_bytes / static_cast<uint64_t>(d)) return max_bytes + 1;
      bytes *= static_cast<uint64_t>(d);
    }
    return bytes;
  };
  std::vector<std::vector<int64_t>> shapes;
  std::vector<std::vector<uint8_t>> buffers;
  shapes.reserve(sig.inputs()->size() + sig.outputs()->size());
  buffers.reserve(sig.inputs()->size() + sig.outputs()->size());
  uint64_t total = 0;
  std::vector<vm::HostTensor> ins, outs;
  // Inputs first; the outputs take the shapes the bound symbols give (an
  // output dim may be an expression of them, e.g. S + T).
  auto add = [&](const fb::TensorDesc& t, std::vector<int64_t> shape,
                 std::vector<vm::HostTensor>* to) {
    shapes.push_back(std::move(shape));
    const uint64_t bytes = bytes_of(t, shapes.back());
    total += bytes;
    if (bytes > max_bytes || total > max_bytes) return false;
    buffers.emplace_back(bytes + 1, 0);
    to->push_back(vm::HostTensor{t.dtype(), shapes.back(), buffers.back().data(), bytes});
    return true;
  };
  for (const fb::TensorDesc* t : *sig.inputs()) {
    if (!add(*t, shape_of(*t), &ins)) return absl::OkStatus();
  }
  if (absl::Status s = (*instance)->BindInputs(ins); !s.ok()) return s;
  for (uint32_t k = 0; k < sig.outputs()->size(); ++k) {
    if (!add(*sig.outputs()->Get(k), (*instance)->OutputShape(k), &outs)) return absl::OkStatus();
  }
  if ((*instance)->workspace_needed() > max_bytes) return absl::OkStatus();
  if (absl::Status s = (*instance)->Reserve(ins); !s.ok()) return s;
  return (*instance)->Run(ins, outs, observer, limits);
}

}  // namespace kiln::testing

#endif  // KILN_TESTS_VM_ZERO_INPUT_RUN_H_
