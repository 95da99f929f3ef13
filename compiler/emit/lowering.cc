#include "compiler/emit/lowering.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/emit/bytecode_builder.h"
#include "compiler/emit/lowering_context.h"
#include "compiler/emit/shape_program.h"
#include "compiler/passes/memory_planning.h"
#include "kiln/control_ops.h"
#include "kiln/opcodes.h"

namespace kiln::compiler::emit {
namespace {

using compiler::StorageKind;

struct KernelInfo {
  const char* name;
  uint32_t binding_count;
};

constexpr KernelInfo kKernels[] = {
#define KILN_KERNEL(name, bindings, writes, source, iparams, fparams) {#name, bindings},
#include "kiln/kernel_table.def"
#undef KILN_KERNEL
};

const KernelInfo* FindKernel(const std::string& name) {
  for (const KernelInfo& k : kKernels) {
    if (name == k.name) return &k;
  }
  return nullptr;
}

// Control flow's slots for called functions, by what views them.
using SlotKey = std::tuple<uint64_t, uint64_t, int64_t, int64_t>;
SlotKey SlotKeyOf(const Binding& b) {
  return SlotKey{b.index, b.bytes, b.symbolic_offset, b.symbolic_bytes};
}

}  // namespace

std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t k = shape.size(); k-- > 1;) strides[k - 1] = strides[k] * shape[k];
  return strides;
}

std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& shape, ir::DimPool& dims) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t k = shape.size(); k-- > 1;) strides[k - 1] = dims.Mul(strides[k], shape[k]);
  return strides;
}

bool BroadcastStrides(const std::vector<int64_t>& in, const std::vector<int64_t>& out,
                      ir::DimPool& dims, std::vector<int64_t>* strides) {
  if (in.size() > out.size()) return false;
  const std::vector<int64_t> cs = ContiguousStrides(in, dims);
  strides->assign(out.size(), 0);
  for (size_t d = 0; d < in.size(); ++d) {
    const size_t od = out.size() - in.size() + d;
    if (dims.SameDim(in[d], out[od])) {
      (*strides)[od] = in[d] == 1 ? 0 : cs[d];
    } else if (in[d] != 1) {
      return false;
    }
  }
  return true;
}

absl::Status LoweringContext::Error(absl::StatusCode code, const ir::Node& node,
                                    const std::string& msg) const {
  return absl::Status(code, absl::StrCat(graph_.source, ": node ", node.Describe(), ": ", msg));
}

absl::StatusOr<std::vector<int64_t>> LoweringContext::InputShape(const ir::Node& node,
                                                                 size_t k) const {
  if (k >= node.inputs.size() || node.inputs[k] == ir::kNoValue) {
    return Invalid(node, absl::StrCat("missing input ", k));
  }
  const ir::Value& v = value(node.inputs[k]);
  if (!v.has_shape) return Invalid(node, absl::StrCat("input '", v.name, "' has no static shape"));
  return v.shape;
}

absl::StatusOr<std::vector<int64_t>> LoweringContext::OutputShape(const ir::Node& node,
                                                                  size_t k) const {
  if (k >= node.outputs.size() || node.outputs[k] == ir::kNoValue) {
    return Invalid(node, absl::StrCat("missing output ", k));
  }
  const ir::Value& v = value(node.outputs[k]);
  if (!v.has_shape) return Invalid(node, absl::StrCat("output '", v.name, "' has no static shape"));
  return v.shape;
}

absl::Status LoweringContext::RequireF32(const ir::Node& node) const {
  for (const auto* list : {&node.inputs, &node.outputs}) {
    for (ir::ValueId v : *list) {
      if (v == ir::kNoValue || value(v).dtype == ir::DType::F32) continue;
      return Unimplemented(node, absl::StrCat("tensor '", value(v).name, "' is ",
                                              ir::DTypeName(value(v).dtype),
                                              "; only float32 kernels exist"));
    }
  }
  return absl::OkStatus();
}

absl::Status LoweringContext::RequireStatic(const ir::Node& node, const std::vector<int64_t>& dims,
                                            const char* what) const {
  for (int64_t d : dims) {
    if (ir::IsSymbolic(d)) {
      return Unimplemented(node, absl::StrCat(what, " must be static; one is ",
                                              this->dims().ToString(d)));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<int64_t>> LoweringContext::BoundShape(const ir::Node& node,
                                                                 std::vector<int64_t> shape) const {
  for (int64_t& d : shape) {
    if (!dims().HasData(d)) continue;
    if (!dims().UpperBound(d, &d)) {
      return Unimplemented(node, "has a run-time length without a static bound");
    }
  }
  return shape;
}

absl::StatusOr<Binding> LoweringContext::Bind(const ir::Node& node, ir::ValueId v) {
  if (v == ir::kNoValue || static_cast<size_t>(v) >= plan_.storage.size()) {
    return Invalid(node, "binds a missing value");
  }
  const compiler::ValueStorage& s = plan_.storage[v];
  Binding b;
  b.bytes = s.size;
  if (ir::IsSymbolic(s.size_expr)) b.symbolic_bytes = s.size_expr;
  switch (s.kind) {
    case StorageKind::kInput:
      b.kind = Binding::Kind::kInput;
      b.index = static_cast<uint64_t>(s.index);
      return b;
    case StorageKind::kOutput:
      b.kind = Binding::Kind::kOutput;
      b.index = static_cast<uint64_t>(s.index);
      return b;
    case StorageKind::kArena:
      b.kind = Binding::Kind::kArena;
      b.index = static_cast<uint64_t>(s.root);
      return b;
    case StorageKind::kConstant: {
      if (value(s.root).constant->symbolic) {
        return Unimplemented(node, absl::StrCat("reads '", value(s.root).name,
                                                "', a value computed from symbolic dimensions, "
                                                "as tensor data; that is not supported yet"));
      }
      auto it = constant_of_value_.find(s.root);
      if (it == constant_of_value_.end()) {
        const ir::Value& c = value(s.root);
        const uint32_t ordinal = static_cast<uint32_t>(shared_->constants.size());
        shared_->constants.push_back({c.name, c.constant});
        it = constant_of_value_.emplace(s.root, ordinal).first;
      }
      b.kind = Binding::Kind::kConstant;
      b.index = it->second;
      return b;
    }
    case StorageKind::kNone:
      break;
  }
  return Invalid(node, absl::StrCat("value '", value(v).name, "' has no storage"));
}

Binding LoweringContext::BindNewConstant(const std::string& name, ir::ConstantPtr data,
                                         uint8_t layout) {
  Binding b;
  b.kind = Binding::Kind::kConstant;
  b.index = shared_->constants.size();
  b.bytes = data->bytes.size();
  shared_->constants.push_back({name, std::move(data), layout});
  return b;
}

void LoweringContext::DeclareTripCount(const Binding& trip) {
  const Binding r = Resolve(trip);
  if (r.kind != Binding::Kind::kConstant) return;
  // Read as the back ends read it (kiln_trip_count): the first 8 bytes.
  const std::vector<uint8_t>& bytes = shared_->constants[r.index].data->bytes;
  if (bytes.size() < sizeof(int64_t)) return;  // the verifier refuses such a view
  int64_t trip_count;
  std::memcpy(&trip_count, bytes.data(), sizeof trip_count);
  shared_->max_trip_count = std::max(shared_->max_trip_count, trip_count);
}

absl::Status LoweringContext::AddPending(PendingDispatch p, ExecutableDesc exe) {
  // A buffer of static size may still lie past tensors sized by the
  // symbols (a called function's, a Loop's slots): its view is made at run
  // time, so the dispatch binding it is a DISPATCH_DYN.
  for (const Binding& b : p.bindings) {
    const Binding r = Resolve(b);
    p.dynamic = p.dynamic || r.symbolic_offset != 0 || r.symbolic_bytes != 0;
  }
  p.executable = static_cast<uint32_t>(shared_->executables.size());
  shared_->executables.push_back(std::move(exe));
  pending_.push_back(std::move(p));
  return absl::OkStatus();
}

absl::Status LoweringContext::Dispatch(const ir::Node& node, const std::string& kernel,
                                       std::vector<int64_t> iparams, std::vector<float> fparams,
                                       const std::vector<Binding>& bindings,
                                       const std::vector<int64_t>& bytes_override) {
  const KernelInfo* info = FindKernel(kernel);
  if (!info || info->binding_count != bindings.size()) {
    return Error(absl::StatusCode::kInternal, node,
                 absl::StrCat("bad lowering to kernel ", kernel));
  }
  PendingDispatch p;
  if (!dims().empty()) {
    if (!dims().ok()) {
      dims().ClearError();
      return Invalid(node, "symbolic shape arithmetic overflows");
    }
    // Encoded symbolic parameters become run-time patches of a zero.
    for (size_t k = 0; k < iparams.size(); ++k) {
      if (!dims().Known(iparams[k])) continue;  // a number, even in the encoded range
      p.patches.push_back({static_cast<uint32_t>(k), iparams[k]});
      iparams[k] = 0;
    }
    p.dynamic = !p.patches.empty();
    for (const Binding& b : bindings) p.dynamic = p.dynamic || b.symbolic_bytes != 0;
  }
  ExecutableDesc exe;
  exe.kernel = absl::StrCat("kiln_", kernel);
  exe.iparams = std::move(iparams);
  exe.fparams = std::move(fparams);
  exe.binding_count = info->binding_count;
  for (size_t k = 0; k < bindings.size(); ++k) {
    const bool keep = k >= bytes_override.size() || bytes_override[k] < 0;
    // A dynamic dispatch's sizes are checked at run time, on the real views.
    // For DISPATCH_DYN, 0 still marks a binding the kernel leaves untouched;
    // any other entry is replaced by the view's size at run time, and a
    // symbolic one is written as the largest value ("the whole view").
    uint64_t bytes = keep ? bindings[k].bytes : static_cast<uint64_t>(bytes_override[k]);
    if ((keep && bindings[k].symbolic_bytes != 0) ||
        (!keep && dims().Known(bytes_override[k]))) {
      bytes = UINT64_MAX;
    }
    exe.binding_bytes.push_back(bytes);
  }
  p.bindings = bindings;
  p.nodes.push_back(node.name);
  auto src = node.attributes.find("kiln.source_op");
  p.op_types.push_back(src != node.attributes.end() ? src->second.s : node.op_type);
  for (const ir::FusedSource& f : node.fused) {
    p.nodes.push_back(f.name);
    p.op_types.push_back(f.op_type);
  }
  for (ir::ValueId out : node.outputs) {
    if (out != ir::kNoValue) p.outputs.push_back(value(out).name);
  }
  RecordWrites(node, bindings, &p);
  for (ir::ValueId out : node.outputs) {
    if (out == ir::kNoValue) continue;
    auto loads = LoadsOf(node, out);
    if (!loads.ok()) return loads.status();
    // After a dispatch that may write the count; a later dispatch of the
    // node that does not bind it (a fill after shape_resolve) loads nothing.
    for (int32_t data : *loads) {
      const ir::ValueId count = dims().data_symbols()[data].count_value;
      bool binds = false;
      for (const Binding& b : bindings) {
        binds = binds || b.kind == Binding::Kind::kFixed ||
                (b.kind == Binding::Kind::kArena &&
                 b.index == static_cast<uint64_t>(plan_.storage[count].root));
      }
      if (loaded_data_.insert(data).second || binds) p.loads.push_back(data);
    }
  }
  return AddPending(std::move(p), std::move(exe));
}

absl::Status LoweringContext::OutputCopy(int32_t output_index, ir::ValueId source) {
  ir::Node none;
  none.name = absl::StrCat("output ", output_index);
  none.op_type = "copy";
  auto src = Bind(none, source);
  if (!src.ok()) return src.status();
  Binding dst;
  dst.kind = Binding::Kind::kOutput;
  dst.index = static_cast<uint64_t>(output_index);
  const int64_t bytes = compiler::ValueBytesExpr(graph_, value(source));
  const int64_t planned = compiler::PlannedBytesExpr(graph_, value(source));
  PendingDispatch p;
  if (ir::IsSymbolic(bytes)) {
    dst.symbolic_bytes = bytes;
    p.patches.push_back({0, bytes});
    p.dynamic = true;
  }
  if (!ir::IsSymbolic(planned)) dst.bytes = static_cast<uint64_t>(planned);
  ExecutableDesc exe;
  exe.kernel = "kiln_copy";
  exe.iparams = {p.dynamic ? 0 : bytes};
  exe.binding_count = 2;
  // As in Dispatch: a symbolic size is "the whole view" (checked at run time).
  exe.binding_bytes = {src->symbolic_bytes != 0 ? UINT64_MAX : src->bytes,
                       dst.symbolic_bytes != 0 ? UINT64_MAX : dst.bytes};
  p.bindings = {*src, dst};
  // Name the node that made the value (e.g. the Reshape), if any.
  const ir::NodeId producer = value(source).producer;
  if (producer != ir::kNoNode) {
    p.nodes.push_back(graph_.nodes[producer].name);
    p.op_types.push_back(graph_.nodes[producer].op_type);
  }
  p.outputs.push_back(value(graph_.outputs[output_index]).name);
  p.writes.push_back({graph_.outputs[output_index], 1});
  return AddPending(std::move(p), std::move(exe));
}

// The entry function's view registers while Finish writes it.
struct LoweringContext::EntryViews {
  EntryViews(BytecodeBuilder& bc, ShapeProgram& shapes) : bc(bc), shapes(shapes) {}
  BytecodeBuilder& bc;
  ShapeProgram& shapes;
  // The workspace holds this function's tensors and, past them, those of
  // the functions it calls.
  int64_t workspace = 0;
  std::vector<uint32_t> input_reg, output_reg, const_reg;
  std::map<uint64_t, uint32_t> arena_reg;  // by arena root value
  std::vector<uint32_t> tail_regs;  // in the order of their ends in the tail
  // Views sized by lengths without a bound wait for their first dispatch
  // (the lengths are loaded by then): register -> offset (-1: an output) and size.
  std::map<uint32_t, std::pair<int64_t, int64_t>> deferred_views;
  std::set<uint32_t> output_views;
  std::map<SlotKey, uint32_t> fixed_reg;  // control flow's slots (none without it)
};

absl::StatusOr<LoweredModule> LoweringContext::Finish() {
  std::vector<DispatchDebugDesc> called_dispatches = std::move(module_.dispatches);
  module_.dispatches.clear();
  DescribeModule();
  if (absl::Status s = AddResultSymbols(); !s.ok()) return s;
  std::vector<ExprDim> expr_dims;
  if (absl::Status s = DescribeSignature(&expr_dims); !s.ok()) return s;

  BytecodeBuilder bc;
  // Shape arithmetic first: every size the views and dispatches need.
  ShapeProgram shapes(dims(), bc);
  EntryViews views(bc, shapes);
  views.workspace = RegisterReadBeforeRun(shapes, expr_dims);
  // Dims the compiler assumed equal (broadcasting S against min(S, 64), ...)
  // are checked before anything runs, or once the lengths they involve are
  // known. Debug dims of such lengths must be computed before the observers
  // read them, right after the loads (the others are evaluated before a run).
  PrepareDataSymbols(&shapes);
  EmitReady(bc, &shapes);
  ViewSignature(views);
  ViewArena(views);
  ViewFixedSlots(views);
  EmitPending(bc, [&](const Binding& b) { return EntryRegister(views, b); }, &shapes, 0);
  return WriteEntryFunction(bc, shapes, std::move(called_dispatches));
}

void LoweringContext::DescribeModule() {
  module_.source = graph_.source;
  module_.arena_size = std::max(module_.arena_size, plan_.arena_size);  // callees may lie beyond
  module_.arena_alignment = plan_.alignment;
  module_.live_bytes_lower_bound = plan_.lower_bound;
  for (const ArenaTensor& t : plan_.arena) module_.unshared_bytes += t.size;
  module_.symbols = dims().symbols();
}

absl::Status LoweringContext::AddResultSymbols() {
  // Every data symbol is a result symbol: ILOAD reads it during the run,
  // the VM and AOT code after it for the outputs' shapes.
  for (size_t k = 0; k < dims().data_symbols().size(); ++k) {
    const ir::DimPool::DataSymbol& d = dims().data_symbols()[k];
    auto called = module_.called_count_offsets.find(static_cast<int32_t>(k));
    if (called != module_.called_count_offsets.end()) {
      if (d.count_element != 0) {
        return absl::UnimplementedError(absl::StrCat(
            graph_.source, ": '", d.name, "' is one of several dims a kernel reports inside a "
            "function; not supported yet"));
      }
      module_.result_symbols.push_back({d.name, d.bound, called->second});
      continue;
    }
    if (!d.scope.empty() || d.count_value < 0 ||
        static_cast<size_t>(d.count_value) >= plan_.storage.size() ||
        plan_.storage[d.count_value].kind != StorageKind::kArena) {
      return absl::InternalError(absl::StrCat(graph_.source, ": the count of '", d.name,
                                              "' has no arena slot"));
    }
    module_.result_symbols.push_back(
        {d.name, d.bound,
         plan_.storage[d.count_value].offset + 8 * static_cast<uint64_t>(d.count_element)});
  }
  return absl::OkStatus();
}

absl::Status LoweringContext::DescribeSignature(std::vector<ExprDim>* expr_dims) {
  for (ir::ValueId v : graph_.inputs) {
    auto d = SignatureDesc(v, expr_dims);
    if (!d.ok()) return d.status();
    module_.inputs.push_back(*d);
  }
  for (ir::ValueId v : graph_.outputs) {
    auto d = SignatureDesc(v, expr_dims);
    if (!d.ok()) return d.status();
    module_.outputs.push_back(*d);
  }
  module_.bound_inputs = graph_.bound_inputs;
  return absl::OkStatus();
}

absl::StatusOr<TensorDesc> LoweringContext::SignatureDesc(ir::ValueId v,
                                                          std::vector<ExprDim>* expr_dims) {
  const ir::Value& val = value(v);
  TensorDesc d{val.name, val.dtype, val.shape, {}, {}, 0};
  if (val.capacity_bytes >= 0) d.capacity_bytes = static_cast<uint64_t>(val.capacity_bytes);
  for (size_t k = 0; k < val.shape.size(); ++k) {
    const int64_t dim = val.shape[k];
    if (!ir::IsSymbolic(dim)) {
      if (dim < 0) {
        return absl::UnimplementedError(absl::StrCat(
            graph_.source, ": signature tensor '", val.name, "' has a dynamic shape"));
      }
      continue;
    }
    // The signature names bare symbols; an expression (2*N) would need
    // the caller to solve for N. A length known after the run keeps its
    // bound as the dim (the buffer the caller provides).
    const std::string name = dims().ToString(dim);
    const int32_t data = dims().BareData(dim);
    bool bare = data >= 0;
    for (const std::string& s : module_.symbols) bare = bare || s == name;
    // An output may have an expression: the caller learns its value from
    // the module (OutputShape, NAME_output_dims) once the symbols are bound.
    const bool output = std::find(graph_.outputs.begin(), graph_.outputs.end(), v) !=
                        graph_.outputs.end();
    if (!bare && output && !dims().HasData(dim)) {
      if (d.dim_symbols.empty()) d.dim_symbols.assign(val.shape.size(), "");
      d.dim_symbols[k] = name;
      d.shape[k] = -1;
      expr_dims->push_back({static_cast<size_t>(module_.outputs.size()), k, dim});
      continue;
    }
    if (!bare) {
      return absl::UnimplementedError(absl::StrCat(
          graph_.source, ": signature tensor '", val.name, "' dim ", k, " is ", name,
          "; only a bare symbol is supported in the signature"));
    }
    if (d.dim_symbols.empty()) d.dim_symbols.assign(val.shape.size(), "");
    d.dim_symbols[k] = name;
    // A length without a bound: -1, the caller's buffer is its own choice.
    const int64_t bound = data >= 0 ? dims().data_symbols()[data].bound : -1;
    d.shape[k] = bound == ir::kNoBound ? -1 : bound;
  }
  return d;
}

int64_t LoweringContext::RegisterReadBeforeRun(ShapeProgram& shapes,
                                               const std::vector<ExprDim>& expr_dims) {
  for (const ExprDim& e : expr_dims) {
    TensorDesc& out = module_.outputs[e.output];
    if (out.dim_registers.empty()) out.dim_registers.assign(out.shape.size(), -1);
    out.dim_registers[e.dim] = static_cast<int32_t>(shapes.Register(e.expr));
  }
  int64_t workspace = plan_.workspace_expr;
  if (module_.called_workspace_end != 0) {
    workspace = LargerDim(dims(), workspace, module_.called_workspace_end);
  }
  if (ir::IsSymbolic(workspace)) {
    module_.workspace_register = static_cast<int32_t>(shapes.Register(workspace));
  }
  return workspace;
}

void LoweringContext::ViewSignature(EntryViews& views) {
  BytecodeBuilder& bc = views.bc;
  for (size_t k = 0; k < module_.inputs.size(); ++k) {
    views.input_reg.push_back(bc.NewRegister());
    const int64_t bytes = plan_.storage[graph_.inputs[k]].size_expr;
    if (ir::IsSymbolic(bytes)) {
      bc.ViewInputDyn(views.input_reg.back(), static_cast<uint32_t>(k), views.shapes.Register(bytes));
    } else {
      bc.ViewInput(views.input_reg.back(), static_cast<uint32_t>(k));
    }
  }
  for (size_t k = 0; k < module_.outputs.size(); ++k) {
    const uint32_t r = bc.NewRegister();
    views.output_reg.push_back(r);
    const int64_t bytes = compiler::PlannedBytesExpr(graph_, value(graph_.outputs[k]));
    const int64_t exact = compiler::ValueBytesExpr(graph_, value(graph_.outputs[k]));
    if (bytes == -1 && exact != -1 && dims().HasUnbounded(exact)) {
      views.deferred_views[r] = {-1, exact};
      views.output_views.insert(r);
      continue;
    }
    if (ir::IsSymbolic(bytes)) {
      bc.ViewOutputDyn(r, static_cast<uint32_t>(k), views.shapes.Register(bytes));
    } else {
      bc.ViewOutput(r, static_cast<uint32_t>(k));
    }
  }
  for (size_t k = 0; k < module_.constants.size(); ++k) {
    views.const_reg.push_back(bc.NewRegister());
    bc.ViewConst(views.const_reg.back(), static_cast<uint32_t>(k));
  }
}

void LoweringContext::ViewArena(EntryViews& views) {
  std::vector<std::pair<std::pair<int32_t, uint64_t>, uint32_t>> tail;  // (group, end), register
  for (const compiler::ArenaTensor& t : plan_.arena) {
    const uint32_t r = views.bc.NewRegister();
    views.arena_reg[static_cast<uint64_t>(t.value)] = r;
    if (t.tail) {
      views.deferred_views[r] = {dims().Add(views.workspace, t.offset_expr), t.size_expr};
      tail.push_back({{t.group, t.group_end}, r});
      continue;
    }
    if (ir::IsSymbolic(t.size_expr)) {
      views.bc.ViewArenaDyn(r, views.shapes.Register(t.offset_expr),
                            views.shapes.Register(t.size_expr));
    } else {
      views.bc.ViewArena(r, t.offset, t.size);
    }
  }
  std::stable_sort(tail.begin(), tail.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& t : tail) views.tail_regs.push_back(t.second);
}

void LoweringContext::ViewFixedSlots(EntryViews& views) {
  for (const PendingDispatch& p : pending_) {
    std::vector<Binding> fixed = p.bindings;
    for (const auto& b : p.control_operands) {
      if (b) fixed.push_back(*b);
    }
    for (const Binding& b : fixed) {
      if (b.kind != Binding::Kind::kFixed || views.fixed_reg.count(SlotKeyOf(b))) continue;
      const uint32_t r = views.bc.NewRegister();
      views.fixed_reg[SlotKeyOf(b)] = r;
      if (b.symbolic_offset != 0 || b.symbolic_bytes != 0) {
        const int64_t offset = b.symbolic_offset != 0 ? b.symbolic_offset : static_cast<int64_t>(b.index);
        views.bc.ViewArenaDyn(r, views.shapes.Register(offset), views.shapes.Register(BindingBytes(b)));
      } else {
        views.bc.ViewArena(r, b.index, b.bytes);
      }
    }
  }
}

uint32_t LoweringContext::EntryRegister(EntryViews& views, const Binding& b) {
  switch (b.kind) {
    case Binding::Kind::kInput: return views.input_reg[b.index];
    case Binding::Kind::kOutput: return DeferredView(views, views.output_reg[b.index]);
    case Binding::Kind::kConstant: return views.const_reg[b.index];
    case Binding::Kind::kArena: return DeferredView(views, views.arena_reg.at(b.index));
    case Binding::Kind::kFixed: return views.fixed_reg.at(SlotKeyOf(b));
  }
  return 0;
}

uint32_t LoweringContext::DeferredView(EntryViews& views, uint32_t r) {
  auto it = views.deferred_views.find(r);
  if (it == views.deferred_views.end()) return r;
  const auto [offset, size] = it->second;
  if (views.output_views.count(r)) {
    for (size_t k = 0; k < views.output_reg.size(); ++k) {
      if (views.output_reg[k] == r) {
        views.bc.ViewOutputDyn(r, static_cast<uint32_t>(k), views.shapes.Register(size));
      }
    }
    views.deferred_views.erase(it);
    return r;
  }
  ViewReadyTail(views);
  if (views.deferred_views.count(r)) {  // not ready: Register reports it (shapes.ok())
    views.bc.ViewArenaDyn(r, views.shapes.Register(offset), views.shapes.Register(size));
    views.deferred_views.erase(r);
  }
  return r;
}

void LoweringContext::ViewReadyTail(EntryViews& views) {
  // Every tail view whose size is known by now, the farthest first: a run
  // short of workspace then asks at once for all the tail these lengths
  // give (a backbone over a resized image is hundreds of tail tensors),
  // not for one tensor more per retry.
  for (auto t = views.tail_regs.rbegin(); t != views.tail_regs.rend(); ++t) {
    auto v = views.deferred_views.find(*t);
    if (v == views.deferred_views.end() || !views.shapes.Ready(v->second.first) ||
        !views.shapes.Ready(v->second.second)) {
      continue;
    }
    views.bc.ViewArenaDyn(*t, views.shapes.Register(v->second.first),
                          views.shapes.Register(v->second.second));
    views.deferred_views.erase(v);
  }
}

absl::StatusOr<LoweredModule> LoweringContext::WriteEntryFunction(
    BytecodeBuilder& bc, ShapeProgram& shapes, std::vector<DispatchDebugDesc> called) {
  // The called functions' debug info came first; this function's indexes
  // module_.dispatches from 0.
  AttachDebugValues(&shapes);
  for (DispatchDebugDesc& d : called) module_.dispatches.push_back(std::move(d));
  if (!shapes.ok()) {
    return absl::InternalError(absl::StrCat(graph_.source, ": a size uses a run-time length "
                                            "before the kernel computing it ran"));
  }
  bc.Return();
  module_.bytecode = bc.words();
  module_.register_count = bc.register_count();
  module_.int_register_count = bc.int_register_count();
  return std::move(module_);
}

void LoweringContext::EmitPending(BytecodeBuilder& bc,
                                  const std::function<uint32_t(const Binding&)>& register_of,
                                  ShapeProgram* shapes, uint32_t function) {
  for (const PendingDispatch& p : pending_) {
    if (p.control_opcode != 0) {
      std::vector<uint32_t> r;
      for (const auto& b : p.control_operands) r.push_back(b ? register_of(*b) : KILN_NO_REGISTER);
      if (p.control_opcode == KILN_OP_LOOP_DYN) {
        // operands: f, trip (n), cond, iteration, cond_after, expected (n)
        bc.LoopDyn(p.functions[0], shapes->Register(p.control_dims[0]), r[0], r[1], r[2],
                   shapes->Register(p.control_dims[1]));
      } else {
        bc.Control(p.control_opcode, p.functions, r, p.expected_iterations);
      }
      // The lengths an If's branches wrote (branches of different shapes).
      for (int32_t data : p.loads) {
        shapes->Load(data, static_cast<uint32_t>(data));
        EmitReady(bc, shapes);
      }
      continue;
    }
    std::vector<uint32_t> regs;
    for (const Binding& b : p.bindings) regs.push_back(register_of(b));
    DispatchDebugDesc d;
    d.function = function;
    if (p.dynamic) {  // only the entry function has a shape program
      std::vector<std::pair<uint32_t, uint32_t>> patches;
      for (const auto& [index, dim] : p.patches) patches.push_back({index, shapes->Register(dim)});
      d.bytecode_offset = bc.DispatchDyn(p.executable, regs, patches);
    } else {
      d.bytecode_offset = bc.Dispatch(p.executable, regs);
    }
    for (int32_t data : p.loads) {
      // Result symbols are the data symbols, in the same order.
      shapes->Load(data, static_cast<uint32_t>(data));
      EmitReady(bc, shapes);
    }
    d.executable = p.executable;
    d.nodes = p.nodes;
    d.op_types = p.op_types;
    d.outputs = p.outputs;
    module_.dispatches.push_back(std::move(d));
  }
}

absl::StatusOr<std::vector<int32_t>> LoweringContext::LoadsOf(const ir::Node& node,
                                                               ir::ValueId written) {
  std::vector<int32_t> loads;
  const auto& data = dims().data_symbols();
  for (size_t k = 0; k < data.size(); ++k) {
    if (data[k].count_value != written || data[k].scope != graph_.scope) continue;
    loads.push_back(static_cast<int32_t>(k));
    if (!called_) continue;
    auto slot = Locate(node, written);
    if (!slot.ok()) return slot.status();
    if (slot->symbolic_offset != 0) {
      return Unimplemented(node, absl::StrCat("computes '", data[k].name,
                                              "' in a function whose memory lies past tensors "
                                              "sized by the symbols; not supported yet"));
    }
    shared_->called_count_offsets[static_cast<int32_t>(k)] = slot->index;
  }
  return loads;
}

void LoweringContext::PrepareDataSymbols(ShapeProgram* shapes) {
  // Lengths of the graphs around this one that its sizes use: loaded now
  // (they were computed before the call). Its own follow their kernels.
  std::set<int32_t> used;
  for (const ir::Value& v : graph_.values) {
    for (int64_t d : v.shape) dims().DataSymbolsIn(d, &used);
  }
  // And those its caller's buffers and parameters use (a Loop's scan output
  // sized by the count found before the loop).
  for (const PendingDispatch& p : pending_) {
    for (const Binding& b : p.bindings) {
      dims().DataSymbolsIn(b.symbolic_bytes, &used);
      dims().DataSymbolsIn(b.symbolic_offset, &used);
    }
    for (const auto& patch : p.patches) dims().DataSymbolsIn(patch.second, &used);
    for (int64_t d : p.control_dims) dims().DataSymbolsIn(d, &used);
  }
  const auto& data = dims().data_symbols();
  auto own = [&](int32_t k) { return data[static_cast<size_t>(k)].scope == graph_.scope; };
  for (int32_t k : used) {
    const std::string& scope = data[static_cast<size_t>(k)].scope;
    if (called_ && !own(k) && graph_.scope.compare(0, scope.size(), scope) == 0) {
      shapes->Load(k, static_cast<uint32_t>(k));
    }
  }
  for (const ir::Value& v : graph_.values) {
    for (int64_t d : v.shape) {
      if (dims().HasData(d)) waiting_dims_.push_back(d);
    }
  }
  // Each graph checks the requirements its own shape rules made (a branch's
  // only when it runs), as soon as the lengths they involve are known.
  for (const ir::DimPool::Assumption& x : dims().assumptions()) {
    if (x.scope == graph_.scope) waiting_assumptions_.push_back({x.a, x.b});
  }
}

void LoweringContext::EmitReady(BytecodeBuilder& bc, ShapeProgram* shapes) {
  std::vector<std::pair<int64_t, int64_t>> still;
  for (const auto& [a, b] : waiting_assumptions_) {
    if (shapes->Ready(a) && shapes->Ready(b)) {
      bc.IntAssertEq(shapes->Register(a), shapes->Register(b));
    } else {
      still.push_back({a, b});
    }
  }
  waiting_assumptions_ = std::move(still);
  std::vector<int64_t> dims;
  for (int64_t d : waiting_dims_) {
    if (shapes->Ready(d)) {
      shapes->Register(d);
    } else {
      dims.push_back(d);
    }
  }
  waiting_dims_ = std::move(dims);
}

absl::StatusOr<LoweredModule> Lower(const ir::Graph& graph, const compiler::MemoryPlan& plan) {
  LoweringContext ctx(graph, plan);
  for (const ir::Node& node : graph.nodes) {
    if (node.removed) continue;
    absl::Status s = LowerNode(ctx, node);
    if (!s.ok()) return s;
  }
  for (const compiler::OutputCopy& c : plan.output_copies) {
    absl::Status s = ctx.OutputCopy(c.output_index, c.source);
    if (!s.ok()) return s;
  }
  return ctx.Finish();
}

}  // namespace kiln::compiler::emit
