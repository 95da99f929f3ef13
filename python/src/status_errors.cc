#include "status_errors.h"

#include <exception>

#include "text.h"

namespace kiln::python {
namespace py = pybind11;
namespace {

// Status code name ("INVALID_ARGUMENT", "NON_FINITE"; "*" for any other)
// -> Python class. Never
// freed: the interpreter may tear modules down in any order at exit.
py::dict& ErrorClasses() {
  static py::dict* classes = new py::dict();
  return *classes;
}

void Raise(const std::string& code, const std::string& message) {
  py::dict& classes = ErrorClasses();
  PyObject* type = PyExc_RuntimeError;
  py::str key(code), fallback("*");
  if (classes.contains(key)) {
    type = classes[key].ptr();
  } else if (classes.contains(fallback)) {
    type = classes[fallback].ptr();
  }
  PyErr_SetObject(type, Text(message).ptr());
}

}  // namespace

void RegisterStatusErrors(py::module_& m) {
  m.def("_set_error_classes", [](py::dict classes) { ErrorClasses() = std::move(classes); },
        "Registers the Python exception class for each status code name.");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const StatusError& e) {
      Raise(absl::StatusCodeToString(e.status().code()), std::string(e.status().message()));
    } catch (const NonFiniteError& e) {
      Raise("NON_FINITE", e.what());
    }
  });
}

}  // namespace kiln::python
