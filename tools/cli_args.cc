#include "tools/cli_args.h"

#include "absl/strings/str_cat.h"

namespace kiln::tools {

std::string CliArgs::Get(const std::string& option, const std::string& fallback) const {
  auto it = values.find(option);
  return it == values.end() || it->second.empty() ? fallback : it->second.back();
}

const std::vector<std::string>& CliArgs::All(const std::string& option) const {
  static const std::vector<std::string> kNone;
  auto it = values.find(option);
  return it == values.end() ? kNone : it->second;
}

absl::StatusOr<CliArgs> ParseCli(const std::vector<std::string>& argv, const CliSpec& spec) {
  CliArgs args;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == "--help" || a == "-h") {
      args.help = true;
    } else if (spec.flags.count(a)) {
      args.flags.insert(a);
    } else if (spec.valued.count(a)) {
      if (i + 1 >= argv.size()) return absl::InvalidArgumentError(absl::StrCat(a, " needs a value"));
      args.values[a].push_back(argv[++i]);
    } else if (a.size() > 2 && a[0] == '-' && a.find('=') != std::string::npos &&
               spec.valued.count(a.substr(0, a.find('=')))) {
      args.values[a.substr(0, a.find('='))].push_back(a.substr(a.find('=') + 1));
    } else if (!a.empty() && a[0] == '-' && a != "-") {
      return absl::InvalidArgumentError(absl::StrCat("unknown option '", a, "'"));
    } else {
      args.positional.push_back(a);
    }
  }
  return args;
}

}  // namespace kiln::tools
