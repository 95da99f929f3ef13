// The bytecode interpreter: one switch over the opcode table, trusting
// bytecode the verifier has accepted.
#ifndef KILN_VM_INTERPRETER_H_
#define KILN_VM_INTERPRETER_H_

#include <cstdint>

#include "kiln/kernel_abi.h"

namespace kiln::vm {

class DispatchObserver;

struct ResolvedExecutable {
  kiln_kernel_fn fn;
  const int64_t* iparams;
  const float* fparams;
};

struct InterpreterFrame {
  const uint32_t* code;
  const ResolvedExecutable* executables;
  const void* const* constants;
  const void* const* inputs;
  void* const* outputs;
  uint8_t* arena;
  void** registers;
  void** bindings;        // scratch, at least the largest binding count
  const kiln_host* host;  // may be null
};

// Runs a verified function. Returns KILN_OK, or the first kernel error with
// the failing DISPATCH's word offset in *failed_pc.
int Interpret(const InterpreterFrame& frame, uint32_t* failed_pc);

// The same, reporting every DISPATCH to `observer` (vm/observer.h). Returns
// kInterpretStopped, with the DISPATCH's offset in *failed_pc, when the
// observer asks to stop.
constexpr int kInterpretStopped = -1;
int InterpretObserved(const InterpreterFrame& frame, uint32_t* failed_pc,
                      DispatchObserver& observer);

}  // namespace kiln::vm

#endif  // KILN_VM_INTERPRETER_H_
