#include "vm/interpreter.h"

#include "kiln/opcodes.h"
#include "vm/bytecode.h"
#include "vm/observer.h"

namespace kiln::vm {

// One handler per opcode of schemas/kiln/opcodes.def; an opcode added there
// without a handler here fails to compile. `op` points at the operands.
#define KILN_EXEC_VIEW_INPUT r[op[0]] = const_cast<void*>(frame.inputs[op[1]])
#define KILN_EXEC_VIEW_OUTPUT r[op[0]] = frame.outputs[op[1]]
#define KILN_EXEC_VIEW_CONST r[op[0]] = const_cast<void*>(frame.constants[op[1]])
#define KILN_EXEC_VIEW_ARENA r[op[0]] = frame.arena + ReadU64(op + 1)
#define KILN_EXEC_DISPATCH                                                   \
  {                                                                          \
    const ResolvedExecutable& e = frame.executables[op[0]];                  \
    const uint32_t count = op[1];                                            \
    for (uint32_t k = 0; k < count; ++k) frame.bindings[k] = r[op[2 + k]];   \
    if constexpr (kObserved) observer->BeforeDispatch(dispatch, frame.bindings); \
    const int rc = e.fn(e.iparams, e.fparams, frame.bindings, frame.host);   \
    if (rc != KILN_OK) {                                                     \
      *failed_pc = pc;                                                       \
      return rc;                                                             \
    }                                                                        \
    if constexpr (kObserved) {                                               \
      if (!observer->AfterDispatch(dispatch++, frame.bindings)) {            \
        *failed_pc = pc;                                                     \
        return kInterpretStopped;                                            \
      }                                                                      \
    }                                                                        \
    next = pc + 3 + count;                                                   \
  }
#define KILN_EXEC_RETURN return KILN_OK

namespace {

// Operand words of an instruction whose operands have no list ('L' handlers
// compute their own length).
constexpr uint32_t FixedOperandWords(const char* kinds) {
  uint32_t words = 0;
  for (; *kinds != '\0'; ++kinds) words += (*kinds == 'q') ? 2 : 1;
  return words;
}

// kObserved selects, once per run, the instrumented loop that reports each
// dispatch to an observer (tracing, profiling, dumps); the plain loop is
// compiled without any of it.
template <bool kObserved>
int InterpretLoop(const InterpreterFrame& frame, uint32_t* failed_pc,
                  [[maybe_unused]] DispatchObserver* observer) {
  const uint32_t* code = frame.code;
  void** r = frame.registers;
  uint32_t pc = 0;
  [[maybe_unused]] uint32_t dispatch = 0;  // ordinal of the next DISPATCH (observed loop)
  for (;;) {
    const uint32_t* op = code + pc + 1;
    uint32_t next = 0;
    switch (code[pc]) {
#define KILN_OP(name, code_value, operands, semantics)          \
  case KILN_OP_##name:                                          \
    next = pc + 1 + FixedOperandWords(operands);              \
    KILN_EXEC_##name;                                           \
    break;
#include "kiln/opcodes.def"
#undef KILN_OP
      default:
        return KILN_ERR_INVALID_ARGUMENT;  // unreachable for verified code
    }
    pc = next;
  }
}

}  // namespace

int Interpret(const InterpreterFrame& frame, uint32_t* failed_pc) {
  return InterpretLoop<false>(frame, failed_pc, nullptr);
}

int InterpretObserved(const InterpreterFrame& frame, uint32_t* failed_pc,
                      DispatchObserver& observer) {
  return InterpretLoop<true>(frame, failed_pc, &observer);
}

}  // namespace kiln::vm
