// kernel_path_flags PATH: prints the C compiler flags that build an AOT
// bundle for the SIMD kernel path PATH (vm::KernelPathCompileFlags, the flags
// the VM's copy of that path was compiled with) when this machine runs PATH;
// PATH auto is the VM's own choice (KILN_ISA, else the widest path).
// Otherwise it prints why not and exits 77, the SKIP_RETURN_CODE of the
// per-path tests, so a path the CPU lacks is skipped, never passed.
#include <iostream>
#include <string>

#include "vm/kernel_paths.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: kernel_path_flags PATH   (auto, portable, avx2, avx512 or neon)\n";
    return 2;
  }
  const std::string name = argv[1];
  bool known = name == "auto";
  for (int k = 0; k < kiln::vm::kKernelPathCount; ++k) {
    known = known || name == kiln::vm::KernelPathName(static_cast<kiln::vm::KernelPath>(k));
  }
  if (!known) {  // a misspelt path is an error, not a skip
    std::cerr << "kernel_path_flags: unknown path '" << name
              << "' (expected auto, portable, avx2, avx512 or neon)\n";
    return 2;
  }
  const absl::StatusOr<kiln::vm::KernelPath> path = kiln::vm::ChooseKernelPath(name);
  if (!path.ok()) {
    std::cout << "skipped: " << path.status().message() << "\n";
    return 77;
  }
  std::cout << kiln::vm::KernelPathCompileFlags(*path) << "\n";
  return 0;
}
