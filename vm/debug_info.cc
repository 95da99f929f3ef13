#include "vm/debug_info.h"

#include <cstring>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "kiln/dtype.h"
#include "vm/bytecode.h"
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

}  // namespace

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
          for (int64_t dim : value.shape) {
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
          value.bytes = bytes;
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
