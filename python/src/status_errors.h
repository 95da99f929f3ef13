// absl::Status → Python exceptions. C++ code throws StatusError; the
// translator registered by RegisterStatusErrors raises the kiln.* class the
// pure-Python part registered for that status code (kiln/errors.py), with
// the status message: the text the kiln CLI prints after "error: ".
#ifndef KILN_PYTHON_STATUS_ERRORS_H_
#define KILN_PYTHON_STATUS_ERRORS_H_

#include <stdexcept>
#include <string>
#include <utility>

#include <pybind11/pybind11.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace kiln::python {

class StatusError : public std::runtime_error {
 public:
  explicit StatusError(absl::Status status)
      : std::runtime_error(std::string(status.message())), status_(std::move(status)) {}
  const absl::Status& status() const { return status_; }

 private:
  absl::Status status_;
};

// --check-nan found a NaN or Inf: kiln.NumericsError.
class NonFiniteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline void ThrowIfError(const absl::Status& status) {
  if (!status.ok()) throw StatusError(status);
}

template <typename T>
T ValueOrThrow(absl::StatusOr<T> value) {
  if (!value.ok()) throw StatusError(value.status());
  return *std::move(value);
}

// Adds `_set_error_classes(dict)` to `m` and the exception translator.
void RegisterStatusErrors(pybind11::module_& m);

}  // namespace kiln::python

#endif  // KILN_PYTHON_STATUS_ERRORS_H_
