#include "vm/disassembler.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "kiln/control_ops.h"
#include "vm/bound_inputs.h"
#include "vm/bytecode.h"
#include "vm/dtype.h"
#include "vm/kernel_params.h"
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

absl::Span<const int64_t> IParams(const fb::Executable& e) {
  return e.iparams() ? absl::MakeConstSpan(e.iparams()->data(), e.iparams()->size())
                     : absl::Span<const int64_t>();
}

absl::Span<const float> FParams(const fb::Executable& e) {
  return e.fparams() ? absl::MakeConstSpan(e.fparams()->data(), e.fparams()->size())
                     : absl::Span<const float>();
}

// The memory plan as a table: offsets, sizes and each tensor's lifetime in
// dispatches, drawn as a bar over the whole run.
void AppendArenaTable(const fb::Module& m, std::string* out) {
  const fb::MemoryPlan& plan = *m.memory();
  if (plan.tensors() == nullptr || plan.tensors()->size() == 0) return;
  uint32_t dispatches = 1;
  if (m.debug() && m.debug()->dispatches()) {
    dispatches = std::max<uint32_t>(1, m.debug()->dispatches()->size());
  }
  constexpr uint32_t kBar = 40;
  absl::StrAppend(out, "\narena tensors (", plan.tensors()->size(), "; lifetime over dispatches 0..",
                  dispatches - 1, ")\n",
                  absl::StrFormat("  %12s %12s %6s %6s  %-*s  %s\n", "offset", "bytes", "first",
                                  "last", kBar + 2, "lifetime", "value"));
  for (const fb::ArenaTensorDebug* t : *plan.tensors()) {
    std::string bar(kBar, '.');
    const uint32_t a = std::min(t->first_dispatch(), dispatches - 1) * kBar / dispatches;
    const uint32_t b = std::min(t->last_dispatch(), dispatches - 1) * kBar / dispatches;
    for (uint32_t k = a; k <= b && k < kBar; ++k) bar[k] = '#';
    absl::StrAppend(out, absl::StrFormat("  %12llu %12llu %6u %6u  |%s|  %s\n", t->offset(),
                                         t->size(), t->first_dispatch(), t->last_dispatch(), bar,
                                         Str(t->value())));
  }
}

}  // namespace

// "[N,3,224,224]": symbolic dims by name.
std::string SymbolicShape(const fb::TensorDesc& t) {
  std::vector<std::string> dims;
  for (uint32_t d = 0; d < t.shape()->size(); ++d) {
    const bool named = t.dim_symbols() != nullptr && t.dim_symbols()->Get(d)->size() > 0;
    if (t.shape()->Get(d) < 0 && named) {
      dims.push_back(t.dim_symbols()->Get(d)->str());
    } else if (named) {  // a result symbol: known after the run, at most the bound
      dims.push_back(absl::StrCat(t.dim_symbols()->Get(d)->str(), "<=", t.shape()->Get(d)));
    } else {
      dims.push_back(absl::StrCat(t.shape()->Get(d)));
    }
  }
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

namespace {
// An expression longer than this is shown as its register's name: each
// instruction may double the text (n1 = n0 + n0, n2 = n1 + n1, ...), or
// copy a long symbol name, which a hostile module would turn into gigabytes.
constexpr size_t kMaxExpressionChars = 256;

std::string Capped(std::string text, uint32_t reg) {
  return text.size() > kMaxExpressionChars ? absl::StrCat("n", reg) : text;
}
}  // namespace

std::vector<std::string> IntegerExpressions(const fb::Module& m, const fb::Function& fn) {
  std::vector<std::string> expr(fn.int_register_count(), "0");
  const uint32_t* code = fn.bytecode()->data();
  for (uint32_t pc = 0; pc < fn.bytecode()->size();) {
    const Instruction inst = DecodeVerified(code, pc);
    const uint32_t* op = inst.operands;
    pc += inst.length;
    const char* infix = nullptr;
    switch (inst.opcode) {
      case KILN_OP_ISYM: expr[op[0]] = Capped(m.symbols()->Get(op[1])->str(), op[0]); continue;
      case KILN_OP_ICONST: expr[op[0]] = absl::StrCat(static_cast<int64_t>(ReadU64(op + 1))); continue;
      case KILN_OP_ILOAD: expr[op[0]] = Capped(m.result_symbols()->Get(op[1])->name()->str(), op[0]); continue;
      default: {
        const char* text = kiln_int_binary_text(inst.opcode);
        if (text == nullptr) continue;
        if (text[std::strlen(text) - 1] == '(') {  // a function: "min(a, b)"
          expr[op[0]] = Capped(absl::StrCat(text, expr[op[1]], ", ", expr[op[2]], ")"), op[0]);
          continue;
        }
        infix = text;
      }
    }
    // Parenthesise sums inside products so the text reads as the arithmetic.
    auto operand = [&](uint32_t reg) {
      const std::string& e = expr[reg];
      const bool sum = e.find(' ') != std::string::npos;
      return (sum && (inst.opcode == KILN_OP_IMUL || inst.opcode == KILN_OP_IDIV ||
                      inst.opcode == KILN_OP_ISUB))
                 ? absl::StrCat("(", e, ")")
                 : e;
    };
    expr[op[0]] = Capped(absl::StrCat(operand(op[1]), infix, operand(op[2])), op[0]);
  }
  return expr;
}

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
      case 'n': parts.push_back(absl::StrCat("n", *w++)); break;
      case 's': parts.push_back(absl::StrCat("sym[", *w++, "]")); break;
      case 'd': parts.push_back(absl::StrCat("result[", *w++, "]")); break;
      case 'f': parts.push_back(absl::StrCat("function[", *w++, "]")); break;
      case 'R':
        parts.push_back(*w == KILN_NO_REGISTER ? std::string("none") : absl::StrCat("r", *w));
        ++w;
        break;
      case 'P': {
        uint32_t n = *w++;
        std::vector<std::string> patches;
        for (uint32_t j = 0; j < n; ++j, w += 2) {
          patches.push_back(absl::StrCat("ip", w[0], "=n", w[1]));
        }
        parts.push_back(absl::StrCat("{", absl::StrJoin(patches, ", "), "}"));
        break;
      }
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
  absl::StrAppend(&out, "module ", image.origin(), "  (", Bytes(image.size()), ", format v",
                  m.format_version(), ", producer ", Str(m.producer()), ")\n");
  if (m.debug() && m.debug()->source()) absl::StrAppend(&out, "source ", m.debug()->source()->str(), "\n");

  absl::StrAppend(&out, "\nsignature\n");
  const fb::Signature& sig = *m.signature();
  for (uint32_t i = 0; i < sig.inputs()->size(); ++i) {
    const fb::TensorDesc* t = sig.inputs()->Get(i);
    absl::StrAppend(&out, absl::StrFormat("  input[%u]  %-20s %s%s\n", i, Str(t->name()),
                                          DTypeName(t->dtype()), SymbolicShape(*t)));
  }
  for (uint32_t i = 0; i < sig.outputs()->size(); ++i) {
    const fb::TensorDesc* t = sig.outputs()->Get(i);
    // Dims reported during the run whose result never exceeds fewer bytes
    // than their bounds give (a Reshape to run-time dims).
    const std::string capacity =
        t->capacity_bytes() != 0 ? absl::StrCat("  (at most ", t->capacity_bytes(), " bytes)") : "";
    absl::StrAppend(&out, absl::StrFormat("  output[%u] %-20s %s%s%s\n", i, Str(t->name()),
                                          DTypeName(t->dtype()), SymbolicShape(*t), capacity));
  }
  if (sig.bound_inputs() != nullptr) {
    for (const fb::BoundInput* b : *sig.bound_inputs()) {
      absl::StrAppend(&out, "  bound     ", DescribeBoundInput(*b),
                      "  (kiln compile --input-value; a run may give only this value)\n");
    }
  }
  if (m.symbols() != nullptr && m.symbols()->size() > 0) {
    std::vector<std::string> names;
    for (const auto* name : *m.symbols()) names.push_back(name->str());
    absl::StrAppend(&out, "  symbols ", absl::StrJoin(names, ", "),
                    "  (bound from the input shapes at each run)\n");
  }
  if (m.result_symbols() != nullptr && m.result_symbols()->size() > 0) {
    std::vector<std::string> names;
    for (const fb::ResultSymbol* r : *m.result_symbols()) {
      const bool unbounded = r->bound() == std::numeric_limits<int64_t>::max();
      names.push_back(absl::StrCat(Str(r->name()), " (",
                                   unbounded ? std::string("no bound")
                                             : absl::StrCat("at most ", r->bound()),
                                   ", arena +", r->arena_offset(), ")"));
    }
    constexpr char kWhat[] =
        "(lengths kernels find during each run; output lengths known after it)";
    // A detector finds hundreds (a NonZero per class): one per line then.
    constexpr size_t kOneLine = 6;
    if (names.size() <= kOneLine) {
      absl::StrAppend(&out, "  results ", absl::StrJoin(names, ", "), "  ", kWhat, "\n");
    } else {
      absl::StrAppend(&out, "  results ", names.size(), "  ", kWhat, "\n");
      for (const std::string& n : names) absl::StrAppend(&out, "    ", n, "\n");
    }
  }
  // The bound the verifier held constant LOOP trip counts to (modules with
  // loops only, so the listing of others is unchanged).
  bool loops = false;
  for (const fb::Function* fn : *m.functions()) {
    for (uint32_t pc = 0; pc < fn->bytecode()->size();) {
      const Instruction inst = DecodeVerified(fn->bytecode()->data(), pc);
      loops = loops || inst.opcode == KILN_OP_LOOP || inst.opcode == KILN_OP_LOOP_DYN;
      pc += inst.length;
    }
  }
  if (loops) {
    absl::StrAppend(&out, "  loops    constant trip counts at most ",
                    m.max_trip_count() >= 0
                        ? absl::StrCat(m.max_trip_count(), " (declared by the module)")
                        : absl::StrCat(kUndeclaredTripLimit, " (undeclared: the readers' default)"),
                    "; other trip counts are bounded by the run budget\n");
  }
  // The equalities the compiler assumed (IASSERT_EQ), checked at each run
  // (in a called function, at each call), spelled from each function's own
  // integer registers.
  std::vector<std::vector<std::string>> int_exprs;
  for (uint32_t f = 0; f < m.functions()->size(); ++f) {
    const fb::Function& fn = *m.functions()->Get(f);
    int_exprs.push_back(IntegerExpressions(m, fn));
    for (uint32_t pc = 0; pc < fn.bytecode()->size();) {
      const Instruction inst = DecodeVerified(fn.bytecode()->data(), pc);
      if (inst.opcode == KILN_OP_IASSERT_EQ) {
        absl::StrAppend(&out, "  requires ", int_exprs[f][inst.operands[0]], " == ",
                        int_exprs[f][inst.operands[1]],
                        f == 0 ? std::string() : absl::StrCat("  (function ", f, ")"), "\n");
      }
      pc += inst.length;
    }
  }

  const fb::MemoryPlan& plan = *m.memory();
  absl::StrAppend(&out, "\nmemory\n  arena_bytes ", Bytes(plan.arena_size()), "  alignment ",
                  plan.arena_alignment(), "\n");
  if (plan.workspace_register() >= 0) {
    const std::vector<std::string> exprs = IntegerExpressions(m, *m.functions()->Get(0));
    const std::string& formula = exprs[plan.workspace_register()];
    // Capped(): a formula too long to read prints as its register.
    const bool capped = formula == absl::StrCat("n", plan.workspace_register());
    absl::StrAppend(&out, "  workspace_bytes = ", formula,
                    capped ? "  (a formula of the symbols too long to print; an AOT bundle's "
                             "NAME_workspace_size gives its value at given sizes)\n"
                           : "  (static arena first, then the tensors sized by symbols)\n");
  }
  if (plan.unshared_bytes() > 0) {
    absl::StrAppend(&out, "  live_bytes_lower_bound ", Bytes(plan.live_bytes_lower_bound()),
                    "  unshared_bytes ", Bytes(plan.unshared_bytes()),
                    absl::StrFormat("  (arena is %.1f%% of unshared)",
                                    100.0 * plan.arena_size() / plan.unshared_bytes()),
                    "\n");
  }

  AppendArenaTable(m, &out);

  const uint32_t n_exec = m.executables() ? m.executables()->size() : 0;
  absl::StrAppend(&out, "\nexecutables (", n_exec, ")\n");
  for (uint32_t i = 0; i < n_exec; ++i) {
    const fb::Executable* e = m.executables()->Get(i);
    std::vector<std::string> params;
    for (const auto& [name, v] : NameIParams(Str(e->kernel()), IParams(*e))) {
      params.push_back(absl::StrCat(name, "=", v));
    }
    for (const auto& [name, v] : NameFParams(Str(e->kernel()), FParams(*e))) {
      params.push_back(absl::StrCat(name, "=", v));
    }
    std::string bb = e->binding_bytes() ? absl::StrJoin(*e->binding_bytes(), ",") : "";
    absl::StrAppend(&out, absl::StrFormat("  exec[%u] %-22s binding_bytes=[%s]", i,
                                          Str(e->kernel()), bb));
    const double flops = KernelFlops(Str(e->kernel()), IParams(*e));
    if (flops >= 0) absl::StrAppend(&out, absl::StrFormat("  %.3f MFLOP", flops / 1e6));
    absl::StrAppend(&out, "\n");
    // Parameters wrapped at ~100 columns, indented under the kernel.
    std::string line = "      ";
    for (const std::string& p : params) {
      if (line.size() + p.size() > 100 && line.size() > 6) {
        absl::StrAppend(&out, line, "\n");
        line = "      ";
      }
      absl::StrAppend(&line, p, " ");
    }
    if (line.size() > 6) absl::StrAppend(&out, line, "\n");
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

  std::map<std::pair<uint32_t, uint32_t>, const fb::DispatchDebug*> debug_at;
  if (m.debug() && m.debug()->dispatches()) {
    for (const fb::DispatchDebug* d : *m.debug()->dispatches()) {
      debug_at[{d->function(), d->bytecode_offset()}] = d;
    }
  }
  for (uint32_t f = 0; f < m.functions()->size(); ++f) {
    const fb::Function* fn = m.functions()->Get(f);
    absl::StrAppend(&out, "\nfunction ", f, " ", Str(fn->name()), " (", fn->register_count(),
                    " registers, ",
                    f > 0 && fn->int_register_count() > 0
                        ? absl::StrCat(fn->int_register_count(), " integer registers, ")
                        : std::string(),
                    fn->bytecode()->size(), " words)\n");
    const uint32_t* code = fn->bytecode()->data();
    for (uint32_t pc = 0; pc < fn->bytecode()->size();) {
      absl::StrAppend(&out, absl::StrFormat("  %04u  %s", pc, DisassembleInstruction(code, pc)));
      auto it = debug_at.find({f, pc});
      if (it != debug_at.end() && it->second->nodes()) {
        std::vector<std::string> nodes;
        for (uint32_t j = 0; j < it->second->nodes()->size(); ++j) {
          std::string op = it->second->op_types() && j < it->second->op_types()->size()
                               ? it->second->op_types()->Get(j)->str()
                               : "";
          nodes.push_back(absl::StrCat(it->second->nodes()->Get(j)->str(), ":", op));
        }
        absl::StrAppend(&out, "    # ", absl::StrJoin(nodes, " + "));
        if (it->second->values() != nullptr && it->second->values()->size() > 0) {
          std::vector<std::string> values;
          for (const fb::ValueDebug* v : *it->second->values()) {
            // Symbolic dims spelled from the function's integer registers.
            std::vector<std::string> dims;
            for (uint32_t d = 0; v->shape() != nullptr && d < v->shape()->size(); ++d) {
              const int32_t reg = v->dim_registers() != nullptr && d < v->dim_registers()->size()
                                      ? v->dim_registers()->Get(d)
                                      : -1;
              dims.push_back(reg >= 0 && static_cast<size_t>(reg) < int_exprs[f].size()
                                 ? int_exprs[f][static_cast<size_t>(reg)]
                                 : absl::StrCat(v->shape()->Get(d)));
            }
            values.push_back(absl::StrCat(Str(v->name()), "[", absl::StrJoin(dims, ","), "]",
                                          v->channels_last() ? " NHWC" : ""));
          }
          absl::StrAppend(&out, "  -> ", absl::StrJoin(values, ", "));
        }
      }
      absl::StrAppend(&out, "\n");
      pc += DecodeVerified(code, pc).length;
    }
  }
  return out;
}

}  // namespace kiln::vm
