#include "vm/kernel_paths.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kiln::vm {
namespace {

constexpr KernelPath kAllPaths[] = {KernelPath::kPortable, KernelPath::kAvx2, KernelPath::kAvx512,
                                    KernelPath::kNeon};

bool CpuRuns(KernelPath path) {
  switch (path) {
    case KernelPath::kPortable:
      return true;
#if defined(__x86_64__) || defined(__i386__)
    case KernelPath::kAvx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case KernelPath::kAvx512:
      return CpuRuns(KernelPath::kAvx2) && __builtin_cpu_supports("avx512f") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512dq");
#endif
#if defined(__aarch64__)
    case KernelPath::kNeon:
      return true;  // part of the AArch64 base ISA
#endif
    default:
      return false;
  }
}

}  // namespace

const char* KernelPathName(KernelPath path) {
  switch (path) {
    case KernelPath::kPortable: return "portable";
    case KernelPath::kAvx2: return "avx2";
    case KernelPath::kAvx512: return "avx512";
    case KernelPath::kNeon: return "neon";
  }
  return "unknown";
}

const char* KernelPathDescription(KernelPath path) {
  switch (path) {
    case KernelPath::kPortable: return "portable C, compiled for the base ISA";
    case KernelPath::kAvx2: return "AVX2 + FMA";
    case KernelPath::kAvx512: return "AVX-512 (F, VL, BW, DQ) + AVX2 + FMA";
    case KernelPath::kNeon: return "AArch64 NEON";
  }
  return "unknown";
}

// From runtime/CMakeLists.txt (KILN_PATH_FLAGS_<path>), the one list.
const char* KernelPathCompileFlags(KernelPath path) {
  switch (path) {
    case KernelPath::kPortable: return KILN_PATH_FLAGS_PORTABLE;
    case KernelPath::kAvx2: return KILN_PATH_FLAGS_AVX2;
    case KernelPath::kAvx512: return KILN_PATH_FLAGS_AVX512;
    case KernelPath::kNeon: return KILN_PATH_FLAGS_NEON;
  }
  return "";
}

bool KernelPathBuilt(KernelPath path) {
  switch (path) {
#ifdef KILN_VM_PATH_PORTABLE
    case KernelPath::kPortable: return true;
#endif
#ifdef KILN_VM_PATH_AVX2
    case KernelPath::kAvx2: return true;
#endif
#ifdef KILN_VM_PATH_AVX512
    case KernelPath::kAvx512: return true;
#endif
#ifdef KILN_VM_PATH_NEON
    case KernelPath::kNeon: return true;
#endif
    default: return false;
  }
}

bool KernelPathRunnable(KernelPath path) { return KernelPathBuilt(path) && CpuRuns(path); }

KernelPath WidestKernelPath() {
  static const KernelPath widest = [] {
    KernelPath best = KernelPath::kPortable;
    for (KernelPath path : kAllPaths) {
      if (KernelPathRunnable(path)) best = path;
    }
    return best;
  }();
  return widest;
}

std::string RunnableKernelPaths() {
  std::vector<std::string> names;
  for (KernelPath path : kAllPaths) {
    if (KernelPathRunnable(path)) names.push_back(KernelPathName(path));
  }
  return absl::StrJoin(names, ", ");
}

bool KernelPathNamed(std::string_view name) {
  if (!name.empty() && name != "auto") return true;
  const char* env = std::getenv("KILN_ISA");
  return env != nullptr && *env != '\0' && std::string_view(env) != "auto";
}

absl::StatusOr<KernelPath> ChooseKernelPath(std::string_view requested) {
  std::string name(requested);
  std::string source;
  if (name.empty() || name == "auto") {
    const char* env = std::getenv("KILN_ISA");
    if (env == nullptr || *env == '\0' || std::string_view(env) == "auto") {
      return WidestKernelPath();
    }
    name = env;
    source = " (from the KILN_ISA environment variable)";
  }
  for (KernelPath path : kAllPaths) {
    if (name != KernelPathName(path)) continue;
    if (!KernelPathBuilt(path)) {
      return absl::InvalidArgumentError(
          absl::StrCat("kernel path '", name, "'", source,
                       " is not built into this VM (this machine runs: ", RunnableKernelPaths(),
                       ")"));
    }
    if (!CpuRuns(path)) {
      return absl::InvalidArgumentError(
          absl::StrCat("kernel path '", name, "'", source, " needs ", KernelPathDescription(path),
                       ", which this CPU lacks (it runs: ", RunnableKernelPaths(), ")"));
    }
    return path;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown kernel path '", name, "'", source,
      "; expected auto, portable, avx2, avx512 or neon (this machine runs: ",
      RunnableKernelPaths(), ")"));
}

}  // namespace kiln::vm
