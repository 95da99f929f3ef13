#include "aot/c_text.h"

#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"

namespace kiln::aot {

std::string CString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20 || c == '?') {
      out += absl::StrFormat("\\%03o", static_cast<unsigned char>(c));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string CommentSafe(const std::string& s) { return absl::StrReplaceAll(s, {{"*/", "* /"}}); }

}  // namespace kiln::aot
