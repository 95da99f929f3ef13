// A small command-line parser for the kiln subcommands: positional arguments,
// `--name VALUE` options (repeatable) and boolean `--flag`s.
#ifndef KILN_TOOLS_CLI_ARGS_H_
#define KILN_TOOLS_CLI_ARGS_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace kiln::tools {

struct CliSpec {
  std::set<std::string> valued;  // options that take a value, e.g. "-o", "--input"
  std::set<std::string> flags;   // boolean flags, e.g. "--print-ir"
};

struct CliArgs {
  std::vector<std::string> positional;
  std::map<std::string, std::vector<std::string>> values;
  std::set<std::string> flags;
  bool help = false;

  bool Has(const std::string& option) const { return values.count(option) != 0; }
  // The last value given for `option`, or `fallback`.
  std::string Get(const std::string& option, const std::string& fallback = "") const;
  const std::vector<std::string>& All(const std::string& option) const;
};

absl::StatusOr<CliArgs> ParseCli(const std::vector<std::string>& argv, const CliSpec& spec);

}  // namespace kiln::tools

#endif  // KILN_TOOLS_CLI_ARGS_H_
