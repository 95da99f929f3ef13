#include "vm/disassembler.h"

#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "kiln/dtype.h"
#include "vm/bytecode.h"
#include "vm/module_verifier.h"

namespace kiln::vm {
namespace {

std::string Shape(const flatbuffers::Vector<int64_t>* shape) {
  if (shape == nullptr) return "[]";
  return absl::StrCat("[", absl::StrJoin(*shape, ","), "]");
}

std::string Str(const flatbuffers::String* s) { return s ? s->str() : ""; }

std::string Bytes(uint64_t n) {
  if (n >= (uint64_t{1} << 20)) return absl::StrFormat("%llu (%.2f MiB)", n, n / 1048576.0);
  if (n >= 1024) return absl::StrFormat("%llu (%.1f KiB)", n, n / 1024.0);
  return absl::StrCat(n);
}

}  // namespace

std::string DisassembleInstruction(const uint32_t* code, uint32_t offset) {
  Instruction inst = DecodeVerified(code, offset);
  std::vector<std::string> parts;
  const uint32_t* w = inst.operands;
  for (const char* k = kiln_opcode_operands(inst.opcode); *k != '\0'; ++k) {
    switch (*k) {
      case 'r': parts.push_back(absl::StrCat("r", *w++)); break;
      case 'i': parts.push_back(absl::StrCat("input[", *w++, "]")); break;
      case 'o': parts.push_back(absl::StrCat("output[", *w++, "]")); break;
      case 'c': parts.push_back(absl::StrCat("const[", *w++, "]")); break;
      case 'e': parts.push_back(absl::StrCat("exec[", *w++, "]")); break;
      case 'q': parts.push_back(absl::StrCat(ReadU64(w))); w += 2; break;
      case 'L': {
        uint32_t n = *w++;
        std::vector<std::string> regs;
        for (uint32_t j = 0; j < n; ++j) regs.push_back(absl::StrCat("r", *w++));
        parts.push_back(absl::StrCat("(", absl::StrJoin(regs, ", "), ")"));
        break;
      }
      default: break;
    }
  }
  return absl::StrFormat("%-12s %s", kiln_opcode_name(inst.opcode), absl::StrJoin(parts, " "));
}

std::string DescribeModule(const ModuleImage& image) {
  const fb::Module& m = image.module();
  std::string out;
  absl::StrAppend(&out, "module ", image.origin(), "  (", Bytes(image.size()), " bytes, format v",
                  m.format_version(), ", producer ", Str(m.producer()), ")\n");
  if (m.debug() && m.debug()->source()) absl::StrAppend(&out, "source ", m.debug()->source()->str(), "\n");

  absl::StrAppend(&out, "\nsignature\n");
  const fb::Signature& sig = *m.signature();
  for (uint32_t i = 0; i < sig.inputs()->size(); ++i) {
    const fb::TensorDesc* t = sig.inputs()->Get(i);
    absl::StrAppend(&out, absl::StrFormat("  input[%u]  %-20s %s%s\n", i, Str(t->name()),
                                          DTypeName(t->dtype()), Shape(t->shape())));
  }
  for (uint32_t i = 0; i < sig.outputs()->size(); ++i) {
    const fb::TensorDesc* t = sig.outputs()->Get(i);
    absl::StrAppend(&out, absl::StrFormat("  output[%u] %-20s %s%s\n", i, Str(t->name()),
                                          DTypeName(t->dtype()), Shape(t->shape())));
  }

  const fb::MemoryPlan& plan = *m.memory();
  absl::StrAppend(&out, "\nmemory\n  arena_bytes ", Bytes(plan.arena_size()), "  alignment ",
                  plan.arena_alignment(), "\n");
  if (plan.unshared_bytes() > 0) {
    absl::StrAppend(&out, "  live_bytes_lower_bound ", Bytes(plan.live_bytes_lower_bound()),
                    "  unshared_bytes ", Bytes(plan.unshared_bytes()),
                    absl::StrFormat("  (arena is %.1f%% of unshared)",
                                    100.0 * plan.arena_size() / plan.unshared_bytes()),
                    "\n");
  }

  const uint32_t n_exec = m.executables() ? m.executables()->size() : 0;
  absl::StrAppend(&out, "\nexecutables (", n_exec, ")\n");
  for (uint32_t i = 0; i < n_exec; ++i) {
    const fb::Executable* e = m.executables()->Get(i);
    std::string ip = e->iparams() ? absl::StrJoin(*e->iparams(), ",") : "";
    std::string fp = e->fparams() ? absl::StrJoin(*e->fparams(), ",") : "";
    std::string bb = e->binding_bytes() ? absl::StrJoin(*e->binding_bytes(), ",") : "";
    absl::StrAppend(&out, absl::StrFormat("  exec[%u] %-22s i=[%s]", i, Str(e->kernel()), ip));
    if (!fp.empty()) absl::StrAppend(&out, " f=[", fp, "]");
    absl::StrAppend(&out, " binding_bytes=[", bb, "]\n");
  }

  const uint32_t n_const = m.constants() ? m.constants()->size() : 0;
  uint64_t const_bytes = m.constant_data() ? m.constant_data()->size() : 0;
  absl::StrAppend(&out, "\nconstants (", n_const, ", ", Bytes(const_bytes), " bytes)\n");
  for (uint32_t i = 0; i < n_const; ++i) {
    const fb::Constant* c = m.constants()->Get(i);
    absl::StrAppend(&out, absl::StrFormat("  const[%u] %-32s %s%s offset=%llu bytes=%llu\n", i,
                                          Str(c->name()), DTypeName(c->dtype()),
                                          Shape(c->shape()), c->offset(), c->size()));
  }

  std::map<uint32_t, const fb::DispatchDebug*> debug_at;
  if (m.debug() && m.debug()->dispatches()) {
    for (const fb::DispatchDebug* d : *m.debug()->dispatches()) debug_at[d->bytecode_offset()] = d;
  }
  for (const fb::Function* fn : *m.functions()) {
    absl::StrAppend(&out, "\nfunction ", Str(fn->name()), " (", fn->register_count(),
                    " registers, ", fn->bytecode()->size(), " words)\n");
    const uint32_t* code = fn->bytecode()->data();
    for (uint32_t pc = 0; pc < fn->bytecode()->size();) {
      absl::StrAppend(&out, absl::StrFormat("  %04u  %s", pc, DisassembleInstruction(code, pc)));
      auto it = debug_at.find(pc);
      if (fn == m.functions()->Get(0) && it != debug_at.end() && it->second->nodes()) {
        std::vector<std::string> nodes;
        for (uint32_t j = 0; j < it->second->nodes()->size(); ++j) {
          std::string op = it->second->op_types() && j < it->second->op_types()->size()
                               ? it->second->op_types()->Get(j)->str()
                               : "";
          nodes.push_back(absl::StrCat(it->second->nodes()->Get(j)->str(), ":", op));
        }
        absl::StrAppend(&out, "    # ", absl::StrJoin(nodes, " + "));
      }
      absl::StrAppend(&out, "\n");
      pc += DecodeVerified(code, pc).length;
    }
  }
  return out;
}

}  // namespace kiln::vm
