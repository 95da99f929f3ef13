// The bytecode interpreter: one switch over the opcode table, trusting
// bytecode the verifier has accepted.
#ifndef KILN_VM_INTERPRETER_H_
#define KILN_VM_INTERPRETER_H_

#include <cstdint>

#include "kiln/kernel_abi.h"

namespace kiln::vm {

class DispatchObserver;
class RunBudget;

struct ResolvedExecutable {
  kiln_kernel_fn fn;
  const int64_t* iparams;
  const float* fparams;
  // Read by DISPATCH_DYN only, which checks each call at run time.
  kiln_kernel_check_fn check;
  uint32_t iparam_count;
  uint32_t fparam_count;
  uint32_t writes;  // bit k: the kernel writes binding k
  const uint64_t* binding_bytes;  // 0: the kernel leaves binding k untouched
};

// A result symbol: where a kernel leaves a length in the arena, at most bound.
struct ResultSlot {
  uint64_t arena_offset;
  int64_t bound;
};

// One function of the module as the interpreter runs it: IF, LOOP and
// LOOP_DYN call functions[f] with its own registers and integer registers
// (no two functions share any; calls never recurse, so one block each is
// enough).
struct InterpreterFunction {
  const uint32_t* code;
  void** registers;
  uint64_t* register_bytes;
  uint32_t dispatch_base;  // ordinal of its first DISPATCH among all functions'
  int64_t* int_registers;
  bool dynamic;  // the code uses the dynamic opcodes: runs the kDynamic loop
  uint32_t int_register_count;
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
  // Sizes: each register's view bytes (set by every VIEW instruction), the
  // static views' bytes, and for the *_DYN views the caller's buffer bytes
  // and the workspace capacity they must stay inside.
  uint64_t* register_bytes;
  const uint64_t* input_view_bytes;
  const uint64_t* output_view_bytes;
  const uint64_t* constant_bytes;
  const uint64_t* input_capacity;
  const uint64_t* output_capacity;
  uint64_t arena_capacity;
  // Symbolic dimensions: this run's symbol values and the integer registers;
  // scratch for a DISPATCH_DYN's patched parameters and binding sizes.
  const int64_t* symbols;
  int64_t* int_registers;
  int64_t* iparam_scratch;   // at least the largest iparam count
  uint64_t* binding_bytes;   // at least the largest binding count
  // The result symbols ILOAD reads, and scratch for EvaluateIntegers (one
  // flag per integer register).
  const ResultSlot* results;
  uint8_t* int_unknown;
  // The code uses the dynamic opcodes (>= ISYM); a frame without this flag
  // runs the static loop, which refuses them.
  bool dynamic;
  // Control flow: the module's functions, the one this frame runs, and where
  // the function index of a failure in a called function is reported (with
  // *failed_pc); the caller sets it to kNoFailedFunction before the run and
  // a failure in the entry function leaves it so.
  const InterpreterFunction* functions;
  uint32_t function;
  uint32_t* failed_function;
  // The host's limits on this run (vm/run_budget.h), checked before each
  // kernel call and loop iteration; null: none (the check is one branch).
  RunBudget* budget;
};

constexpr uint32_t kNoFailedFunction = 0xFFFFFFFFu;

// Runs a verified function. Returns KILN_OK, or the first kernel error (or
// run budget stop, kiln/kernel_abi.h) with the failing instruction's word
// offset in *failed_pc and, when it failed in a called function, that
// function in *frame.failed_function.
int Interpret(const InterpreterFrame& frame, uint32_t* failed_pc);

// Runs only the integer instructions of a verified function that depend on
// nothing but the symbols (not those after an ILOAD that read its result),
// leaving their results in frame.int_registers: how the workspace size and
// output shapes are known before a run.
int EvaluateIntegers(const InterpreterFrame& frame, uint32_t code_words, uint32_t* failed_pc);

// The same, reporting every DISPATCH to `observer` (vm/observer.h). Returns
// kInterpretStopped, with the DISPATCH's offset in *failed_pc, when the
// observer asks to stop.
constexpr int kInterpretStopped = -1;
int InterpretObserved(const InterpreterFrame& frame, uint32_t* failed_pc,
                      DispatchObserver& observer);

}  // namespace kiln::vm

#endif  // KILN_VM_INTERPRETER_H_
