// Early return on an error absl::Status or absl::StatusOr, for every file of
// the compiler (one definition: the rule, lowering and pass files used to
// carry their own copies).
#ifndef KILN_COMPILER_STATUS_MACROS_H_
#define KILN_COMPILER_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

// Returns the status of `expr` from the enclosing function when it is an error.
#define KILN_RETURN_IF_ERROR(expr)                 \
  do {                                             \
    absl::Status kiln_status_ = (expr);            \
    if (!kiln_status_.ok()) return kiln_status_;   \
  } while (0)

// `lhs = *expr` when `expr` (an absl::StatusOr) holds a value; else returns
// its status from the enclosing function.
#define KILN_ASSIGN_OR_RETURN(lhs, expr) \
  KILN_ASSIGN_OR_RETURN_IMPL_(KILN_STATUS_CONCAT_(kiln_statusor_, __LINE__), lhs, expr)

#define KILN_STATUS_CONCAT_INNER_(a, b) a##b
#define KILN_STATUS_CONCAT_(a, b) KILN_STATUS_CONCAT_INNER_(a, b)
#define KILN_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return tmp.status();               \
  lhs = std::move(*tmp)

#endif  // KILN_COMPILER_STATUS_MACROS_H_
