#include "aot/c_emitter.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "aot/c_text.h"
#include "aot/embedded_files.h"
#include "aot/growing_interface.h"
#include "aot/makefile_emitter.h"
#include "aot/readme_emitter.h"
#include "aot/symbol_prefix.h"
#include "aot/symbolic_interface.h"
#include "aot/weights_emitter.h"
#include "kiln/control_ops.h"
#include "kiln/opcodes.h"
#include "vm/bytecode.h"
#include "vm/disassembler.h"
#include "vm/dtype.h"
#include "vm/kernel_registry.h"
#include "vm/module_verifier.h"

namespace kiln::aot {
namespace {

std::string IntLiteral(int64_t v) {
  if (v == std::numeric_limits<int64_t>::min()) return "(-INT64_C(9223372036854775807) - 1)";
  return absl::StrCat("INT64_C(", v, ")");
}

// Exact float literal: hexadecimal floats round-trip every finite value.
std::string FloatLiteral(float v) {
  if (std::isnan(v)) return "NAN";
  if (std::isinf(v)) return v > 0 ? "INFINITY" : "(-INFINITY)";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%af", static_cast<double>(v));
  return buf;
}

// The C element type of a dtype, for the header's _CTYPE macros.
const char* CType(fb::DType dtype) {
  switch (dtype) {
    case fb::DType::F32: return "float";
    case fb::DType::F64: return "double";
    case fb::DType::F16: return "uint16_t"; /* IEEE half, raw bits */
    case fb::DType::I8: return "int8_t";
    case fb::DType::I16: return "int16_t";
    case fb::DType::I32: return "int32_t";
    case fb::DType::I64: return "int64_t";
    case fb::DType::U8: return "uint8_t";
    case fb::DType::Bool: return "uint8_t"; /* 0 or 1 */
    case fb::DType::U16: return "uint16_t";
    case fb::DType::U32: return "uint32_t";
    case fb::DType::U64: return "uint64_t";
    case fb::DType::BF16: return "uint16_t"; /* bfloat16, raw bits */
    default: return "void";
  }
}

// Whether any function has integer registers (sizes from the symbols, or
// lengths kernels report: a called function may load its own).
bool HasIntegerRegisters(const fb::Module& m) {
  for (const fb::Function* fn : *m.functions()) {
    if (fn->int_register_count() > 0) return true;
  }
  return false;
}

// Offset of the entry function's first ILOAD, or its length.
uint32_t FirstLoad(const fb::Module& m) {
  const fb::Function& fn = *m.functions()->Get(0);
  const uint32_t* code = fn.bytecode()->data();
  for (uint32_t pc = 0; pc < fn.bytecode()->size(); pc += vm::DecodeVerified(code, pc).length) {
    if (code[pc] == KILN_OP_ILOAD) return pc;
  }
  return fn.bytecode()->size();
}

class Emitter {
 public:
  Emitter(const vm::ModuleImage& image, const AotOptions& options)
      : m_(image.module()),
        image_(image),
        options_(options),
        name_(options.name),
        upper_(Upper(options.name)),
        symbolic_(HasSymbols(image.module())),
        grows_(GrowsDuringRun(image.module())),
        dynamic_(symbolic_ || HasIntegerRegisters(image.module())),
        first_load_(FirstLoad(image.module())) {}

  absl::StatusOr<std::vector<BundleFile>> Run() {
    if (options_.emit == EmitKind::kShared && IsCortexM(options_.target)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--emit=shared needs a host target, not ", TargetName(options_.target)));
    }
    if (absl::Status s = CheckSignatureRanks(); !s.ok()) return s;
    std::vector<BundleFile> files;
    files.push_back({name_ + ".h", Header()});
    absl::StatusOr<std::string> schedule = Schedule();
    if (!schedule.ok()) return schedule.status();
    files.push_back({name_ + ".c", *schedule});
    const uint8_t* blob = m_.constant_data() ? m_.constant_data()->data() : nullptr;
    if (options_.external_weights) {
      files.push_back({name_ + "_weights.bin",
                       std::string(reinterpret_cast<const char*>(blob), WeightsBytes())});
    } else {
      files.push_back(
          {name_ + "_weights.c", EmitWeightsSource(name_ + "_weights", blob, WeightsBytes())});
    }
    absl::StatusOr<std::string> runner = Runner();
    if (!runner.ok()) return runner.status();
    files.push_back({name_ + "_main.c", *runner});
    if (absl::Status s = AddRuntimeSources(&files); !s.ok()) return s;
    if (absl::Status s = AddTargetFiles(&files); !s.ok()) return s;
    std::vector<std::string> lib_sources = {name_ + ".c"};
    if (!options_.external_weights) lib_sources.push_back(name_ + "_weights.c");
    lib_sources.insert(lib_sources.end(), runtime_sources_.begin(), runtime_sources_.end());
    absl::StatusOr<std::string> makefile =
        EmitMakefile({name_, options_.target, std::move(lib_sources),
                      ExtraEntryPoints()});
    if (!makefile.ok()) return makefile.status();
    files.push_back({"Makefile", *makefile});
    files.push_back({"README.md", Readme()});
    return files;
  }

 private:
  static std::string Upper(const std::string& s) {
    std::string out = s;
    for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return out;
  }

  // Entry points beyond NAME_run, NAME_run_with_host and NAME_metadata,
  // which `make lib` must keep.
  std::vector<std::string> ExtraEntryPoints() const {
    std::vector<std::string> extra;
    if (symbolic_) {
      extra.push_back(name_ + "_workspace_size");
      extra.push_back(name_ + "_output_dims");
      extra.push_back(name_ + "_broken_requirement");
    }
    if (ResultCount() > 0) extra.push_back(name_ + "_output_shape");
    return extra;
  }

  uint64_t WeightsBytes() const { return m_.constant_data() ? m_.constant_data()->size() : 0; }
  static constexpr uint32_t kWeightsAlignment = 64;  // the embedded array's _Alignas
  uint32_t WorkspaceAlignment() const {
    return std::max<uint32_t>(m_.memory()->arena_alignment(), 64);
  }
  std::string WeightsParam() const { return options_.external_weights ? ", weights" : ""; }
  std::string WeightsDecl() const {
    return options_.external_weights ? ", const void* weights" : "";
  }

  absl::Status CheckSignatureRanks() const {
    const fb::Signature& sig = *m_.signature();
    for (const auto* list : {sig.inputs(), sig.outputs()}) {
      for (const fb::TensorDesc* t : *list) {
        if (t->shape()->size() > KILN_MAX_RANK) {
          return absl::InvalidArgumentError(
              absl::StrCat("signature tensor '", t->name() ? t->name()->str() : "", "' has rank ",
                           t->shape()->size(), "; AOT metadata holds at most ", KILN_MAX_RANK));
        }
      }
    }
    return absl::OkStatus();
  }

  std::string Header() const {
    const fb::Signature& sig = *m_.signature();
    std::string guard = upper_ + "_H_";
    std::string h = symbolic_ ? SymbolicHeaderComment(m_, name_, upper_, image_.origin(),
                                                      TargetName(options_.target),
                                                      options_.external_weights, RunArgs())
                              : StaticHeaderComment();
    if (grows_) absl::StrAppend(&h, GrowingHeaderComment(name_, upper_, symbolic_));
    absl::StrAppend(
        &h, "#ifndef ", guard, "\n#define ", guard, "\n\n#include <stddef.h>\n#include <stdint.h>\n\n",
        "#include \"kiln/kernel_abi.h\"\n#include \"kiln/model_info.h\"\n",
        symbolic_ ? "#include \"kiln/dynamic_ops.h\"\n" : "", "\n",
        "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
    if (symbolic_) {
      absl::StrAppend(&h, SymbolMacros(m_, upper_));
    } else {
      absl::StrAppend(&h, "#define ", upper_, "_HAS_SYMBOLS 0\n");
      absl::StrAppend(&h, "#define ", upper_, "_WORKSPACE_SIZE ", m_.memory()->arena_size(), "u\n");
    }
    absl::StrAppend(&h, "#define ", upper_, "_GROWS ", grows_ ? 1 : 0, "\n");
    absl::StrAppend(&h, ResultDeclarations());
    absl::StrAppend(&h, "#define ", upper_, "_WORKSPACE_ALIGNMENT ", WorkspaceAlignment(), "u\n");
    absl::StrAppend(&h, "#define ", upper_, "_WEIGHTS_SIZE ", WeightsBytes(), "u\n");
    absl::StrAppend(&h, "#define ", upper_, "_WEIGHTS_ALIGNMENT ", kWeightsAlignment, "u\n");
    absl::StrAppend(&h, "#define ", upper_, "_WEIGHTS_EXTERNAL ", options_.external_weights ? 1 : 0,
                    "\n");
    if (options_.external_weights) {
      absl::StrAppend(&h, "#define ", upper_, "_WEIGHTS_FILE \"", name_, "_weights.bin\"\n");
    }
    absl::StrAppend(&h, "#define ", upper_, "_INPUT_COUNT ", sig.inputs()->size(), "\n");
    absl::StrAppend(&h, "#define ", upper_, "_OUTPUT_COUNT ", sig.outputs()->size(), "\n\n");
    AppendTensorMacros(&h, *sig.inputs(), "INPUT");
    AppendTensorMacros(&h, *sig.outputs(), "OUTPUT");
    if (symbolic_) {
      absl::StrAppend(&h, "int ", name_, "_workspace_size(const int64_t* symbols, size_t* bytes);\n",
                      "int ", name_,
                      "_output_dims(const int64_t* symbols, int k, int64_t* dims, uint64_t* bytes);\n",
                      "const char* ", name_, "_broken_requirement(const int64_t* symbols);\n");
    }
    absl::StrAppend(&h, "int ", name_, "_run(", RunParams(), ");\n");
    absl::StrAppend(&h, "int ", name_, "_run_with_host(", RunParams(), ",\n",
                    "    const kiln_host* host);\n");
    absl::StrAppend(&h, "const kiln_model_info* ", name_, "_metadata(void);\n\n",
                    "#ifdef __cplusplus\n}\n#endif\n\n#endif /* ", guard, " */\n");
    return h;
  }

  // The parameters of NAME_run: a module with symbols also takes their values
  // and the workspace's size; one that grows (growing_interface.h) the
  // buffers' sizes and where to say what a run needs.
  std::string RunParams() const {
    return absl::StrCat(symbolic_ ? "const int64_t* symbols, " : "",
                        "const void* const* inputs, void* const* outputs, ",
                        grows_ ? "const uint64_t* output_bytes, " : "", "void* workspace",
                        TakesWorkspaceBytes() ? ", size_t workspace_bytes" : "", WeightsDecl(),
                        grows_ ? ", kiln_shortfall* shortfall" : "");
  }
  std::string RunArgs() const {
    return absl::StrCat(symbolic_ ? "symbols, " : "", "inputs, outputs, ",
                        grows_ ? "output_bytes, " : "", "workspace",
                        TakesWorkspaceBytes() ? ", workspace_bytes" : "", WeightsParam(),
                        grows_ ? ", shortfall" : "");
  }
  bool TakesWorkspaceBytes() const { return symbolic_ || grows_; }

  std::string StaticHeaderComment() const {
    const std::string w = WeightsParam();
    return absl::StrCat(
        "/* Generated by kiln aot from ", CommentSafe(image_.origin()), " for target ",
        TargetName(options_.target), ".\n",
        " *\n"
        " * int ", name_, "_run(", RunArgs(), ") runs the model once.\n"
        " *   inputs[i]  points to input i (signature order), dense C order;\n"
        " *   outputs[i] points to caller memory for output i;\n"
        " *   workspace  points to ", upper_, "_WORKSPACE_SIZE bytes aligned to ",
        upper_, "_WORKSPACE_ALIGNMENT\n"
        " *              bytes, owned by the caller; it is scratch between calls.\n",
        options_.external_weights
            ? absl::StrCat(" *   weights    points to the ", upper_,
                           "_WEIGHTS_SIZE bytes of ", upper_, "_WEIGHTS_FILE,\n"
                           " *              unchanged, aligned to ", upper_,
                           "_WEIGHTS_ALIGNMENT bytes; read only\n"
                           " *              (they may stay in flash).\n")
            : std::string(),
        " * Returns 0, KILN_ERR_ALIGNMENT for a NULL or under-aligned workspace",
        options_.external_weights ? " or\n * weights" : "\n *",
        ", or the error code of the first kernel that failed. The code\n"
        " * allocates nothing and keeps no state outside the workspace.\n"
        " *\n"
        " * int ", name_, "_run_with_host(", RunArgs(), ", host) is the same\n"
        " * with the caller's threads: kernels split work through host->parallel_for\n"
        " * (kiln/kernel_abi.h). Results do not depend on how it partitions; NULL\n"
        " * runs serially, as ", name_, "_run does. The generated code starts no threads.\n"
        " * host->should_stop, when set, is asked before every kernel call and loop\n"
        " * iteration: a non-zero answer (KILN_ERR_CANCELLED, KILN_ERR_DEADLINE, ...)\n"
        " * ends the run with that code at once, and the next run starts afresh.\n"
        " *\n"
        " * const kiln_model_info* ", name_, "_metadata(void) describes the model as data\n"
        " * (kiln/model_info.h): the macros below, for programs that walk them.\n"
        " */\n");
  }

  void AppendTensorMacros(std::string* h,
                          const flatbuffers::Vector<flatbuffers::Offset<fb::TensorDesc>>& list,
                          const char* kind) const {
    for (uint32_t i = 0; i < list.size(); ++i) {
      const fb::TensorDesc* t = list.Get(i);
      std::string p = absl::StrCat(upper_, "_", kind, i);
      uint64_t elements = 1;
      for (int64_t d : *t->shape()) elements *= static_cast<uint64_t>(d);
      absl::StrAppend(h, "#define ", p, "_NAME ", CString(t->name() ? t->name()->str() : ""), "\n");
      absl::StrAppend(h, "#define ", p, "_DTYPE \"", DTypeName(t->dtype()), "\"\n");
      absl::StrAppend(h, "#define ", p, "_CTYPE ", CType(t->dtype()), "\n");
      absl::StrAppend(h, "#define ", p, "_RANK ", t->shape()->size(), "\n");
      absl::StrAppend(h, "#define ", p, "_SHAPE {", absl::StrJoin(*t->shape(), ", "), "}\n");
      if (symbolic_ || grows_) {
        AppendSymbolicSizeMacros(h, p, *t);
        continue;
      }
      absl::StrAppend(h, "#define ", p, "_SIZE ", elements, "u\n");
      absl::StrAppend(h, "#define ", p, "_BYTES ", vm::TensorDescBytes(*t), "u\n\n");
    }
  }

  // With symbols: every tensor names its dims' symbols; one with symbolic
  // dims states only its static factor, so code that assumes a fixed size
  // fails to compile instead of under-allocating.
  void AppendSymbolicSizeMacros(std::string* h, const std::string& p, const fb::TensorDesc& t) const {
    const std::vector<int32_t> symbols = DimSymbolOrdinals(m_, t);
    absl::StrAppend(h, "#define ", p, "_DIM_SYMBOLS {", symbols.empty() ? "0" : absl::StrJoin(symbols, ", "),
                    "}\n");
    const bool dynamic = std::any_of(symbols.begin(), symbols.end(),
                                     [](int32_t k) { return k != -1; });
    const char* suffix = dynamic ? "_STATIC" : "";
    absl::StrAppend(h, "#define ", p, suffix, "_SIZE ", StaticElements(t), "u\n");
    absl::StrAppend(h, "#define ", p, suffix, "_BYTES ", StaticElements(t) * DTypeSize(t.dtype()),
                    "u\n\n");
  }

  // Elements of `t` with every symbolic dim taken as 1.
  static uint64_t StaticElements(const fb::TensorDesc& t) {
    uint64_t elements = 1;
    for (int64_t d : *t.shape()) elements *= d < 0 ? 1 : static_cast<uint64_t>(d);
    return elements;
  }

  // One handler per opcode of schemas/kiln/opcodes.def; an opcode without a
  // rendering here fails to compile.
  std::string RenderVIEW_INPUT(const uint32_t* op) const {
    return absl::StrCat("r[", op[0], "] = (void*)inputs[", op[1], "];",
                        ViewBytes(op[0], vm::TensorDescBytes(*m_.signature()->inputs()->Get(op[1]))));
  }
  std::string RenderVIEW_OUTPUT(const uint32_t* op) const {
    const uint64_t bytes = vm::TensorDescBytes(*m_.signature()->outputs()->Get(op[1]));
    return absl::StrCat(grows_ ? OutputCapacityCheck(op[1], absl::StrCat("INT64_C(", bytes, ")"))
                               : std::string(),
                        "r[", op[0], "] = outputs[", op[1], "];", ViewBytes(op[0], bytes));
  }
  // In a module that grows every output view checks the caller's buffer.
  static std::string OutputCapacityCheck(uint32_t k, const std::string& bytes) {
    return absl::StrCat("if ((rc = kiln_check_output_growing(", k, ", ", bytes, ", output_bytes[", k,
                        "], shortfall)) != 0) return rc;\n  ");
  }
  std::string RenderVIEW_CONST(const uint32_t* op) const {
    const fb::Constant* c = m_.constants()->Get(op[1]);
    return absl::StrCat("r[", op[0], "] = (void*)(constants + ", c->offset(), "u);",
                        ViewBytes(op[0], c->size()));
  }
  std::string RenderVIEW_ARENA(const uint32_t* op) const {
    return absl::StrCat("r[", op[0], "] = arena + ", vm::ReadU64(op + 1), "u;",
                        ViewBytes(op[0], vm::ReadU64(op + 3)));
  }
  // In a module with symbols every view records its bytes for DISPATCH_DYN's
  // run-time checks (as the VM's register_bytes do); static modules need none.
  std::string ViewBytes(uint32_t reg, uint64_t bytes) const {
    return dynamic_ ? absl::StrCat(" rb[", reg, "] = ", bytes, "u;") : std::string();
  }
  std::string RenderDISPATCH(const uint32_t* op) const {
    const fb::Executable* e = m_.executables()->Get(op[0]);
    std::vector<std::string> regs;
    for (uint32_t k = 0; k < op[1]; ++k) regs.push_back(absl::StrCat("r[", op[2 + k], "]"));
    std::string fparams = e->fparams() && e->fparams()->size()
                              ? absl::StrCat(name_, "_e", op[0], "_f")
                              : std::string("NULL");
    return absl::StrCat("if ((rc = ", e->kernel()->str(), "(", name_, "_e", op[0], "_i, ", fparams,
                        ", (void* const[]){", absl::StrJoin(regs, ", "), "}, host)) != 0) return rc;");
  }
  std::string RenderRETURN(const uint32_t*) const { return "return 0;"; }
  // Structured control flow (kiln/control_ops.h, as the VM runs it).
  std::string RenderIF(const uint32_t* op) const {
    return absl::StrCat("if ((rc = kiln_condition(r[", op[0], "]) ? ", Call(op[1]), " : ",
                        Call(op[2]), ") != 0) return rc;");
  }
  std::string RenderLOOP(const uint32_t* op) const {
    const uint64_t expected = vm::ReadU64(op + 5);
    return Loop(op,
                op[1] == KILN_NO_REGISTER ? std::string("INT64_MAX")
                                          : absl::StrCat("kiln_trip_count(r[", op[1], "])"),
                expected == KILN_ANY_ITERATION_COUNT ? std::string("KILN_ANY_ITERATION_COUNT")
                                                     : absl::StrCat(expected, "ull"));
  }
  // LOOP_DYN: the trip and expected counts from integer registers.
  std::string RenderLOOP_DYN(const uint32_t* op) const {
    return Loop(op, absl::StrCat("n[", op[1], "]"),
                absl::StrCat("kiln_loop_expected(n[", op[5], "])"));
  }
  // LOOP and LOOP_DYN share their operands but for how the counts are read.
  std::string Loop(const uint32_t* op, const std::string& trip, const std::string& expected) const {
    return absl::StrCat(
        "{\n    const int64_t trip = ", trip,
        ";\n    int cond = ",
        op[2] == KILN_NO_REGISTER ? std::string("1") : absl::StrCat("kiln_condition(r[", op[2], "])"),
        ";\n    for (uint64_t i = 0;; ++i) {\n      int run = 0;\n",
        "      if ((rc = kiln_loop_next(i, trip, cond, ", expected,
        ", &run)) != 0) return rc;\n      if (!run) break;\n",
        "      if (KILN_SHOULD_STOP(KILN_STOP_AT_ITERATION)) return rc;\n",
        "      kiln_write_iteration(r[", op[3],
        "], i);\n      if ((rc = ", Call(op[0]), ") != 0) return rc;\n",
        op[4] == KILN_NO_REGISTER ? std::string()
                                  : absl::StrCat("      cond = kiln_condition(r[", op[4], "]);\n"),
        "    }\n  }");
  }

  // Dynamic shapes: integer registers are n[k]; every view also records its
  // bytes in rb[k] for the run-time checks of DISPATCH_DYN. The entry's
  // integer instructions run in NAME_shapes(), before the schedule; a called
  // function's run where they stand, on each call.
  std::string RenderISYM(const uint32_t* op) const {
    return absl::StrCat("n[", op[0], "] = symbols[", op[1], "];");
  }
  std::string RenderICONST(const uint32_t* op) const {
    return absl::StrCat("n[", op[0], "] = ", IntLiteral(static_cast<int64_t>(vm::ReadU64(op + 1))), ";");
  }
  // A length a kernel reported (kiln/dynamic_ops.h kiln_iload).
  std::string RenderILOAD(const uint32_t* op) const {
    const fb::ResultSymbol* r = m_.result_symbols()->Get(op[1]);
    return absl::StrCat("if ((rc = kiln_iload(arena, ", r->arena_offset(), "u, ",
                        IntLiteral(r->bound()), ", &n[", op[0], "])) != 0) return rc;");
  }
  static std::string IntOp(const char* fn, const uint32_t* op) {
    return absl::StrCat("if ((rc = ", fn, "(n[", op[1], "], n[", op[2], "], &n[", op[0],
                        "])) != 0) return rc;");
  }
  std::string RenderIASSERT_EQ(const uint32_t* op) const {
    return absl::StrCat("if (n[", op[0], "] != n[", op[1], "]) return KILN_ERR_INVALID_ARGUMENT;");
  }
  // The integer binary opcodes call opcodes.def's helper for each.
#define KILN_INT_BINARY(name, helper, text) \
  std::string Render##name(const uint32_t* op) const { return IntOp(#helper, op); }
#include "kiln/opcodes.def"
#undef KILN_INT_BINARY
  // The caller's buffers hold what the header documents for these symbols.
  std::string RenderVIEW_INPUT_DYN(const uint32_t* op) const {
    return absl::StrCat("if (n[", op[2], "] < 0) return KILN_ERR_OUT_OF_RANGE;\n  r[", op[0],
                        "] = (void*)inputs[", op[1], "]; rb[", op[0], "] = (uint64_t)n[", op[2], "];");
  }
  std::string RenderVIEW_OUTPUT_DYN(const uint32_t* op) const {
    return absl::StrCat(grows_ ? OutputCapacityCheck(op[1], absl::StrCat("n[", op[2], "]"))
                               : absl::StrCat("if (n[", op[2], "] < 0) return KILN_ERR_OUT_OF_RANGE;\n  "),
                        "r[", op[0], "] = outputs[", op[1], "]; rb[", op[0], "] = (uint64_t)n[",
                        op[2], "];");
  }
  std::string RenderVIEW_ARENA_DYN(const uint32_t* op) const {
    return absl::StrCat("if ((rc = ",
                        grows_ ? "kiln_check_view_growing(" : "kiln_check_view(", "n[", op[1],
                        "], n[", op[2], "], workspace_bytes", grows_ ? ", shortfall" : "",
                        ")) != 0) return rc;\n  r[", op[0], "] = arena + n[", op[1], "]; rb[", op[0],
                        "] = (uint64_t)n[", op[2], "];");
  }
  std::string RenderDISPATCH_DYN(const uint32_t* op) const {
    const fb::Executable* e = m_.executables()->Get(op[0]);
    const vm::KernelInfo* kernel = vm::FindKernel(e->kernel()->string_view());
    const uint32_t count = op[1];
    const uint32_t* patch = op + 2 + count;
    const uint32_t n_ip = e->iparams() ? e->iparams()->size() : 0;
    const uint32_t n_fp = e->fparams() ? e->fparams()->size() : 0;
    std::vector<std::string> regs, bytes;
    for (uint32_t k = 0; k < count; ++k) {
      regs.push_back(absl::StrCat("r[", op[2 + k], "]"));
      // The executable marks untouched bindings with 0 bytes (as the VM reads it).
      bytes.push_back(e->binding_bytes()->Get(k) == 0 ? std::string("0")
                                                     : absl::StrCat("rb[", op[2 + k], "]"));
    }
    std::string patches;
    for (uint32_t k = 0; k < patch[0]; ++k) {
      absl::StrAppend(&patches, " ip[", patch[1 + 2 * k], "] = n[", patch[2 + 2 * k], "];");
    }
    const std::string fparams =
        n_fp ? absl::StrCat(name_, "_e", op[0], "_f") : std::string("NULL");
    const std::string symbol = e->kernel()->str();
    return absl::StrCat(
        "{ int64_t ip[", std::max<uint32_t>(n_ip, 1), "]; memcpy(ip, ", name_, "_e", op[0],
        "_i, sizeof ip);", patches, "\n    void* const b[] = {", absl::StrJoin(regs, ", "),
        "}; const uint64_t bb[] = {", absl::StrJoin(bytes, ", "), "};\n    if ((rc = kiln_check_dynamic_dispatch(",
        symbol, "_check, ip, ", n_ip, "u, ", fparams, ", ", n_fp, "u, b, bb, ", count, "u, ",
        kernel->writes, "u)) != 0) return rc;\n    if ((rc = ", symbol, "(ip, ", fparams,
        ", b, host)) != 0) return rc; }");
  }

  std::string Render(const uint32_t* code, uint32_t pc) const {
    const uint32_t* op = code + pc + 1;
    switch (code[pc]) {
#define KILN_OP(name, code_value, operands, semantics) \
  case KILN_OP_##name:                                 \
    return Render##name(op);
#include "kiln/opcodes.def"
#undef KILN_OP
      default:
        return "";
    }
  }

  absl::StatusOr<std::string> Schedule() {
    std::string c = absl::StrCat("/* Generated by kiln aot: the scheduling code of ", name_,
                                 ", one statement per bytecode instruction. */\n",
                                 TimingPrelude(), StopPrelude(),
                                 "#include <math.h>\n#include <stddef.h>\n#include <stdint.h>\n\n",
                                 dynamic_ || ResultCount() > 0 ? "#include <string.h>\n\n" : "",
                                 "#include \"", name_, ".h\"\n#include \"kiln/kernels.h\"\n",
                                 dynamic_ ? "#include \"kiln/dynamic_ops.h\"\n" : "",
                                 m_.functions()->size() > 1 ? "#include \"kiln/control_ops.h\"\n" : "",
                                 "\n",
                                 options_.external_weights
                                     ? std::string()
                                     : absl::StrCat("extern const unsigned char ", name_,
                                                    "_weights[];\n\n"));
    const uint32_t n_exec = m_.executables() ? m_.executables()->size() : 0;
    for (uint32_t i = 0; i < n_exec; ++i) {
      const fb::Executable* e = m_.executables()->Get(i);
      std::vector<std::string> ints;
      if (e->iparams()) {
        for (int64_t v : *e->iparams()) ints.push_back(IntLiteral(v));
      }
      if (ints.empty()) ints.push_back("0");
      absl::StrAppend(&c, "static const int64_t ", name_, "_e", i, "_i[] = {",
                      absl::StrJoin(ints, ", "), "};\n");
      if (e->fparams() && e->fparams()->size()) {
        std::vector<std::string> floats;
        for (float v : *e->fparams()) floats.push_back(FloatLiteral(v));
        absl::StrAppend(&c, "static const float ", name_, "_e", i, "_f[] = {",
                        absl::StrJoin(floats, ", "), "};\n");
      }
      kernels_.insert(e->kernel()->str());
    }
    const fb::Function& fn = *m_.functions()->Get(0);
    std::map<std::pair<uint32_t, uint32_t>, std::string> debug_at;
    if (m_.debug() && m_.debug()->dispatches()) {
      for (const fb::DispatchDebug* d : *m_.debug()->dispatches()) {
        std::vector<std::string> names;
        if (d->nodes()) {
          for (const auto* n : *d->nodes()) names.push_back(n->str());
        }
        debug_at[{d->function(), d->bytecode_offset()}] = absl::StrJoin(names, " + ");
      }
    }
    absl::StrAppend(&c, Metadata(), ResultFunction(), CalledFunctions(debug_at));
    if (symbolic_) {
      absl::StrAppend(&c, ShapesFunction(fn, debug_at), WorkspaceSizeFunction(m_, name_, upper_),
                      OutputDimsFunction(m_, name_), BrokenRequirementFunction(m_, name_));
    }
    absl::StrAppend(&c, "\nKILN_EXPORT int ", name_, "_run(", RunParams(), ") {\n", "  return ", name_,
                    "_run_with_host(", RunArgs(), ", NULL);\n}\n");
    absl::StrAppend(
        &c, "\nKILN_EXPORT int ", name_, "_run_with_host(", RunParams(), ",\n",
        "    const kiln_host* host) {\n",
        "  unsigned char* const arena = (unsigned char*)workspace;\n",
        options_.external_weights
            ? "  const unsigned char* const constants = (const unsigned char*)weights;\n"
            : absl::StrCat("  const unsigned char* const constants = ", name_, "_weights;\n"),
        "  void* r[", RegisterArrayLength(fn.register_count()), "];\n",
        dynamic_ ? absl::StrCat("  uint64_t rb[", RegisterArrayLength(fn.register_count()),
                                 "];\n  int64_t n[", RegisterArrayLength(fn.int_register_count()),
                                 "];\n")
                  : std::string(),
        "  int rc;\n  (void)r;\n", dynamic_ ? "  (void)rb;\n  (void)n;\n" : "",
        "  (void)arena;\n  (void)constants;\n  (void)inputs;\n  (void)outputs;\n",
        "  (void)rc;\n  (void)host;\n", StopHook(),
        EntryChecks(),
        options_.external_weights
            ? absl::StrCat("  if (weights == NULL || (uintptr_t)weights % ", upper_,
                           "_WEIGHTS_ALIGNMENT != 0) return KILN_ERR_ALIGNMENT;\n")
            : std::string(),
        WorkspaceChecks());
    absl::StrAppend(&c, "  KILN_TIMING_START();\n", Statements(0, debug_at), "}\n");
    return c;
  }

  // The statements of function f, one per instruction but the entry's
  // integer ones before its first ILOAD (already run by NAME_shapes(); a
  // called function runs its own where they stand), numbering dispatches for KILN_TIMED as
  // the VM does: function by function, in bytecode order.
  std::string Statements(uint32_t f, const std::map<std::pair<uint32_t, uint32_t>, std::string>& debug_at) const {
    std::string c;
    const fb::Function& fn = *m_.functions()->Get(f);
    const uint32_t* code = fn.bytecode()->data();
    uint32_t dispatch = DispatchBase(f);
    for (uint32_t pc = 0; pc < fn.bytecode()->size();) {
      const uint32_t length = vm::DecodeVerified(code, pc).length;
      if (kiln_opcode_is_integer(code[pc]) && symbolic_ && f == 0 && pc < first_load_) {
        pc += length;  // run by NAME_shapes()
        continue;
      }
      absl::StrAppend(&c, InstructionComment(code, pc, f, debug_at), "  ");
      if (code[pc] == KILN_OP_DISPATCH || code[pc] == KILN_OP_DISPATCH_DYN) {
        absl::StrAppend(&c, "if (KILN_SHOULD_STOP(KILN_STOP_AT_DISPATCH)) return rc;\n  KILN_TIMED(",
                        dispatch, ", ", Render(code, pc), ")\n");
        ++dispatch;
      } else {
        absl::StrAppend(&c, Render(code, pc), "\n");
      }
      pc += length;
    }
    return c;
  }

  // DISPATCHes in the functions before f.
  uint32_t DispatchBase(uint32_t f) const {
    uint32_t dispatches = 0;
    for (uint32_t g = 0; g < f; ++g) {
      const fb::Function& fn = *m_.functions()->Get(g);
      const uint32_t* code = fn.bytecode()->data();
      for (uint32_t pc = 0; pc < fn.bytecode()->size(); pc += vm::DecodeVerified(code, pc).length) {
        if (code[pc] == KILN_OP_DISPATCH || code[pc] == KILN_OP_DISPATCH_DYN) ++dispatches;
      }
    }
    return dispatches;
  }

  // Output lengths known only after a run (result symbols): the kernels
  // leave them in the workspace; NAME_output_shape() reads them back.
  uint32_t ResultCount() const {
    return m_.result_symbols() ? m_.result_symbols()->size() : 0;
  }
  std::string ResultDeclarations() const {
    std::string h = absl::StrCat("#define ", upper_, "_RESULT_COUNT ", ResultCount(), "\n");
    if (ResultCount() == 0) return h;
    for (uint32_t r = 0; r < ResultCount(); ++r) {
      const fb::ResultSymbol* rs = m_.result_symbols()->Get(r);
      absl::StrAppend(&h, "#define ", upper_, "_RESULT", r, "_NAME ", CString(rs->name()->str()),
                      "\n#define ", upper_, "_RESULT", r, "_BOUND ", rs->bound(), "\n");
    }
    absl::StrAppend(
        &h, "/* After a successful NAME_run: output k's real shape (its rank entries) and\n",
        " * bytes, which fill the start of its buffer (sized for the bounds). Returns 0,\n",
        " * or KILN_ERR_OUT_OF_RANGE / KILN_ERR_INVALID_ARGUMENT.",
        symbolic_ ? "\n * Dims set by the model's symbols must hold their values on entry (the\n"
                    " * shape the caller sized the buffer for); the function leaves them. */\n"
                  : " */\n",
        "int ", name_,
        "_output_shape(const void* workspace, int k, int64_t* dims, uint64_t* bytes);\n");
    return h;
  }
  std::string ResultFunction() const {
    if (ResultCount() == 0) return "";
    std::string c = absl::StrCat(
        "\nKILN_EXPORT int ", name_,
        "_output_shape(const void* workspace, int k, int64_t* dims, uint64_t* bytes) {\n",
        "  const unsigned char* arena = (const unsigned char*)workspace;\n  int64_t r[",
        ResultCount(), "];\n  if (workspace == NULL || dims == NULL || bytes == NULL) return KILN_ERR_INVALID_ARGUMENT;\n");
    // Only the lengths that size outputs: one a called function alone loads
    // is its own, and its slot may hold other data once it returned.
    const fb::Signature& sig = *m_.signature();
    std::vector<bool> sizes_output(ResultCount(), false);
    for (const fb::TensorDesc* t : *sig.outputs()) {
      for (uint32_t d = 0; t->dim_symbols() && d < t->dim_symbols()->size(); ++d) {
        for (uint32_t j = 0; j < ResultCount(); ++j) {
          sizes_output[j] = sizes_output[j] || t->dim_symbols()->Get(d)->string_view() ==
                                                   m_.result_symbols()->Get(j)->name()->string_view();
        }
      }
    }
    for (uint32_t j = 0; j < ResultCount(); ++j) {
      const fb::ResultSymbol* rs = m_.result_symbols()->Get(j);
      if (!sizes_output[j]) continue;
      absl::StrAppend(&c, "  memcpy(&r[", j, "], arena + ", rs->arena_offset(), "u, sizeof r[", j,
                      "]);\n  if (r[", j, "] < 0 || r[", j, "] > ", rs->bound(),
                      ") return KILN_ERR_OUT_OF_RANGE;\n");
    }
    absl::StrAppend(&c, "  (void)arena;\n  (void)r;\n  switch (k) {\n");
    for (uint32_t k = 0; k < sig.outputs()->size(); ++k) {
      const fb::TensorDesc* t = sig.outputs()->Get(k);
      std::vector<std::string> dims;  // empty: a symbol's value, left as the caller gave it
      for (uint32_t d = 0; d < t->shape()->size(); ++d) {
        std::string dim = t->shape()->Get(d) < 0 ? "" : absl::StrCat(t->shape()->Get(d));
        for (uint32_t j = 0; t->dim_symbols() && j < ResultCount(); ++j) {
          if (t->dim_symbols()->Get(d)->string_view() ==
              m_.result_symbols()->Get(j)->name()->string_view()) {
            dim = absl::StrCat("r[", j, "]");
          }
        }
        dims.push_back(dim);
      }
      absl::StrAppend(&c, "    case ", k, ": {\n      uint64_t n = ", DTypeSize(t->dtype()), "u;\n");
      for (uint32_t d = 0; d < dims.size(); ++d) {
        if (dims[d].empty()) {
          absl::StrAppend(&c, "      if (dims[", d, "] < 0) return KILN_ERR_INVALID_ARGUMENT;\n");
        } else {
          absl::StrAppend(&c, "      dims[", d, "] = ", dims[d], ";\n");
        }
        absl::StrAppend(&c, "      n *= (uint64_t)dims[", d, "];\n");
      }
      absl::StrAppend(&c, "      *bytes = n;\n      return 0;\n    }\n");
    }
    return c + "  }\n  return KILN_ERR_INVALID_ARGUMENT;\n}\n";
  }

  // Functions called by IF and LOOP (subgraphs of ONNX If, Loop, Scan): each
  // a static C function with registers of its own, sharing the caller's
  // buffers. Declared first, so the order of definitions does not matter.
  std::string CalledFunctions(const std::map<std::pair<uint32_t, uint32_t>, std::string>& debug_at) const {
    const uint32_t n = m_.functions()->size();
    if (n <= 1) return "";
    std::string c = "\n";
    for (uint32_t f = 1; f < n; ++f) absl::StrAppend(&c, "static int ", CalleeSignature(f), ";\n");
    for (uint32_t f = 1; f < n; ++f) {
      const fb::Function& fn = *m_.functions()->Get(f);
      absl::StrAppend(&c, "\n/* function ", f, " ", CommentSafe(fn.name() ? fn.name()->str() : ""),
                      " */\nstatic int ", CalleeSignature(f), " {\n  void* r[",
                      RegisterArrayLength(fn.register_count()), "];\n",
                      // Its own view sizes and integer registers, computed
                      // anew by its integer instructions on every call.
                      dynamic_ ? absl::StrCat("  uint64_t rb[", RegisterArrayLength(fn.register_count()),
                                              "];\n  int64_t n[",
                                              RegisterArrayLength(fn.int_register_count()), "];\n")
                               : std::string(),
                      "  int rc;\n",
                      "  (void)r;\n  (void)rc;\n  (void)arena;\n  (void)constants;\n",
                      "  (void)inputs;\n  (void)outputs;\n  (void)host;\n", StopHook(),
                      dynamic_ ? "  (void)rb;\n  (void)n;\n" : "",
                      symbolic_ ? "  (void)symbols;\n" : "",
                      TakesWorkspaceBytes() ? "  (void)workspace_bytes;\n" : "",
                      grows_ ? "  (void)output_bytes;\n  (void)shortfall;\n" : "",
                      Statements(f, debug_at), "}\n");
    }
    return c;
  }
  // A called function also takes what its dynamic instructions read: the
  // symbols' values (ISYM), the workspace's size (VIEW_ARENA_DYN) and, in a
  // module that grows, the output buffers' sizes and the shortfall, under
  // the names of NAME_run_with_host's parameters.
  std::string CalleeSignature(uint32_t f) const {
    return absl::StrCat(name_, "_function", f,
                        "(const void* const* inputs, void* const* outputs, unsigned char* arena, "
                        "const unsigned char* constants, const kiln_host* host",
                        symbolic_ ? ", const int64_t* symbols" : "",
                        TakesWorkspaceBytes() ? ", size_t workspace_bytes" : "",
                        grows_ ? ", const uint64_t* output_bytes, kiln_shortfall* shortfall" : "", ")");
  }
  std::string Call(uint32_t f) const {
    return absl::StrCat(name_, "_function", f, "(inputs, outputs, arena, constants, host",
                        symbolic_ ? ", symbols" : "", TakesWorkspaceBytes() ? ", workspace_bytes" : "",
                        grows_ ? ", output_bytes, shortfall" : "", ")");
  }

  // "  /* 0012 DISPATCH ...  # onnx nodes */\n" above each statement.
  static std::string InstructionComment(
      const uint32_t* code, uint32_t pc, uint32_t function,
      const std::map<std::pair<uint32_t, uint32_t>, std::string>& debug_at) {
    std::string note = vm::DisassembleInstruction(code, pc);
    auto it = debug_at.find({function, pc});
    if (it != debug_at.end() && !it->second.empty()) absl::StrAppend(&note, "  # ", it->second);
    return absl::StrCat("  /* ", absl::StrFormat("%04u ", pc), CommentSafe(note), " */\n");
  }

  // NAME_shapes(): the symbols' range, then every integer instruction in
  // bytecode order (the verifier holds integer registers to one write each).
  // A requirement these symbols break (IASSERT_EQ) returns
  // KILN_ERR_INVALID_ARGUMENT and, when `broken` is not NULL, its formula.
  std::string ShapesFunction(const fb::Function& fn,
                             const std::map<std::pair<uint32_t, uint32_t>, std::string>& debug_at) const {
    std::string c = absl::StrCat(
        "\n/* The shape arithmetic: every integer register from the symbols' values. */\n",
        "static int ", name_, "_shapes(const int64_t* symbols, int64_t* n, const char** broken) {\n",
        "  int rc;\n  (void)rc;\n  (void)broken;\n",
        // An entry without integer instructions (a callee's own do the work).
        "  (void)n;\n",
        "  for (int k = 0; k < ", upper_, "_SYMBOL_COUNT; ++k) {\n",
        "    if (symbols[k] < 1 || symbols[k] > KILN_MAX_SYMBOL_VALUE) return KILN_ERR_OUT_OF_RANGE;\n",
        "  }\n");
    const uint32_t* code = fn.bytecode()->data();
    std::vector<std::string> exprs;
    for (uint32_t pc = 0; pc < first_load_; pc += vm::DecodeVerified(code, pc).length) {
      if (!kiln_opcode_is_integer(code[pc])) continue;
      std::string line = Render(code, pc);
      if (code[pc] == KILN_OP_IASSERT_EQ) {
        if (exprs.empty()) exprs = vm::IntegerExpressions(m_, fn);
        const std::string formula = absl::StrCat(exprs[code[pc + 1]], " == ", exprs[code[pc + 2]]);
        line = absl::StrCat("if (n[", code[pc + 1], "] != n[", code[pc + 2], "]) {\n",
                            "    if (broken) *broken = ", CString(formula), ";\n",
                            "    return KILN_ERR_INVALID_ARGUMENT;\n  }");
      }
      absl::StrAppend(&c, InstructionComment(code, pc, 0, debug_at), "  ", line, "\n");
    }
    return c + "  return 0;\n}\n";
  }

  // The kernels' vector loads rely on these alignments; a caller that
  // misplaces a buffer gets an error code instead of a fault.
  std::string EntryChecks() const {
    std::string c;
    if (symbolic_) absl::StrAppend(&c, "  if (symbols == NULL) return KILN_ERR_INVALID_ARGUMENT;\n");
    if (grows_) {
      absl::StrAppend(&c, "  if (output_bytes == NULL || shortfall == NULL) return "
                          "KILN_ERR_INVALID_ARGUMENT;\n");
    }
    absl::StrAppend(&c, "  if ((uintptr_t)workspace % ", upper_, "_WORKSPACE_ALIGNMENT != 0 || (",
                    TakesWorkspaceBytes() ? "workspace_bytes" : absl::StrCat(upper_, "_WORKSPACE_SIZE"),
                    " > 0 && workspace == NULL)) return KILN_ERR_ALIGNMENT;\n");
    return c;
  }

  // Before any instruction: the symbols in range and the whole workspace
  // there, so a too-small workspace is an error code and never an overflow
  // (VIEW_ARENA_DYN checks each view against workspace_bytes again).
  // In a module that grows, a workspace too small is a shortfall to report.
  std::string WorkspaceChecks() const {
    std::string c;
    if (!symbolic_) {
      if (grows_) {
        absl::StrAppend(&c, "  if ((rc = kiln_check_view_growing(0, ", upper_,
                        "_WORKSPACE_SIZE, workspace_bytes, shortfall)) != 0) return rc;\n");
      }
      return c;
    }
    if (m_.memory()->arena_size() > 0) {
      absl::StrAppend(&c, grows_ ? absl::StrCat("  if ((rc = kiln_check_view_growing(0, ", upper_,
                                                "_WORKSPACE_MIN_SIZE, workspace_bytes, shortfall)) "
                                                "!= 0) return rc;\n")
                                 : absl::StrCat("  if (workspace_bytes < ", upper_,
                                                "_WORKSPACE_MIN_SIZE) return KILN_ERR_OUT_OF_RANGE;\n"));
    }
    absl::StrAppend(&c, "  if ((rc = ", name_, "_shapes(symbols, n, NULL)) != 0) return rc;\n");
    const int32_t ws = m_.memory()->workspace_register();
    if (ws >= 0) {
      absl::StrAppend(&c, grows_ ? absl::StrCat("  if ((rc = kiln_check_view_growing(0, n[", ws,
                                                "], workspace_bytes, shortfall)) != 0) return rc;\n")
                                 : absl::StrCat("  if (n[", ws, "] < 0 || (uint64_t)n[", ws,
                                                "] > (uint64_t)workspace_bytes) return "
                                                "KILN_ERR_OUT_OF_RANGE;\n"));
    }
    return c;
  }

  // Per-dispatch timing for kiln bench --per-dispatch. Compiled only with
  // -DKILN_TIMING: then NAME_run accumulates each dispatch's time and, at
  // exit, writes "dispatch calls total_ns" lines to $KILN_TIMING_OUT.
  // Without it KILN_TIMED(k, statement) is just the statement.
  std::string TimingPrelude() const {
    const uint32_t dispatches = DispatchBase(m_.functions()->size());
    const std::string n = absl::StrCat(std::max<uint32_t>(dispatches, 1));
    const std::string p = name_ + "_timing";
    return absl::StrCat(
        "#ifdef KILN_TIMING\n#ifndef _POSIX_C_SOURCE\n#define _POSIX_C_SOURCE 199309L\n#endif\n",
        "#include <stdio.h>\n#include <stdlib.h>\n#include <time.h>\n",
        "static double ", p, "_ns[", n, "];\nstatic unsigned long ", p, "_calls[", n, "];\n",
        "static double ", p, "_now(void) {\n  struct timespec ts;\n",
        "  clock_gettime(CLOCK_MONOTONIC, &ts);\n  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;\n}\n",
        "static void ", p, "_dump(void) {\n  const char* path = getenv(\"KILN_TIMING_OUT\");\n",
        "  FILE* f = path ? fopen(path, \"w\") : NULL;\n  if (!f) return;\n",
        "  for (int k = 0; k < ", dispatches, "; ++k) fprintf(f, \"%d %lu %.0f\\n\", k, ", p,
        "_calls[k], ", p, "_ns[k]);\n  fclose(f);\n}\n",
        "#define KILN_TIMING_START() do { static int registered_; if (!registered_) { registered_ = 1; atexit(",
        p, "_dump); } } while (0)\n",
        "#define KILN_TIMED(k, ...) { const double kiln_t0 = ", p, "_now(); __VA_ARGS__ ", p,
        "_ns[k] += ", p, "_now() - kiln_t0; ", p, "_calls[k]++; }\n",
        "#else\n#define KILN_TIMING_START() (void)0\n#define KILN_TIMED(k, ...) __VA_ARGS__\n",
        "#endif\n");
  }

  // The host's run budget (kiln_host.should_stop, kiln/kernel_abi.h), asked
  // before each kernel call and loop iteration. Each function reads the
  // hook once into `should_stop`, so NAME_run (no host) pays one branch on a
  // local per check.
  static std::string StopPrelude() {
    return "#define KILN_SHOULD_STOP(at) \\\n"
           "  (should_stop != NULL && (rc = should_stop(host->stop_user, (at))) != 0)\n";
  }
  static std::string StopHook() {
    return "  int (*const should_stop)(void*, int) = host != NULL ? host->should_stop : NULL;\n"
           "  (void)should_stop;\n";
  }

  // NAME_metadata(): the header's facts as kiln_model_info (kiln/model_info.h).
  std::string TensorInfos(const flatbuffers::Vector<flatbuffers::Offset<fb::TensorDesc>>& list,
                          const char* kind) const {
    std::string t = absl::StrCat("static const kiln_tensor_info ", name_, "_", kind, "_info[] = {\n");
    for (const fb::TensorDesc* d : list) {
      absl::StrAppend(&t, "  {", CString(d->name() ? d->name()->str() : ""), ", ",
                      static_cast<int>(d->dtype()), ", \"", DTypeName(d->dtype()), "\", ",
                      d->shape()->size(), ", {",
                      d->shape()->size() ? absl::StrJoin(*d->shape(), ", ") : "0", "}, ",
                      symbolic_ || grows_ ? StaticElements(*d) * DTypeSize(d->dtype())
                                          : vm::TensorDescBytes(*d),
                      "u, ", DimSymbolsInitializer(DimSymbolOrdinals(m_, *d)), "},\n");
    }
    if (list.size() == 0) {
      absl::StrAppend(&t, "  {\"\", 0, \"\", 0, {0}, 0u, ", DimSymbolsInitializer({}), "},\n");
    }
    return t + "};\n";
  }

  // All KILN_MAX_RANK entries: -1 for static dims and beyond the rank.
  static std::string DimSymbolsInitializer(std::vector<int32_t> ordinals) {
    ordinals.resize(KILN_MAX_RANK, -1);
    return absl::StrCat("{", absl::StrJoin(ordinals, ", "), "}");
  }

  std::string Metadata() const {
    const fb::Signature& sig = *m_.signature();
    std::string symbols;
    if (symbolic_) {
      std::vector<std::string> names;
      for (uint32_t k = 0; k < m_.symbols()->size(); ++k) {
        names.push_back(absl::StrCat(upper_, "_SYMBOL", k, "_NAME"));
      }
      symbols = absl::StrCat("static const char* const ", name_, "_symbol_names[] = {",
                             absl::StrJoin(names, ", "), "};\n");
    }
    return absl::StrCat(
        "\n", TensorInfos(*sig.inputs(), "input"), TensorInfos(*sig.outputs(), "output"), symbols,
        "static const kiln_model_info ", name_, "_info = {\n  KILN_MODEL_INFO_VERSION, \"",
        name_, "\", ", upper_, symbolic_ ? "_WORKSPACE_MIN_SIZE, " : "_WORKSPACE_SIZE, ", upper_,
        "_WORKSPACE_ALIGNMENT,\n  ", upper_,
        "_WEIGHTS_SIZE, ", upper_, "_WEIGHTS_ALIGNMENT, ", upper_, "_WEIGHTS_EXTERNAL,\n  ", upper_,
        "_INPUT_COUNT, ", upper_, "_OUTPUT_COUNT, ", name_, "_input_info, ", name_,
        "_output_info,\n  ",
        symbolic_ ? absl::StrCat(upper_, "_SYMBOL_COUNT, ", name_, "_symbol_names") : "0u, NULL",
        ", ", upper_, "_GROWS};\n\n", "KILN_EXPORT const kiln_model_info* ", name_,
        "_metadata(void) { return &", name_, "_info; }\n");
  }

  absl::StatusOr<std::string> Runner() const {
    const EmbeddedFile* tmpl = FindEmbeddedFile("aot/templates/main.c");
    if (tmpl == nullptr) return absl::InternalError("runner template is not embedded");
    // @UPPER@ spells macros (NAME_INPUT_COUNT), @NAME@ symbols (NAME_run).
    return absl::StrReplaceAll(tmpl->contents, {{"@UPPER@", upper_}, {"@NAME@", name_}});
  }

  absl::Status AddRuntimeSources(std::vector<BundleFile>* files) {
    std::set<std::string> sources;
    for (const std::string& symbol : kernels_) {
      const vm::KernelInfo* kernel = vm::FindKernel(symbol);
      if (kernel == nullptr) return absl::InternalError("unknown kernel " + symbol);
      for (absl::string_view source : absl::StrSplit(kernel->sources, ' ', absl::SkipEmpty()))
        sources.insert(absl::StrCat("runtime/kernels/", source));
    }
    const std::string prefix_header = "runtime/include/kiln/symbol_prefix.h";
    for (size_t i = 0; i < kEmbeddedFileCount; ++i) {
      std::string path = kEmbeddedFiles[i].path;
      bool header = absl::StartsWith(path, "runtime/") &&
                    (absl::EndsWith(path, ".h") || absl::EndsWith(path, ".def"));
      if (path == prefix_header && options_.prefix_kernel_symbols) {
        files->push_back({path, EmitSymbolPrefixHeader(name_)});
      } else if (header || sources.count(path)) {
        files->push_back({path, kEmbeddedFiles[i].contents});
        if (!header) runtime_sources_.push_back(path);
      }
    }
    if (runtime_sources_.size() != sources.size()) {
      return absl::InternalError("a kernel source is missing from the embedded runtime");
    }
    return absl::OkStatus();
  }

  // Startup code and linker script for a Cortex-M board.
  absl::Status AddTargetFiles(std::vector<BundleFile>* files) const {
    if (!IsCortexM(options_.target)) return absl::OkStatus();
    const std::string dir = "aot/templates/cortex_m/";
    for (size_t i = 0; i < kEmbeddedFileCount; ++i) {
      const std::string path = kEmbeddedFiles[i].path;
      if (!absl::StartsWith(path, dir) || absl::EndsWith(path, "Makefile.in")) continue;
      files->push_back({path.substr(dir.size()),
                        absl::StrReplaceAll(kEmbeddedFiles[i].contents, {{"@NAME@", name_}})});
    }
    return absl::OkStatus();
  }

  std::string Readme() const {
    ReadmeFacts f;
    f.name = name_;
    f.origin = image_.origin();
    f.options = options_;
    f.workspace_bytes = m_.memory()->arena_size();
    if (symbolic_) {
      for (const auto* s : *m_.symbols()) f.symbols.push_back(s->str());
      f.workspace_formula = WorkspaceFormula(m_);
    }
    f.workspace_alignment = WorkspaceAlignment();
    f.grows = grows_;
    f.run_args = RunArgs();
    f.weights_bytes = WeightsBytes();
    f.weights_alignment = kWeightsAlignment;
    for (const fb::TensorDesc* t : *m_.signature()->inputs()) {
      f.inputs.push_back({t->name() ? t->name()->str() : "", DTypeName(t->dtype()), SymbolicShapeText(*t)});
    }
    for (const fb::TensorDesc* t : *m_.signature()->outputs()) {
      f.outputs.push_back({t->name() ? t->name()->str() : "", DTypeName(t->dtype()), SymbolicShapeText(*t)});
    }
    return EmitReadme(f);
  }

  const fb::Module& m_;
  const vm::ModuleImage& image_;
  const AotOptions options_;
  std::string name_;
  std::string upper_;
  const bool symbolic_;  // the module has symbolic dimensions
  const bool grows_;     // the run finds sizes without a bound (GrowsDuringRun)
  // It has integer registers: symbols, or lengths kernels report (ILOAD).
  const bool dynamic_;
  // The entry's first ILOAD (its end when none): integer instructions before
  // it run in NAME_shapes(), the others where they stand.
  const uint32_t first_load_;
  std::set<std::string> kernels_;
  std::vector<std::string> runtime_sources_;
};

}  // namespace

bool IsCIdentifier(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

absl::StatusOr<std::vector<BundleFile>> EmitBundle(const vm::ModuleImage& image,
                                                   const AotOptions& options) {
  if (!IsCIdentifier(options.name)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--name '", options.name, "' is not a C identifier"));
  }
  return Emitter(image, options).Run();
}

}  // namespace kiln::aot
