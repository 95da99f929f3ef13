#include "vm/tools/module_json.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "vm/bound_inputs.h"
#include "vm/bytecode.h"
#include "vm/disassembler.h"
#include "vm/dtype.h"
#include "vm/kernel_params.h"
#include "vm/module_verifier.h"
#include "vm/tools/debug_info.h"
#include "vm/tools/json_text.h"

namespace kiln::vm {
namespace {

std::string Str(const flatbuffers::String* s) { return s ? s->str() : ""; }

std::string Ints(const flatbuffers::Vector<int64_t>* v) {
  return absl::StrCat("[", v ? absl::StrJoin(*v, ",") : "", "]");
}

std::string Strings(const std::vector<std::string>& v) {
  std::vector<std::string> q;
  for (const std::string& s : v) q.push_back(JsonString(s));
  return absl::StrCat("[", absl::StrJoin(q, ","), "]");
}

std::string Tensors(const flatbuffers::Vector<flatbuffers::Offset<fb::TensorDesc>>& list) {
  std::vector<std::string> rows;
  for (const fb::TensorDesc* t : list) {
    rows.push_back(absl::StrCat("{\"name\":", JsonString(Str(t->name())), ",\"dtype\":",
                                JsonString(DTypeName(t->dtype())), ",\"shape\":", Ints(t->shape()),
                                ",\"bytes\":", TensorDescBytes(*t), "}"));
  }
  return absl::StrCat("[", absl::StrJoin(rows, ",\n    "), "]");
}

// ",\n  "bound_inputs":[...]" when the compiler bound inputs, else nothing.
std::string BoundInputs(const fb::Signature& sig) {
  if (sig.bound_inputs() == nullptr || sig.bound_inputs()->size() == 0) return "";
  std::vector<std::string> rows;
  for (const fb::BoundInput* b : *sig.bound_inputs()) {
    rows.push_back(absl::StrCat("{\"name\":", JsonString(Str(b->desc()->name())), ",\"dtype\":",
                                JsonString(DTypeName(b->desc()->dtype())), ",\"shape\":",
                                Ints(b->desc()->shape()), ",\"value\":",
                                JsonString(DescribeBoundInput(*b)), "}"));
  }
  return absl::StrCat(",\n  \"bound_inputs\":[", absl::StrJoin(rows, ",\n    "), "]");
}

}  // namespace

absl::StatusOr<std::string> DescribeModuleJson(const ModuleImage& image) {
  const fb::Module& m = image.module();
  auto dispatches = DescribeDispatches(image);
  if (!dispatches.ok()) return dispatches.status();

  std::string out = absl::StrCat(
      "{\n\"module\":", JsonString(image.origin()), ",\n\"bytes\":", image.size(),
      ",\n\"format_version\":", m.format_version(), ",\n\"producer\":", JsonString(Str(m.producer())),
      ",\n\"max_trip_count\":", m.max_trip_count(),
      ",\n\"source\":", JsonString(m.debug() ? Str(m.debug()->source()) : ""),
      ",\n\"signature\":{\"inputs\":", Tensors(*m.signature()->inputs()),
      ",\n  \"outputs\":", Tensors(*m.signature()->outputs()), BoundInputs(*m.signature()), "}");

  const fb::MemoryPlan& plan = *m.memory();
  std::vector<std::string> tensors;
  if (plan.tensors() != nullptr) {
    for (const fb::ArenaTensorDebug* t : *plan.tensors()) {
      tensors.push_back(absl::StrCat("{\"value\":", JsonString(Str(t->value())), ",\"offset\":",
                                     t->offset(), ",\"bytes\":", t->size(),
                                     ",\"first_dispatch\":", t->first_dispatch(),
                                     ",\"last_dispatch\":", t->last_dispatch(), "}"));
    }
  }
  absl::StrAppend(&out, ",\n\"memory\":{\"arena_bytes\":", plan.arena_size(),
                  ",\"alignment\":", plan.arena_alignment(),
                  ",\"live_bytes_lower_bound\":", plan.live_bytes_lower_bound(),
                  ",\"unshared_bytes\":", plan.unshared_bytes(), ",\"tensors\":[\n    ",
                  absl::StrJoin(tensors, ",\n    "), "]}");

  std::vector<std::string> execs;
  const uint32_t n_exec = m.executables() ? m.executables()->size() : 0;
  for (uint32_t i = 0; i < n_exec; ++i) {
    const fb::Executable* e = m.executables()->Get(i);
    absl::Span<const int64_t> ip = e->iparams() ? absl::MakeConstSpan(e->iparams()->data(), e->iparams()->size())
                                                : absl::Span<const int64_t>();
    absl::Span<const float> fp = e->fparams() ? absl::MakeConstSpan(e->fparams()->data(), e->fparams()->size())
                                              : absl::Span<const float>();
    std::vector<std::string> params;
    for (const auto& [name, v] : NameIParams(Str(e->kernel()), ip)) {
      params.push_back(absl::StrCat(JsonString(name), ":", v));
    }
    for (const auto& [name, v] : NameFParams(Str(e->kernel()), fp)) {
      params.push_back(absl::StrCat(JsonString(name), ":", JsonNumber(v)));
    }
    const double flops = KernelFlops(Str(e->kernel()), ip);
    execs.push_back(absl::StrCat(
        "{\"index\":", i, ",\"kernel\":", JsonString(Str(e->kernel())), ",\"params\":{",
        absl::StrJoin(params, ","), "},\"iparams\":[", absl::StrJoin(ip, ","), "],\"fparams\":[",
        absl::StrJoin(fp, ",", [](std::string* o, float f) { o->append(JsonNumber(f)); }),
        "],\"binding_bytes\":[",
        e->binding_bytes() ? absl::StrJoin(*e->binding_bytes(), ",") : "", "]",
        flops >= 0 ? absl::StrCat(",\"flops\":", JsonNumber(flops)) : "", "}"));
  }
  absl::StrAppend(&out, ",\n\"executables\":[\n  ", absl::StrJoin(execs, ",\n  "), "]");

  std::vector<std::string> consts;
  const uint32_t n_const = m.constants() ? m.constants()->size() : 0;
  for (uint32_t i = 0; i < n_const; ++i) {
    const fb::Constant* c = m.constants()->Get(i);
    consts.push_back(absl::StrCat("{\"index\":", i, ",\"name\":", JsonString(Str(c->name())),
                                  ",\"dtype\":", JsonString(DTypeName(c->dtype())),
                                  ",\"shape\":", Ints(c->shape()), ",\"offset\":", c->offset(),
                                  ",\"bytes\":", c->size(), "}"));
  }
  absl::StrAppend(&out, ",\n\"constants\":[\n  ", absl::StrJoin(consts, ",\n  "), "]");

  std::vector<std::string> ds;
  for (const DispatchInfo& d : *dispatches) {
    std::vector<std::string> values;
    for (const ValueInfo& v : d.values) {
      values.push_back(absl::StrCat("{\"name\":", JsonString(v.name), ",\"dtype\":",
                                    JsonString(DTypeName(v.dtype)), ",\"shape\":[",
                                    absl::StrJoin(v.shape, ","), "],\"binding\":", v.binding,
                                    ",\"bytes\":", v.bytes,
                                    v.channels_last ? ",\"channels_last\":true" : "",
                                    v.symbolic() ? absl::StrCat(",\"dim_registers\":[",
                                                                absl::StrJoin(v.dim_registers, ","),
                                                                "],\"dims\":",
                                                                Strings(v.dim_exprs))
                                                 : "",
                                    "}"));
    }
    ds.push_back(absl::StrCat("{\"index\":", d.index, ",\"pc\":", d.pc, ",\"executable\":",
                              d.executable, ",\"kernel\":", JsonString(d.kernel),
                              ",\"nodes\":", Strings(d.nodes), ",\"op_types\":",
                              Strings(d.op_types), ",\"values\":[", absl::StrJoin(values, ","),
                              "]}"));
  }
  absl::StrAppend(&out, ",\n\"dispatches\":[\n  ", absl::StrJoin(ds, ",\n  "), "]");

  std::vector<std::string> fns;
  for (const fb::Function* fn : *m.functions()) {
    std::vector<std::string> code;
    const uint32_t* words = fn->bytecode()->data();
    for (uint32_t pc = 0; pc < fn->bytecode()->size();) {
      code.push_back(absl::StrCat("{\"pc\":", pc, ",\"text\":",
                                  JsonString(DisassembleInstruction(words, pc)), "}"));
      pc += DecodeVerified(words, pc).length;
    }
    fns.push_back(absl::StrCat("{\"name\":", JsonString(Str(fn->name())), ",\"registers\":",
                               fn->register_count(), ",\"code\":[\n    ",
                               absl::StrJoin(code, ",\n    "), "]}"));
  }
  absl::StrAppend(&out, ",\n\"functions\":[", absl::StrJoin(fns, ",\n"), "]\n}\n");
  return out;
}

}  // namespace kiln::vm
