// Builds by hand a module with a symbol S whose called functions use the
// dynamic opcodes (their own integer registers, ISYM, VIEW_*_DYN,
// DISPATCH_DYN) and whose entry runs a LOOP_DYN:
//   inputs  x float32 [S,4], cond bool [1]
//   outputs y float32 [S,4] = cond ? x + x : x          (IF: functions 1, 2)
//           z float32 [S,4] = x, then z += x per iteration (LOOP_DYN: function 3)
// so after T iterations z = (1 + T) * x. Knobs pick the trip and expected
// counts; tests edit the returned bytecode to break verifier rules.
#ifndef KILN_TESTS_VM_DYNAMIC_CALLEE_BUILDER_H_
#define KILN_TESTS_VM_DYNAMIC_CALLEE_BUILDER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "flatbuffers/flatbuffers.h"
#include "kiln/control_ops.h"
#include "kiln/module_generated.h"
#include "kiln/opcodes.h"

namespace kiln::testing {

// An integer register's source: the symbol S, or a constant.
struct IntSource {
  bool symbol = false;
  int64_t value = 0;
};

struct DynamicCalleeSpec {
  IntSource trip{true, 0};         // LOOP_DYN's trip count (default: S)
  IntSource expected{false, -1};   // its expected count (default: any)
  bool loop_condition = false;     // LOOP_DYN's condition before the first call: cond
  // A third output, w float32 [4] (static), written only by the loop body
  // (row 0 of x): the verifier counts it written only when the loop must
  // run at least once.
  bool static_output = false;
  bool result_symbol = false;      // a result symbol (for ILOAD refusals)
  bool no_symbols = false;         // S fixed at 2 and no symbols (for refusals)
  std::vector<std::vector<uint32_t>> functions;  // empty: DynamicCalleeFunctions(spec)
  uint32_t int_register_count = 8;  // every function's
};

inline uint32_t CalleeLo(int64_t v) { return static_cast<uint32_t>(static_cast<uint64_t>(v)); }
inline uint32_t CalleeHi(int64_t v) { return static_cast<uint32_t>(static_cast<uint64_t>(v) >> 32); }

// Executables: e0 kiln_copy (bytes patched), e1 binary_f32 add over one dim
// (length patched), e2 kiln_copy of 16 bytes (static; with static_output).
inline std::vector<std::vector<uint32_t>> DynamicCalleeFunctions(const DynamicCalleeSpec& spec) {
  auto source = [](uint32_t reg, const IntSource& s) -> std::vector<uint32_t> {
    if (s.symbol) return {KILN_OP_ISYM, reg, 0};
    return {KILN_OP_ICONST, reg, CalleeLo(s.value), CalleeHi(s.value)};
  };
  // main: n0 = S, n1 = 16, n2 = S*16 bytes, n3 = 16 + S*16 (workspace),
  // n4 = trip, n5 = expected; z = x; IF cond f1 f2; LOOP_DYN f3.
  std::vector<uint32_t> main = {KILN_OP_ISYM, 0, 0,
                                KILN_OP_ICONST, 1, 16, 0,
                                KILN_OP_IMUL, 2, 0, 1,
                                KILN_OP_IADD, 3, 1, 2};
  for (uint32_t w : source(4, spec.trip)) main.push_back(w);
  for (uint32_t w : source(5, spec.expected)) main.push_back(w);
  const std::vector<uint32_t> rest = {
      KILN_OP_VIEW_INPUT, 0, 1,              // r0 = cond
      KILN_OP_VIEW_ARENA, 1, 0, 0, 8, 0,     // r1 = the iteration slot
      KILN_OP_VIEW_INPUT_DYN, 2, 0, 2,       // r2 = x
      KILN_OP_VIEW_OUTPUT_DYN, 3, 1, 2,      // r3 = z
      KILN_OP_DISPATCH_DYN, 0, 2, 2, 3, 1, 0, 2,  // z = x
      KILN_OP_IF, 0, 1, 2,
      KILN_OP_LOOP_DYN, 3, 4, spec.loop_condition ? 0u : KILN_NO_REGISTER, 1, KILN_NO_REGISTER, 5,
      KILN_OP_RETURN};
  main.insert(main.end(), rest.begin(), rest.end());
  // then: n0 = S, n1 = 4, n2 = S*4 elements, n3 = S*16 bytes, n4 = 16;
  // tmp (workspace + 16) = x; y = tmp + x.
  const std::vector<uint32_t> then_branch = {
      KILN_OP_ISYM, 0, 0,
      KILN_OP_ICONST, 1, 4, 0,
      KILN_OP_IMUL, 2, 0, 1,
      KILN_OP_IMUL, 3, 2, 1,
      KILN_OP_ICONST, 4, 16, 0,
      KILN_OP_VIEW_INPUT_DYN, 0, 0, 3,
      KILN_OP_VIEW_ARENA_DYN, 1, 4, 3,
      KILN_OP_VIEW_OUTPUT_DYN, 2, 0, 3,
      KILN_OP_DISPATCH_DYN, 0, 2, 0, 1, 1, 0, 3,
      KILN_OP_DISPATCH_DYN, 1, 3, 1, 0, 2, 1, 2, 2,
      KILN_OP_RETURN};
  // else: n0 = S, n1 = 16, n2 = S*16 bytes; y = x.
  const std::vector<uint32_t> else_branch = {
      KILN_OP_ISYM, 0, 0,
      KILN_OP_ICONST, 1, 16, 0,
      KILN_OP_IMUL, 2, 0, 1,
      KILN_OP_VIEW_INPUT_DYN, 0, 0, 2,
      KILN_OP_VIEW_OUTPUT_DYN, 1, 0, 2,
      KILN_OP_DISPATCH_DYN, 0, 2, 0, 1, 1, 0, 2,
      KILN_OP_RETURN};
  // body: as then; tmp = z + x; z = tmp (and w = row 0 of x).
  std::vector<uint32_t> body = {
      KILN_OP_ISYM, 0, 0,
      KILN_OP_ICONST, 1, 4, 0,
      KILN_OP_IMUL, 2, 0, 1,
      KILN_OP_IMUL, 3, 2, 1,
      KILN_OP_ICONST, 4, 16, 0,
      KILN_OP_VIEW_INPUT_DYN, 0, 0, 3,
      KILN_OP_VIEW_OUTPUT_DYN, 1, 1, 3,
      KILN_OP_VIEW_ARENA_DYN, 2, 4, 3,
      KILN_OP_DISPATCH_DYN, 1, 3, 1, 0, 2, 1, 2, 2,
      KILN_OP_DISPATCH_DYN, 0, 2, 2, 1, 1, 0, 3};
  if (spec.static_output) {
    const std::vector<uint32_t> w = {KILN_OP_VIEW_INPUT, 3, 0, KILN_OP_VIEW_OUTPUT, 4, 2,
                                     KILN_OP_DISPATCH, 2, 2, 3, 4};
    body.insert(body.end(), w.begin(), w.end());
  }
  body.push_back(KILN_OP_RETURN);
  return {main, then_branch, else_branch, body};
}

inline std::string BuildDynamicCalleeModule(const DynamicCalleeSpec& spec) {
  flatbuffers::FlatBufferBuilder b;
  const std::vector<int64_t> s4 = {spec.no_symbols ? 2 : -1, 4}, one = {1}, four = {4};
  const std::vector<std::string> s_dims = {spec.no_symbols ? "" : "S", ""}, one_dims = {""},
                                  four_dims = {""};
  auto x = fb::CreateTensorDesc(b, b.CreateString("x"), fb::DType::F32, b.CreateVector(s4),
                                b.CreateVectorOfStrings(s_dims));
  auto cond = fb::CreateTensorDesc(b, b.CreateString("cond"), fb::DType::Bool, b.CreateVector(one),
                                   b.CreateVectorOfStrings(one_dims));
  auto y = fb::CreateTensorDesc(b, b.CreateString("y"), fb::DType::F32, b.CreateVector(s4),
                                b.CreateVectorOfStrings(s_dims));
  auto z = fb::CreateTensorDesc(b, b.CreateString("z"), fb::DType::F32, b.CreateVector(s4),
                                b.CreateVectorOfStrings(s_dims));
  std::vector<flatbuffers::Offset<fb::TensorDesc>> outputs = {y, z};
  if (spec.static_output) {
    outputs.push_back(fb::CreateTensorDesc(b, b.CreateString("w"), fb::DType::F32,
                                           b.CreateVector(four), b.CreateVectorOfStrings(four_dims)));
  }
  auto sig = fb::CreateSignature(b, b.CreateVector(std::vector{x, cond}), b.CreateVector(outputs));
  const std::vector<int64_t> copy_params = {0}, add_params = {0, 1, 0, 1, 1}, row_params = {16};
  const std::vector<uint64_t> any2 = {UINT64_MAX, UINT64_MAX}, any3 = {UINT64_MAX, UINT64_MAX, UINT64_MAX},
                              row_bytes = {16, 16};
  std::vector<flatbuffers::Offset<fb::Executable>> executables = {
      fb::CreateExecutable(b, b.CreateString("kiln_copy"), b.CreateVector(copy_params), 0, 2,
                           b.CreateVector(any2)),
      fb::CreateExecutable(b, b.CreateString("kiln_binary_f32"), b.CreateVector(add_params), 0, 3,
                           b.CreateVector(any3))};
  if (spec.static_output) {  // only when used: AOT code is built with -Werror
    executables.push_back(fb::CreateExecutable(b, b.CreateString("kiln_copy"),
                                               b.CreateVector(row_params), 0, 2,
                                               b.CreateVector(row_bytes)));
  }
  const std::vector<std::vector<uint32_t>> code =
      spec.functions.empty() ? DynamicCalleeFunctions(spec) : spec.functions;
  const char* names[] = {"main", "then", "else", "body"};
  std::vector<flatbuffers::Offset<fb::Function>> functions;
  for (size_t f = 0; f < code.size(); ++f) {
    functions.push_back(fb::CreateFunction(b, b.CreateString(f < 4 ? names[f] : "extra"), 5,
                                           b.CreateVector(code[f]), spec.int_register_count));
  }
  // Static arena: the iteration slot (and a result slot); the workspace is
  // 16 + S*16 bytes (n3 of main).
  auto plan = fb::CreateMemoryPlan(b, 16, 64, 0, 0, 0, 3);
  std::vector<std::string> symbols;
  if (!spec.no_symbols) symbols.push_back("S");
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::ResultSymbol>>> results = 0;
  if (spec.result_symbol) {
    results = b.CreateVector(std::vector{fb::CreateResultSymbol(b, b.CreateString("len"), 4, 8)});
  }
  auto module = fb::CreateModule(b, KILN_FORMAT_VERSION, b.CreateString("test"), sig,
                                 b.CreateVector(functions), b.CreateVector(executables), 0, 0, plan,
                                 0, b.CreateVectorOfStrings(symbols), results);
  fb::FinishModuleBuffer(b, module);
  return std::string(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
}

}  // namespace kiln::testing

#endif  // KILN_TESTS_VM_DYNAMIC_CALLEE_BUILDER_H_
