// Hooks into a VM run, one call before and after each DISPATCH, for tracing,
// profiling, dumping intermediates and NaN checks. Only the instrumented
// interpreter loop (InterpretObserved) calls them, so a run without an
// observer pays nothing. Dispatches are numbered in bytecode order from 0
// (the index into vm/tools/debug_info.h's DescribeDispatches()).
#ifndef KILN_VM_OBSERVER_H_
#define KILN_VM_OBSERVER_H_

#include <cstdint>

namespace kiln::vm {

class DispatchObserver {
 public:
  virtual ~DispatchObserver() = default;
  // Called by Instance around one whole run.
  virtual void BeginRun() {}
  virtual void EndRun() {}
  // DISPATCH_DYN only, just before BeforeDispatch: the integer parameters
  // the kernel is called with once the run's sizes are patched in.
  virtual void DynamicParams(uint32_t /*dispatch*/, const int64_t* /*iparams*/,
                             uint32_t /*count*/) {}
  // DISPATCH_DYN only, with DynamicParams: the bytes each binding views in
  // this run (0 for a binding the kernel leaves untouched).
  virtual void DynamicBindingBytes(uint32_t /*dispatch*/, const uint64_t* /*bytes*/,
                                   uint32_t /*count*/) {}
  // Called by Instance just before BeginRun: the entry function's integer
  // registers, i.e. this run's sizes (all computed before the first
  // dispatch), readable until EndRun.
  virtual void IntRegisters(const int64_t* /*registers*/, uint32_t /*count*/) {}
  // Called as a run enters a function called by IF/LOOP and as it returns
  // to the caller: the integer registers of the function whose dispatches
  // follow (a debug value's dim registers are its function's own).
  virtual void FunctionIntRegisters(const int64_t* /*registers*/, uint32_t /*count*/) {}
  // `bindings` are the buffers the kernel is called with.
  virtual void BeforeDispatch(uint32_t dispatch, void* const* bindings) = 0;
  // Returns false to stop the run after this dispatch.
  virtual bool AfterDispatch(uint32_t dispatch, void* const* bindings) = 0;
};

}  // namespace kiln::vm

#endif  // KILN_VM_OBSERVER_H_
