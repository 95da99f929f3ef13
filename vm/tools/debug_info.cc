#include "vm/tools/debug_info.h"

#include <cstring>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "vm/bytecode.h"
#include "vm/disassembler.h"
#include "vm/dtype.h"
#include "vm/kernel_params.h"

namespace kiln::vm {
namespace {

std::vector<std::string> Strings(const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>* v) {
  std::vector<std::string> out;
  if (v != nullptr) {
    for (const flatbuffers::String* s : *v) out.push_back(s ? s->str() : "");
  }
  return out;
}

std::string KernelShort(const std::string& kernel) {
  return std::string(absl::StripPrefix(kernel, "kiln_"));
}

// Reads and checks a debug value's dim_registers into `value`: one per dim,
// each -1 (a static dim) or an integer register below `int_count` (where
// `shape` says -1).
absl::Status DimRegisters(const fb::ValueDebug& v, uint32_t int_count,
                          const std::vector<std::string>& int_exprs, const std::string& where,
                          ValueInfo* value) {
  const auto& regs = *v.dim_registers();
  if (regs.size() != value->shape.size()) {
    return absl::InvalidArgumentError(absl::StrCat(where, " has ", regs.size(),
                                                   " dim registers for a shape of rank ",
                                                   value->shape.size()));
  }
  bool any = false;
  for (uint32_t k = 0; k < regs.size(); ++k) {
    const int32_t reg = regs.Get(k);
    if (reg == -1) {
      value->dim_exprs.push_back(absl::StrCat(value->shape[k]));
      continue;
    }
    if (reg < 0 || static_cast<uint32_t>(reg) >= int_count) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, " reads dim ", k, " from integer register n", reg, "; its function has ",
          int_count, " integer registers"));
    }
    if (value->shape[k] != -1) {
      return absl::InvalidArgumentError(absl::StrCat(where, " gives dim ", k, " as ",
                                                     value->shape[k], " and as register n", reg));
    }
    value->dim_exprs.push_back(static_cast<size_t>(reg) < int_exprs.size()
                                   ? int_exprs[reg] : absl::StrCat("n", reg));
    any = true;
  }
  if (any) {
    value->dim_registers.assign(regs.begin(), regs.end());
  } else {
    value->dim_exprs.clear();
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ValueInfo> ValueInRun(const ValueInfo& v, const int64_t* int_registers,
                                     uint32_t count, uint64_t binding_bytes) {
  ValueInfo out = v;
  out.dim_registers.clear();
  out.dim_exprs.clear();
  const std::string where = absl::StrCat("debug value '", v.name, "' ", ValueShapeText(v));
  uint64_t bytes = DTypeSize(v.dtype);
  for (size_t k = 0; k < out.shape.size(); ++k) {
    const int32_t reg = k < v.dim_registers.size() ? v.dim_registers[k] : -1;
    if (reg >= 0) {
      if (int_registers == nullptr || static_cast<uint32_t>(reg) >= count) {
        return absl::InvalidArgumentError(absl::StrCat(
            where, ": integer register n", reg, " is not among the run's ", count));
      }
      out.shape[k] = int_registers[reg];
    }
  }
  for (const int64_t dim : out.shape) {
    if (dim < 0 || (dim > 0 && bytes > (uint64_t{1} << 62) / static_cast<uint64_t>(dim))) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " has the bad shape ", ShapeText(out.shape), " in this run"));
    }
    bytes *= static_cast<uint64_t>(dim);
  }
  if (bytes > binding_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(where, " is ", ShapeText(out.shape),
                                                   " in this run: ", bytes, " bytes; binding ",
                                                   v.binding, " holds ", binding_bytes));
  }
  out.bytes = bytes;
  return out;
}

std::string ValueShapeText(const ValueInfo& v) {
  if (!v.symbolic()) return ShapeText(v.shape);
  return absl::StrCat("[", absl::StrJoin(v.dim_exprs, ","), "]");
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ","), "]");
}

uint64_t ValueIndexOfStored(const ValueInfo& v, uint64_t stored) {
  if (!v.channels_last || v.shape.size() != 4) return stored;
  const uint64_t C = static_cast<uint64_t>(v.shape[1]), H = static_cast<uint64_t>(v.shape[2]);
  const uint64_t W = static_cast<uint64_t>(v.shape[3]);
  // stored = ((n*H + h)*W + w)*C + c
  const uint64_t c = stored % C, pixel = stored / C;
  const uint64_t w = pixel % W, h = pixel / W % H, n = pixel / W / H;
  return ((n * C + c) * H + h) * W + w;
}

std::vector<uint8_t> ValueBytes(const ValueInfo& v, const void* binding) {
  const uint8_t* src = static_cast<const uint8_t*>(binding);
  if (!v.channels_last) return std::vector<uint8_t>(src, src + v.bytes);
  std::vector<uint8_t> out(v.bytes);
  const uint64_t elem = DTypeSize(v.dtype);
  for (uint64_t i = 0; elem > 0 && i < v.bytes / elem; ++i) {
    std::memcpy(out.data() + ValueIndexOfStored(v, i) * elem, src + i * elem, elem);
  }
  return out;
}

std::string DispatchInfo::Label() const {
  if (nodes.empty()) return absl::StrCat("dispatch ", index);
  return absl::StrJoin(nodes, "+");
}

std::string DispatchInfo::OpPattern() const {
  if (op_types.empty()) return KernelShort(kernel);
  return absl::StrJoin(op_types, "+");
}

std::string DispatchInfo::PrimaryOp() const {
  return op_types.empty() ? KernelShort(kernel) : op_types[0];
}

uint64_t DispatchInfo::TotalBindingBytes() const {
  uint64_t total = 0;
  for (uint64_t b : binding_bytes) total += b;
  return total;
}

absl::StatusOr<std::vector<DispatchInfo>> DescribeDispatches(const ModuleImage& image) {
  const fb::Module& m = image.module();
  // Keyed by (function, word offset).
  std::map<std::pair<uint32_t, uint32_t>, const fb::DispatchDebug*> debug_at;
  if (m.debug() != nullptr && m.debug()->dispatches() != nullptr) {
    for (const fb::DispatchDebug* d : *m.debug()->dispatches()) {
      debug_at[{d->function(), d->bytecode_offset()}] = d;
    }
  }
  std::vector<DispatchInfo> out;
  for (uint32_t f = 0; f < m.functions()->size(); ++f) {
  const fb::Function& fn = *m.functions()->Get(f);
  // Symbolic dims of debug values live in their function's integer
  // registers (spelled out for display).
  const uint32_t int_count = fn.int_register_count();
  const std::vector<std::string> int_exprs = IntegerExpressions(m, fn);
  const uint32_t* code = fn.bytecode()->data();
  for (uint32_t pc = 0; pc < fn.bytecode()->size();) {
    const Instruction inst = DecodeVerified(code, pc);
    pc += inst.length;
    if (inst.opcode != KILN_OP_DISPATCH && inst.opcode != KILN_OP_DISPATCH_DYN) continue;
    DispatchInfo info;
    info.index = static_cast<uint32_t>(out.size());
    info.pc = inst.offset;
    info.function = f;
    info.executable = inst.operands[0];
    const fb::Executable* e = m.executables()->Get(info.executable);
    info.kernel = e->kernel()->str();
    if (e->binding_bytes() != nullptr) {
      info.binding_bytes.assign(e->binding_bytes()->begin(), e->binding_bytes()->end());
    }
    info.dynamic = inst.opcode == KILN_OP_DISPATCH_DYN;
    // A dynamic dispatch's stored parameters hold placeholders: its FLOPs
    // come from the parameters of a run (DispatchTimer::dynamic_params).
    if (e->iparams() != nullptr && !info.dynamic) {
      info.flops = KernelFlops(info.kernel, absl::MakeConstSpan(e->iparams()->data(),
                                                                e->iparams()->size()));
    }
    auto it = debug_at.find({f, inst.offset});
    if (it != debug_at.end()) {
      const fb::DispatchDebug* d = it->second;
      info.nodes = Strings(d->nodes());
      info.op_types = Strings(d->op_types());
      info.outputs = Strings(d->outputs());
      if (d->values() != nullptr) {
        for (const fb::ValueDebug* v : *d->values()) {
          ValueInfo value;
          value.name = v->name() ? v->name()->str() : "";
          value.dtype = v->dtype();
          if (v->shape() != nullptr) value.shape.assign(v->shape()->begin(), v->shape()->end());
          value.binding = v->binding();
          value.channels_last = v->channels_last();
          // Checked so a reader never touches bytes outside the binding.
          const std::string where = absl::StrCat("module '", image.origin(), "' +", inst.offset,
                                                 ": debug value '", value.name, "'");
          if (value.channels_last && value.shape.size() != 4) {
            return absl::InvalidArgumentError(
                absl::StrCat(where, " is channels last but has rank ", value.shape.size()));
          }
          if (value.binding >= inst.operands[1] || value.binding >= info.binding_bytes.size()) {
            return absl::InvalidArgumentError(
                absl::StrCat(where, " names binding ", value.binding, " of ", inst.operands[1]));
          }
          uint64_t bytes = DTypeSize(value.dtype);
          if (bytes == 0) {
            return absl::InvalidArgumentError(absl::StrCat(where, " has an unknown dtype"));
          }
          if (v->dim_registers() != nullptr) {
            if (absl::Status s = DimRegisters(*v, int_count, int_exprs, where, &value);
                !s.ok()) {
              return s;
            }
          }
          for (size_t k = 0; k < value.shape.size(); ++k) {
            const int64_t dim = value.shape[k];
            if (value.symbolic() && value.dim_registers[k] >= 0) continue;  // sized per run
            if (dim < 0 || (dim > 0 && bytes > (uint64_t{1} << 62) / static_cast<uint64_t>(dim))) {
              return absl::InvalidArgumentError(absl::StrCat(where, " has a bad shape ",
                                                             ShapeText(value.shape)));
            }
            bytes *= static_cast<uint64_t>(dim);
          }
          if (bytes > info.binding_bytes[value.binding]) {
            return absl::InvalidArgumentError(
                absl::StrCat(where, " needs ", bytes, " bytes; binding ", value.binding,
                             " holds ", info.binding_bytes[value.binding]));
          }
          value.bytes = value.symbolic() ? 0 : bytes;
          info.values.push_back(std::move(value));
        }
      }
    }
    out.push_back(std::move(info));
  }
  }
  return out;
}

}  // namespace kiln::vm
