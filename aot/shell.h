// Running the toolchain from kiln aot and kiln bench (make, size, nm).
#ifndef KILN_AOT_SHELL_H_
#define KILN_AOT_SHELL_H_

#include <string>

namespace kiln::aot {

// `s` as one single-quoted shell word.
std::string ShellQuote(const std::string& s);

// Runs `cmd` with /bin/sh, appending its stdout to *out; returns the exit
// status (-1 when it could not run or was killed).
int RunShell(const std::string& cmd, std::string* out);

}  // namespace kiln::aot

#endif  // KILN_AOT_SHELL_H_
