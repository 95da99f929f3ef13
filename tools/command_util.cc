#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "tools/commands.h"

namespace kiln::tools {

int ReportError(const std::string& command, const std::string& message) {
  std::fprintf(stderr, "kiln %s: error: %s\n", command.c_str(), message.c_str());
  return 1;
}

absl::Status WriteFileAtomically(const std::string& path, const std::string& bytes) {
  const std::string temp = absl::StrCat(path, ".kiln-tmp-", ::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) return absl::InvalidArgumentError(absl::StrCat("cannot write '", path, "'"));
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
      std::remove(temp.c_str());
      return absl::DataLossError(absl::StrCat("short write to '", path, "'"));
    }
  }
  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    std::remove(temp.c_str());
    return absl::DataLossError(absl::StrCat("cannot rename into '", path, "': ", ec.message()));
  }
  return absl::OkStatus();
}

}  // namespace kiln::tools
