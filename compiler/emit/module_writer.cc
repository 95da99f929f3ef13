#include "compiler/emit/module_writer.h"

#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "flatbuffers/flatbuffers.h"
#include "compiler/emit/dtype_codes.h"
#include "kiln/module_generated.h"
#include "kiln/opcodes.h"

namespace kiln::compiler::emit {
namespace {

constexpr uint64_t kConstantAlignment = 64;

using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

std::vector<Offset<flatbuffers::String>> Strings(FlatBufferBuilder& b,
                                                 const std::vector<std::string>& v) {
  std::vector<Offset<flatbuffers::String>> out;
  for (const std::string& s : v) out.push_back(b.CreateString(s));
  return out;
}

Offset<fb::TensorDesc> WriteTensor(FlatBufferBuilder& b, const TensorDesc& t) {
  // Static tensors carry no dim_symbols at all (the field stays absent).
  auto symbols = Strings(b, t.dim_symbols);
  return fb::CreateTensorDescDirect(b, t.name.c_str(), ModuleDType(t.dtype), &t.shape,
                                    t.dim_symbols.empty() ? nullptr : &symbols,
                                    t.dim_registers.empty() ? nullptr : &t.dim_registers,
                                    t.capacity_bytes);
}

}  // namespace

absl::StatusOr<std::string> WriteModule(const LoweredModule& m) {
  FlatBufferBuilder b(1024);

  // Constant data first: one blob, each constant at an aligned offset.
  std::vector<uint64_t> offsets;
  uint64_t total = 0;
  for (const ConstantDesc& c : m.constants) {
    total = (total + kConstantAlignment - 1) / kConstantAlignment * kConstantAlignment;
    offsets.push_back(total);
    total += c.data->bytes.size();
  }
  std::vector<uint8_t> blob(total, 0);
  for (size_t k = 0; k < m.constants.size(); ++k) {
    const auto& bytes = m.constants[k].data->bytes;
    if (!bytes.empty()) std::memcpy(blob.data() + offsets[k], bytes.data(), bytes.size());
  }
  b.ForceVectorAlignment(blob.size(), 1, kConstantAlignment);
  const auto constant_data = b.CreateVector(blob);

  std::vector<Offset<fb::Constant>> constants;
  for (size_t k = 0; k < m.constants.size(); ++k) {
    const ConstantDesc& c = m.constants[k];
    constants.push_back(fb::CreateConstantDirect(b, c.name.c_str(), ModuleDType(c.data->dtype), &c.data->shape,
                                                 offsets[k], c.data->bytes.size(),
                                                 static_cast<fb::ConstantLayout>(c.layout)));
  }

  std::vector<Offset<fb::Executable>> executables;
  for (const ExecutableDesc& e : m.executables) {
    executables.push_back(fb::CreateExecutableDirect(b, e.kernel.c_str(), &e.iparams, &e.fparams,
                                                     e.binding_count, &e.binding_bytes));
  }

  std::vector<Offset<fb::TensorDesc>> inputs, outputs;
  for (const TensorDesc& t : m.inputs) inputs.push_back(WriteTensor(b, t));
  for (const TensorDesc& t : m.outputs) outputs.push_back(WriteTensor(b, t));
  std::vector<Offset<fb::BoundInput>> bound;
  for (const auto& [name, value] : m.bound_inputs) {
    TensorDesc t;
    t.name = name;
    t.dtype = value->dtype;
    t.shape = value->shape;
    bound.push_back(fb::CreateBoundInputDirect(b, WriteTensor(b, t), &value->bytes));
  }
  const auto signature =
      fb::CreateSignatureDirect(b, &inputs, &outputs, bound.empty() ? nullptr : &bound);

  std::vector<Offset<fb::Function>> functions = {
      fb::CreateFunctionDirect(b, "main", m.register_count, &m.bytecode, m.int_register_count)};
  for (const FunctionDesc& f : m.called_functions) {
    functions.push_back(fb::CreateFunctionDirect(b, f.name.c_str(), f.register_count, &f.bytecode,
                                                 f.int_register_count));
  }

  std::vector<Offset<fb::DispatchDebug>> dispatches;
  for (const DispatchDebugDesc& d : m.dispatches) {
    auto nodes = Strings(b, d.nodes);
    auto ops = Strings(b, d.op_types);
    auto outs = Strings(b, d.outputs);
    std::vector<Offset<fb::ValueDebug>> values;
    for (const ValueDebugDesc& v : d.values) {
      values.push_back(fb::CreateValueDebugDirect(b, v.name.c_str(), ModuleDType(v.dtype), &v.shape, v.binding,
                                                    v.channels_last,
                                                    v.dim_registers.empty() ? nullptr
                                                                            : &v.dim_registers));
    }
    dispatches.push_back(fb::CreateDispatchDebugDirect(b, d.bytecode_offset, d.executable, &nodes,
                                                       &ops, &outs, &values, d.function));
  }
  const auto debug = fb::CreateDebugInfoDirect(b, m.source.c_str(), &dispatches);
  std::vector<Offset<fb::ArenaTensorDebug>> arena_tensors;
  for (const ArenaTensorDesc& t : m.arena_tensors) {
    arena_tensors.push_back(fb::CreateArenaTensorDebugDirect(b, t.value.c_str(), t.offset, t.size,
                                                             t.first_dispatch, t.last_dispatch));
  }
  const auto memory = fb::CreateMemoryPlan(b, m.arena_size, m.arena_alignment,
                                           m.live_bytes_lower_bound, m.unshared_bytes,
                                           b.CreateVector(arena_tensors), m.workspace_register);

  const auto executables_vec = b.CreateVector(executables);
  const auto constants_vec = b.CreateVector(constants);
  const auto functions_vec = b.CreateVector(functions);
  auto symbols = Strings(b, m.symbols);
  const auto symbols_vec = m.symbols.empty() ? 0 : b.CreateVector(symbols);
  std::vector<Offset<fb::ResultSymbol>> results;
  for (const ResultSymbolDesc& r : m.result_symbols) {
    results.push_back(fb::CreateResultSymbolDirect(b, r.name.c_str(), r.bound, r.arena_offset));
  }
  const auto results_vec = results.empty() ? 0 : b.CreateVector(results);
  const auto module = fb::CreateModule(b, KILN_FORMAT_VERSION, b.CreateString(kProducer),
                                       signature, functions_vec, executables_vec, constants_vec,
                                       constant_data, memory, debug, symbols_vec, results_vec,
                                       m.max_trip_count);
  fb::FinishModuleBuffer(b, module);
  return std::string(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
}

}  // namespace kiln::compiler::emit
