// The extension module kiln._kiln: the C++ side of `import kiln`. The
// pure-Python package (python/kiln/) documents and wraps everything here.
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "absl/strings/str_cat.h"
#include "aot/target.h"
#include "arrays.h"
#include "compiler/compiler.h"
#include "py_module.h"
#include "status_errors.h"
#include "text.h"
#include "tools/aot_bundle.h"
#include "tools/commands.h"
#include "tools/module_compare.h"
#include "tools/ort_reference.h"
#include "vm/bound_inputs.h"
#include "vm/disassembler.h"
#include "vm/tools/module_json.h"

namespace kiln::python {
namespace {
namespace py = pybind11;

using InputShapes = std::map<std::string, std::vector<int64_t>>;

std::shared_ptr<PyModule> FromModuleBytes(const std::string& bytes, const std::string& origin) {
  return std::make_shared<PyModule>(
      ValueOrThrow(vm::ModuleImage::LoadBytes(bytes.data(), bytes.size(), origin)));
}

using Dims = std::map<std::string, int64_t>;
using InputValues = std::map<std::string, std::string>;

compiler::BuildOptions Options(const InputShapes& input_shapes, const Dims& dims,
                               const InputValues& input_values, bool choose_layouts) {
  compiler::BuildOptions options;
  options.input_shapes = input_shapes;
  options.dims = dims;
  options.input_values = input_values;
  options.choose_layouts = choose_layouts;
  return options;
}

std::shared_ptr<PyModule> CompileFile(const std::string& path, const InputShapes& input_shapes,
                                      const Dims& dims, const InputValues& input_values,
                                      bool choose_layouts) {
  absl::StatusOr<std::string> bytes;
  {
    py::gil_scoped_release release;
    bytes = compiler::BuildModule(path, Options(input_shapes, dims, input_values, choose_layouts));
  }
  return FromModuleBytes(ValueOrThrow(std::move(bytes)), path);
}

std::shared_ptr<PyModule> CompileBytes(const py::bytes& onnx, const std::string& origin,
                                       const InputShapes& input_shapes, const Dims& dims,
                                       const InputValues& input_values, bool choose_layouts) {
  const std::string model = onnx;
  absl::StatusOr<std::string> bytes;
  {
    py::gil_scoped_release release;
    bytes = compiler::BuildModuleFromBytes(
        model, origin, Options(input_shapes, dims, input_values, choose_layouts));
  }
  return FromModuleBytes(ValueOrThrow(std::move(bytes)), origin);
}

py::dict Aot(const PyModule& module, const std::string& dir, const std::string& name,
             const std::string& emit, const std::string& target, const std::string& weights,
             bool size_report) {
  aot::AotOptions options;
  options.name = name;
  options.target = ValueOrThrow(aot::ParseTarget(target));
  options.emit = ValueOrThrow(tools::ParseEmit(emit));
  options.external_weights = ValueOrThrow(tools::ParseExternalWeights(weights));
  absl::StatusOr<tools::AotBundleResult> result;
  {
    py::gil_scoped_release release;
    result = tools::WriteAotBundle(*module.image(), options, dir, size_report);
  }
  const tools::AotBundleResult built = ValueOrThrow(std::move(result));
  py::dict out;
  out["size_line"] = Text(built.size_line);
  out["warning"] = Text(built.warning);
  return out;
}

py::dict ComparisonDict(const tools::ModuleComparison& c) {
  py::dict out;
  out["compared"] = c.compared;
  out["only_a"] = c.only_a;
  out["only_b"] = c.only_b;
  out["skipped"] = c.skipped;
  out["differing"] = c.differing;
  out["atol"] = c.atol;
  out["rtol"] = c.rtol;
  out["report"] = Text(c.Report());
  if (c.has_first) {
    const tools::ValueDifference& f = c.first;
    py::dict first;
    first["value"] = Text(f.value);
    first["shape"] = f.shape;
    first["max_abs_diff"] = f.max_abs_diff;
    first["outside"] = f.outside;
    first["elements"] = f.elements;
    first["worst_at"] = f.worst_at;
    first["a"] = f.a;
    first["b"] = f.b;
    first["dispatch_a"] = Text(f.dispatch_a);
    first["dispatch_b"] = Text(f.dispatch_b);
    out["first"] = first;
  } else {
    out["first"] = py::none();
  }
  return out;
}

std::vector<vm::NpyArray> CompareInputs(const std::optional<std::vector<py::array>>& arrays,
                                        double atol, double rtol) {
  if (atol < 0 || rtol < 0) {
    throw StatusError(absl::InvalidArgumentError("atol and rtol must be non-negative numbers"));
  }
  std::vector<vm::NpyArray> inputs;  // empty: fixed-seed random inputs, as `kiln compare`
  if (arrays.has_value()) {
    for (const py::array& array : *arrays) inputs.push_back(NpyFromArray(array));
  }
  return inputs;
}

py::dict Compare(const PyModule& a, const PyModule& b,
                 const std::optional<std::vector<py::array>>& arrays, double atol, double rtol) {
  std::vector<vm::NpyArray> inputs = CompareInputs(arrays, atol, rtol);
  tools::ModuleComparison c;
  {
    py::gil_scoped_release release;
    tools::RecordedRun ra = ValueOrThrow(tools::RunAndRecord(a.image(), {}, &inputs));
    tools::RecordedRun rb = ValueOrThrow(tools::RunAndRecord(b.image(), {}, &inputs));
    c = tools::CompareRecordedRuns(ra, rb, atol, rtol);
  }
  return ComparisonDict(c);
}

// `kiln compare A.kiln MODEL.onnx --reference ort` (tools/ort_reference.h).
py::dict CompareOrt(const PyModule& a, const std::string& onnx_path,
                    const std::optional<std::vector<py::array>>& arrays, double atol, double rtol,
                    const std::string& ort_cmd) {
  std::vector<vm::NpyArray> inputs = CompareInputs(arrays, atol, rtol);
  tools::ModuleComparison c;
  {
    py::gil_scoped_release release;
    tools::RecordedRun ra = ValueOrThrow(tools::RunAndRecord(a.image(), {}, &inputs));
    const std::string command = ValueOrThrow(tools::OrtCommand(ort_cmd));
    tools::OrtValues ort;
    ThrowIfError(tools::RunOrtReference(onnx_path, command, *a.image()->module().signature(),
                                        inputs, &ort));
    c = tools::CompareValues(tools::ValuesOf(ra), ort.values, atol, rtol);
    c.label_a = "Kiln";
    c.label_b = "ORT";
  }
  return ComparisonDict(c);
}

// Times `NAME_run(inputs, outputs, workspace)` of an AOT library loaded with
// ctypes, in the same loop PyModule::Time runs the VM in.
std::vector<double> TimeCFunction(uintptr_t function, const std::vector<uintptr_t>& inputs,
                                  const std::vector<uintptr_t>& outputs, uintptr_t workspace,
                                  int warmup, int repeat) {
  if (function == 0) throw StatusError(absl::InvalidArgumentError("no function to time"));
  if (warmup < 0 || repeat < 1) {
    throw StatusError(absl::InvalidArgumentError("warmup must be >= 0 and repeat >= 1"));
  }
  using RunFn = int (*)(const void* const*, void* const*, void*);
  const RunFn run = reinterpret_cast<RunFn>(function);
  std::vector<const void*> in;
  for (uintptr_t p : inputs) in.push_back(reinterpret_cast<const void*>(p));
  std::vector<void*> out;
  for (uintptr_t p : outputs) out.push_back(reinterpret_cast<void*>(p));
  std::vector<double> ms;
  int rc = 0;
  {
    py::gil_scoped_release release;
    for (int k = 0; k < warmup + repeat && rc == 0; ++k) {
      const auto start = std::chrono::steady_clock::now();
      rc = run(in.data(), out.data(), reinterpret_cast<void*>(workspace));
      const auto end = std::chrono::steady_clock::now();
      if (k >= warmup) ms.push_back(std::chrono::duration<double, std::milli>(end - start).count());
    }
  }
  if (rc != 0) {
    throw StatusError(absl::InternalError(absl::StrCat("the AOT function returned error code ", rc)));
  }
  return ms;
}

}  // namespace
}  // namespace kiln::python

// At global scope: the macro defines the extern "C" PyInit__kiln.
PYBIND11_MODULE(_kiln, m) {
  namespace py = pybind11;
  using namespace kiln::python;  // NOLINT: this function only names the bindings
  m.doc() = "Kiln's compiler, VM and AOT tool (the C++ side of `import kiln`).";
  RegisterStatusErrors(m);

  py::class_<PyModule, std::shared_ptr<PyModule>>(m, "Module")
      .def_static("load", [](const std::string& path) {
        return std::make_shared<PyModule>(ValueOrThrow(kiln::vm::ModuleImage::LoadFile(path)));
      })
      .def_static("from_bytes", [](const py::bytes& bytes, const std::string& origin) {
        return FromModuleBytes(bytes, origin);
      })
      .def_property_readonly("origin", [](const PyModule& p) { return Text(p.image()->origin()); })
      .def_property_readonly("arena_bytes", [](const PyModule& p) {
        return p.image()->module().memory()->arena_size();
      })
      .def("signature", &PyModule::Signature)
      .def("bytes", [](const PyModule& p) {
        return py::bytes(reinterpret_cast<const char*>(p.image()->data()), p.image()->size());
      })
      .def("save", [](const PyModule& p, const std::string& path) {
        const std::string bytes(reinterpret_cast<const char*>(p.image()->data()), p.image()->size());
        ThrowIfError(kiln::tools::WriteFileAtomically(path, bytes));
      })
      .def("inspect", [](const PyModule& p, bool json) {
        return Text(json ? ValueOrThrow(kiln::vm::DescribeModuleJson(*p.image()))
                         : kiln::vm::DescribeModule(*p.image()));
      })
      .def("run",
           [](PyModule& p, const std::vector<py::array>& inputs, int threads, int repeat,
              bool dump, bool check_nan, bool profile, const std::string& trace) {
             RunOptions options;
             options.threads = threads;
             options.repeat = repeat;
             options.dump = dump;
             options.check_nan = check_nan;
             options.profile = profile;
             options.trace = trace;
             return p.Run(inputs, options);
           })
      .def("time", &PyModule::Time)
      .def("aot", &Aot);

  m.def("compile_file", &CompileFile);
  // Whether `name` is an input the compiler bound (--input-value); raises
  // when `array` is not its value.
  m.def("check_bound_input", [](const PyModule& module, const std::string& name,
                                const py::array& array) {
    const kiln::fb::BoundInput* bound =
        kiln::vm::FindBoundInput(*module.image()->module().signature(), name);
    if (bound == nullptr) return false;
    const kiln::vm::NpyArray given = NpyFromArray(array);
    ThrowIfError(kiln::vm::CheckBoundInputValue(*bound, given.dtype, given.shape, given.data));
    return true;
  });
  m.def("compile_bytes", &CompileBytes);
  m.def("compare", &Compare);
  m.def("compare_ort", &CompareOrt);
  m.def("time_c_function", &TimeCFunction);
}
