#include "aot/bundle_writer.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"

namespace kiln::aot {

namespace fs = std::filesystem;

namespace {
constexpr char kBundleMarker[] = ".kiln_bundle";
}  // namespace

absl::Status WriteBundle(const std::string& dir, const std::vector<BundleFile>& files,
                         const BundleFinalizer& finalize) {
  std::error_code ec;
  fs::path target = fs::path(dir).lexically_normal();
  if (target.filename().empty()) target = target.parent_path();
  fs::path staging = target;
  staging += absl::StrCat(".kiln-tmp-", ::getpid());
  fs::remove_all(staging, ec);
  std::vector<BundleFile> all = files;
  all.push_back({kBundleMarker, "This directory was written by kiln aot and is replaced by it.\n"});
  for (const BundleFile& file : all) {
    fs::path path = staging / file.path;
    fs::create_directories(path.parent_path(), ec);
    if (ec) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot create '", path.parent_path().string(), "': ", ec.message()));
    }
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(file.contents.data(), static_cast<std::streamsize>(file.contents.size()));
    out.close();
    if (!out) {
      fs::remove_all(staging, ec);
      return absl::DataLossError(absl::StrCat("cannot write '", path.string(), "'"));
    }
  }
  if (finalize) {
    if (absl::Status s = finalize(staging.string()); !s.ok()) {
      fs::remove_all(staging, ec);
      return s;
    }
  }
  if (fs::exists(target, ec)) {
    // Only an earlier bundle (it carries the marker) or an empty directory is
    // replaced; anything else might be the user's own files.
    bool replaceable = fs::is_directory(target, ec) &&
                       (fs::is_empty(target, ec) || fs::exists(target / kBundleMarker, ec));
    if (!replaceable) {
      fs::remove_all(staging, ec);
      return absl::AlreadyExistsError(absl::StrCat(
          "'", target.string(), "' exists and is not a kiln bundle; refusing to replace it"));
    }
    fs::remove_all(target, ec);
  }
  fs::rename(staging, target, ec);
  if (ec) {
    fs::remove_all(staging, ec);
    return absl::DataLossError(absl::StrCat("cannot move the bundle into '", target.string(), "'"));
  }
  return absl::OkStatus();
}

}  // namespace kiln::aot
