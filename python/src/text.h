// Module strings (names, node labels, messages quoting them) as Python str.
// A module that verifies may still hold names that are not UTF-8; they come
// out with the bad bytes escaped (\xNN) rather than as a UnicodeDecodeError.
#ifndef KILN_PYTHON_TEXT_H_
#define KILN_PYTHON_TEXT_H_

#include <string>
#include <vector>

#include <pybind11/pybind11.h>

namespace kiln::python {

inline pybind11::str Text(const std::string& s) {
  PyObject* o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "backslashreplace");
  if (o == nullptr) throw pybind11::error_already_set();
  return pybind11::reinterpret_steal<pybind11::str>(o);
}

inline pybind11::list TextList(const std::vector<std::string>& strings) {
  pybind11::list out;
  for (const std::string& s : strings) out.append(Text(s));
  return out;
}

}  // namespace kiln::python

#endif  // KILN_PYTHON_TEXT_H_
