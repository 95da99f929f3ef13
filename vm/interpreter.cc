#include "vm/interpreter.h"

#include "kiln/control_ops.h"
#include "kiln/dynamic_ops.h"
#include "kiln/opcodes.h"
#include "vm/bytecode.h"
#include "vm/int_binary.h"
#include "vm/observer.h"
#include "vm/run_budget.h"

namespace kiln::vm {

// One handler per opcode of schemas/kiln/opcodes.def; an opcode added there
// without a handler here fails to compile. `op` points at the operands.
// View sizes are recorded only where DISPATCH_DYN may read them (kDynamic).
#define KILN_EXEC_VIEW_INPUT                                          \
  r[op[0]] = const_cast<void*>(frame.inputs[op[1]]);                  \
  if constexpr (kDynamic) rb[op[0]] = frame.input_view_bytes[op[1]]
#define KILN_EXEC_VIEW_OUTPUT                                         \
  r[op[0]] = frame.outputs[op[1]];                                    \
  if constexpr (kDynamic) rb[op[0]] = frame.output_view_bytes[op[1]]
#define KILN_EXEC_VIEW_CONST                                          \
  r[op[0]] = const_cast<void*>(frame.constants[op[1]]);               \
  if constexpr (kDynamic) rb[op[0]] = frame.constant_bytes[op[1]]
#define KILN_EXEC_VIEW_ARENA                  \
  r[op[0]] = frame.arena + ReadU64(op + 1);   \
  if constexpr (kDynamic) rb[op[0]] = ReadU64(op + 3)
// The integer instructions: a failure (overflow, a bad divisor) ends the run.
#define KILN_FAIL_IF(expr)      \
  {                             \
    const int rc_ = (expr);     \
    if (rc_ != KILN_OK) {       \
      *failed_pc = pc;          \
      return rc_;               \
    }                           \
  }
#define KILN_EXEC_ISYM ir[op[0]] = frame.symbols[op[1]]
#define KILN_EXEC_ICONST ir[op[0]] = static_cast<int64_t>(ReadU64(op + 1))
// The arithmetic is the opcodes.def table's helper (vm/int_binary.h).
#define KILN_EXEC_INT_BINARY(opcode) \
  KILN_FAIL_IF(EvalIntBinary(opcode, ir[op[1]], ir[op[2]], &ir[op[0]]))
#define KILN_EXEC_IADD KILN_EXEC_INT_BINARY(KILN_OP_IADD)
#define KILN_EXEC_ISUB KILN_EXEC_INT_BINARY(KILN_OP_ISUB)
#define KILN_EXEC_IMUL KILN_EXEC_INT_BINARY(KILN_OP_IMUL)
#define KILN_EXEC_IDIV KILN_EXEC_INT_BINARY(KILN_OP_IDIV)
#define KILN_EXEC_IMIN KILN_EXEC_INT_BINARY(KILN_OP_IMIN)
#define KILN_EXEC_IMAX KILN_EXEC_INT_BINARY(KILN_OP_IMAX)
#define KILN_EXEC_IASSERT_EQ \
  KILN_FAIL_IF(ir[op[0]] == ir[op[1]] ? KILN_OK : KILN_ERR_INVALID_ARGUMENT)
#define KILN_EXEC_ILOAD                                                              \
  KILN_FAIL_IF(kiln_iload(frame.arena, frame.results[op[1]].arena_offset,            \
                          frame.results[op[1]].bound, &ir[op[0]]))
#define KILN_EXEC_VIEW_INPUT_DYN                                                     \
  KILN_FAIL_IF(kiln_check_view(0, ir[op[2]], frame.input_capacity[op[1]]));          \
  r[op[0]] = const_cast<void*>(frame.inputs[op[1]]);                                 \
  rb[op[0]] = static_cast<uint64_t>(ir[op[2]])
#define KILN_EXEC_VIEW_OUTPUT_DYN                                                    \
  KILN_FAIL_IF(kiln_check_view(0, ir[op[2]], frame.output_capacity[op[1]]));         \
  r[op[0]] = frame.outputs[op[1]];                                                   \
  rb[op[0]] = static_cast<uint64_t>(ir[op[2]])
#define KILN_EXEC_VIEW_ARENA_DYN                                                     \
  KILN_FAIL_IF(kiln_check_view(ir[op[1]], ir[op[2]], frame.arena_capacity));         \
  r[op[0]] = frame.arena + ir[op[1]];                                                \
  rb[op[0]] = static_cast<uint64_t>(ir[op[2]])
// The host's run budget, before every kernel call (never inside one):
// without limits, one predictable branch on a register.
#define KILN_CHECK_BUDGET                                           \
  if (__builtin_expect(budget != nullptr, 0)) KILN_FAIL_IF(budget->Poll())
// The observer hears of a dispatch after the integer instructions that
// follow it (the ILOAD of a length it computed, and the sizes derived from
// it), so it sees its values with their run-time shapes.
#define KILN_EXEC_DISPATCH                                                   \
  {                                                                          \
    KILN_CHECK_BUDGET;                                                       \
    const ResolvedExecutable& e = frame.executables[op[0]];                  \
    const uint32_t count = op[1];                                            \
    for (uint32_t k = 0; k < count; ++k) frame.bindings[k] = r[op[2 + k]];   \
    if constexpr (kObserved) observer->BeforeDispatch(dispatch, frame.bindings); \
    KILN_FAIL_IF(e.fn(e.iparams, e.fparams, frame.bindings, frame.host));    \
    if constexpr (kObserved) after = {true, dispatch++, pc};                 \
    next = pc + 3 + count;                                                   \
  }
// Patches the executable's parameters from integer registers into scratch,
// checks them against the views' real sizes, then calls the kernel.
#define KILN_EXEC_DISPATCH_DYN                                                     \
  {                                                                                \
    KILN_CHECK_BUDGET;                                                             \
    const ResolvedExecutable& e = frame.executables[op[0]];                        \
    const uint32_t count = op[1];                                                  \
    for (uint32_t k = 0; k < count; ++k) {                                         \
      frame.bindings[k] = r[op[2 + k]];                                            \
      frame.binding_bytes[k] = e.binding_bytes[k] == 0 ? 0 : rb[op[2 + k]];        \
    }                                                                              \
    const uint32_t* patch = op + 2 + count;                                        \
    int64_t* ip = frame.iparam_scratch;                                            \
    for (uint32_t k = 0; k < e.iparam_count; ++k) ip[k] = e.iparams[k];            \
    for (uint32_t k = 0; k < patch[0]; ++k) ip[patch[1 + 2 * k]] = ir[patch[2 + 2 * k]]; \
    KILN_FAIL_IF(kiln_check_dynamic_dispatch(e.check, ip, e.iparam_count, e.fparams, \
                                             e.fparam_count, frame.bindings,       \
                                             frame.binding_bytes, count, e.writes)); \
    if constexpr (kObserved) {                                                     \
      observer->DynamicParams(dispatch, ip, e.iparam_count);                       \
      observer->DynamicBindingBytes(dispatch, frame.binding_bytes, count);         \
      observer->BeforeDispatch(dispatch, frame.bindings);                          \
    }                                                                              \
    KILN_FAIL_IF(e.fn(ip, e.fparams, frame.bindings, frame.host));                 \
    if constexpr (kObserved) after = {true, dispatch++, pc};                       \
    next = pc + 4 + count + 2 * patch[0];                                          \
  }
#define KILN_EXEC_RETURN return KILN_OK
// Control flow runs out of line (ControlFlow below), keeping the dispatch
// loop as small as it was; a callee reports its own failures.
#define KILN_EXEC_IF                                                          \
  {                                                                           \
    const int rc_ = ControlFlow<kObserved>(frame, code[pc], op, pc, failed_pc, observer); \
    if (rc_ != KILN_OK) return rc_;                                           \
  }
#define KILN_EXEC_LOOP KILN_EXEC_IF
#define KILN_EXEC_LOOP_DYN KILN_EXEC_IF

namespace {

// Operand words of an instruction whose operands have no list ('L' handlers
// compute their own length).
constexpr uint32_t FixedOperandWords(const char* kinds) {
  uint32_t words = 0;
  for (; *kinds != '\0'; ++kinds) words += (*kinds == 'q') ? 2 : 1;
  return words;
}

// The opcodes of symbolic dimensions (integer registers, dynamic views and
// dispatches, KILN_OPCODE_IS_DYNAMIC): only the kDynamic loop runs them.

// kObserved selects, once per run, the instrumented loop that reports each
// dispatch to an observer (tracing, profiling, dumps); the plain loop is
// compiled without any of it. kDynamic likewise keeps what modules with
// symbols need (view sizes, integer registers) out of static modules' loop.
template <bool kObserved>
int ControlFlow(const InterpreterFrame& frame, uint32_t opcode, const uint32_t* op, uint32_t pc,
                uint32_t* failed_pc, DispatchObserver* observer);

// Inlined into Interpret() (the entry's loop) and into CalleeLoop (called
// functions), so the entry's dispatch loop is compiled as a leaf as before.
template <bool kObserved, bool kDynamic>
__attribute__((always_inline)) inline int InterpretLoop(const InterpreterFrame& frame,
                                                        uint32_t* failed_pc,
                                                        [[maybe_unused]] DispatchObserver* observer) {
  const uint32_t* code = frame.code;
  void** r = frame.registers;
  [[maybe_unused]] uint64_t* rb = frame.register_bytes;
  [[maybe_unused]] int64_t* ir = frame.int_registers;
  RunBudget* const budget = frame.budget;
  uint32_t pc = 0;
  // Ordinal of the next DISPATCH (observed loop): a function's dispatches
  // run in bytecode order, numbered after those of the functions before it.
  [[maybe_unused]] uint32_t dispatch = 0;
  if constexpr (kObserved) dispatch = frame.functions[frame.function].dispatch_base;
  // The dispatch the observer has yet to hear of (KILN_EXEC_DISPATCH).
  struct PendingAfter {
    bool pending;
    uint32_t dispatch, pc;
  } after = {false, 0, 0};
  (void)after;
  for (;;) {
    const uint32_t* op = code + pc + 1;
    uint32_t next = 0;
    if constexpr (kObserved) {
      if (after.pending && !kiln_opcode_is_integer(code[pc])) {
        after.pending = false;
        if (!observer->AfterDispatch(after.dispatch, frame.bindings)) {
          *failed_pc = after.pc;
          return kInterpretStopped;
        }
      }
    }
    switch (code[pc]) {
#define KILN_OP(name, code_value, operands, semantics)          \
  case KILN_OP_##name:                                          \
    next = pc + 1 + FixedOperandWords(operands);              \
    if constexpr (kDynamic || !KILN_OPCODE_IS_DYNAMIC(KILN_OP_##name)) { \
      KILN_EXEC_##name;                                         \
    } else {                                                    \
      return KILN_ERR_INVALID_ARGUMENT; /* not a dynamic frame */ \
    }                                                           \
    break;
#include "kiln/opcodes.def"
#undef KILN_OP
      default:
        return KILN_ERR_INVALID_ARGUMENT;  // unreachable for verified code
    }
    pc = next;
  }
}

template <bool kObserved, bool kDynamic>
__attribute__((noinline)) int CalleeLoop(const InterpreterFrame& callee, uint32_t* failed_pc,
                                         DispatchObserver* observer) {
  return InterpretLoop<kObserved, kDynamic>(callee, failed_pc, observer);
}

// The callee runs in a frame of its own (its code, registers and integer
// registers; the symbols, buffers and workspace are the caller's). Only a
// callee using the dynamic opcodes runs the kDynamic loop, so static
// modules' callees stay as fast as before.
template <bool kObserved>
int Call(const InterpreterFrame& caller, uint32_t function, uint32_t* failed_pc,
         DispatchObserver* observer) {
  InterpreterFrame callee = caller;
  const InterpreterFunction& f = caller.functions[function];
  callee.code = f.code;
  callee.registers = f.registers;
  callee.register_bytes = f.register_bytes;
  callee.int_registers = f.int_registers;
  callee.function = function;
  callee.dynamic = f.dynamic;
  // Observers read a callee's debug dims from its own integer registers.
  if constexpr (kObserved) observer->FunctionIntRegisters(f.int_registers, f.int_register_count);
  const int rc = f.dynamic ? CalleeLoop<kObserved, true>(callee, failed_pc, observer)
                           : CalleeLoop<kObserved, false>(callee, failed_pc, observer);
  if constexpr (kObserved) {
    const InterpreterFunction& back = caller.functions[caller.function];
    observer->FunctionIntRegisters(back.int_registers, back.int_register_count);
  }
  // The innermost failing function names itself; callers leave it.
  if (rc != KILN_OK && *caller.failed_function == kNoFailedFunction) {
    *caller.failed_function = function;
  }
  return rc;
}

// IF, LOOP and LOOP_DYN (kiln/control_ops.h holds the semantics both back
// ends share). LOOP_DYN differs from LOOP only in where its trip count and
// expected count come from: integer registers (only dynamic frames run it).
template <bool kObserved>
__attribute__((noinline)) int ControlFlow(const InterpreterFrame& frame, uint32_t opcode,
                                          const uint32_t* op, uint32_t pc, uint32_t* failed_pc,
                                          DispatchObserver* observer) {
  void* const* r = frame.registers;
  if (opcode == KILN_OP_IF) {
    return Call<kObserved>(frame, kiln_condition(r[op[0]]) ? op[1] : op[2], failed_pc, observer);
  }
  const bool dyn = opcode == KILN_OP_LOOP_DYN;
  const int64_t trip = dyn                         ? frame.int_registers[op[1]]
                       : op[1] == KILN_NO_REGISTER ? INT64_MAX
                                                   : kiln_trip_count(r[op[1]]);
  const uint64_t expected =
      dyn ? kiln_loop_expected(frame.int_registers[op[5]]) : ReadU64(op + 5);
  int cond = op[2] == KILN_NO_REGISTER ? 1 : kiln_condition(r[op[2]]);
  for (uint64_t i = 0;; ++i) {
    int run = 0;
    KILN_FAIL_IF(kiln_loop_next(i, trip, cond, expected, &run));
    if (!run) return KILN_OK;
    // The back-edge check of the host's run budget (per iteration).
    if (frame.budget != nullptr) KILN_FAIL_IF(frame.budget->Iteration());
    kiln_write_iteration(r[op[3]], i);
    if (const int rc = Call<kObserved>(frame, op[0], failed_pc, observer); rc != KILN_OK) {
      return rc;
    }
    if (op[4] != KILN_NO_REGISTER) cond = kiln_condition(r[op[4]]);
  }
}

}  // namespace

int Interpret(const InterpreterFrame& frame, uint32_t* failed_pc) {
  return frame.dynamic ? InterpretLoop<false, true>(frame, failed_pc, nullptr)
                       : InterpretLoop<false, false>(frame, failed_pc, nullptr);
}

int EvaluateIntegers(const InterpreterFrame& frame, uint32_t code_words, uint32_t* failed_pc) {
  int64_t* ir = frame.int_registers;
  uint8_t* unknown = frame.int_unknown;
  for (uint32_t pc = 0; pc < code_words;) {
    const Instruction inst = DecodeVerified(frame.code, pc);
    const uint32_t* op = inst.operands;
    // A length ILOAD brings in, and all arithmetic on it, waits for the run.
    bool waits = inst.opcode == KILN_OP_ILOAD;
    const bool writes = kiln_opcode_writes_integer(inst.opcode) != 0;
    if (kiln_opcode_is_integer(inst.opcode)) {
      const char* kinds = kiln_opcode_operands(inst.opcode);
      for (uint32_t k = writes ? 1 : 0; kinds[k] != '\0'; ++k) {
        waits = waits || (kinds[k] == 'n' && unknown[op[k]] != 0);
      }
      if (writes) unknown[op[0]] = waits ? 1 : 0;
    }
    if (!waits) {
      switch (inst.opcode) {
        case KILN_OP_ISYM: KILN_EXEC_ISYM; break;
        case KILN_OP_ICONST: KILN_EXEC_ICONST; break;
#define KILN_INT_BINARY(name, helper, text) case KILN_OP_##name:
#include "kiln/opcodes.def"
#undef KILN_INT_BINARY
          KILN_EXEC_INT_BINARY(inst.opcode);
          break;
        case KILN_OP_IASSERT_EQ: KILN_EXEC_IASSERT_EQ; break;
        default: break;
      }
    }
    pc += inst.length;
  }
  return KILN_OK;
}

int InterpretObserved(const InterpreterFrame& frame, uint32_t* failed_pc,
                      DispatchObserver& observer) {
  return frame.dynamic ? InterpretLoop<true, true>(frame, failed_pc, &observer)
                       : InterpretLoop<true, false>(frame, failed_pc, &observer);
}

}  // namespace kiln::vm
