// Small helpers for writing JSON by hand (traces, kiln inspect --json, bench
// reports): string escaping and numbers that stay valid JSON.
#ifndef KILN_VM_TOOLS_JSON_TEXT_H_
#define KILN_VM_TOOLS_JSON_TEXT_H_

#include <cmath>
#include <cstdio>
#include <string>

#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"

namespace kiln::vm {

// A quoted, escaped JSON string.
inline std::string JsonString(absl::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += absl::StrFormat("\\u%04x", static_cast<unsigned char>(c));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

// A JSON number (shortest round-trip-ish form), or null for NaN/Inf.
inline std::string JsonNumber(double v) {
  if (!std::isfinite(v)) return "null";
  if (v == std::floor(v) && std::fabs(v) < 1e15) return absl::StrFormat("%.0f", v);
  return absl::StrFormat("%.9g", v);
}

}  // namespace kiln::vm

#endif  // KILN_VM_TOOLS_JSON_TEXT_H_
