// Text that goes into generated C: string literals and comment bodies.
#ifndef KILN_AOT_C_TEXT_H_
#define KILN_AOT_C_TEXT_H_

#include <string>

namespace kiln::aot {

// A C string literal holding `s` (quotes, backslashes, control characters and
// '?' escaped, so no trigraph can form).
std::string CString(const std::string& s);

// `s` with "*/" broken up, to keep comment text from closing the comment early.
std::string CommentSafe(const std::string& s);

}  // namespace kiln::aot

#endif  // KILN_AOT_C_TEXT_H_
