// The kiln subcommands. Each takes the arguments after its name and returns
// the process exit code; errors are printed to stderr as "kiln CMD: error: ...".
#ifndef KILN_TOOLS_COMMANDS_H_
#define KILN_TOOLS_COMMANDS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace kiln::tools {

int CompileCommand(const std::vector<std::string>& args);
int RunCommand(const std::vector<std::string>& args);
int AotCommand(const std::vector<std::string>& args);
int InspectCommand(const std::vector<std::string>& args);
int CompareCommand(const std::vector<std::string>& args);
int BenchCommand(const std::vector<std::string>& args);
int OpsCommand(const std::vector<std::string>& args);

// Prints "kiln CMD: error: MESSAGE" and returns the exit code for errors.
int ReportError(const std::string& command, const std::string& message);

// Writes `bytes` to `path` through a temporary file renamed on success.
absl::Status WriteFileAtomically(const std::string& path, const std::string& bytes);

}  // namespace kiln::tools

#endif  // KILN_TOOLS_COMMANDS_H_
