#include "aot/growing_interface.h"

#include "absl/strings/str_cat.h"

namespace kiln::aot {

std::string GrowingHeaderComment(const std::string& name, const std::string& upper,
                                 bool symbolic) {
  return absl::StrCat(
      "/* Sizes found during the run (", upper, "_GROWS): some output or workspace size\n"
      " * depends on input data with no bound the compiler could give (a\n"
      " * ConstantOfShape's shape, a Resize's scales, ...), so ", name, "_run also takes\n"
      " *   output_bytes[i]  the bytes of caller memory at outputs[i];\n"
      " *   workspace_bytes  the bytes at workspace;\n"
      " *   shortfall        where a run says what it needs.\n"
      " * A run that finds a buffer too small returns KILN_ERR_BUFFER_TOO_SMALL\n"
      " * before writing past it, with shortfall->output the output's index (-1 for\n"
      " * the workspace) and shortfall->bytes the bytes it needs at least: grow that\n"
      " * buffer and run again with the same inputs (", name, "_main.c shows the loop).\n"
      " * Start from ",
      symbolic ? absl::StrCat(name, "_output_dims' bytes (a dim the run finds counts 0)\n * and ",
                              name, "_workspace_size()")
               : absl::StrCat("the outputs' _STATIC_BYTES (a dim the run finds counts 1)\n * and ",
                              upper, "_WORKSPACE_SIZE"),
      ", or anything larger. After a run that returned 0,\n"
      " * ", name, "_output_shape(workspace, k, dims, &bytes) gives output k's dims.\n"
      " * output_bytes and shortfall must not be NULL (KILN_ERR_INVALID_ARGUMENT). */\n");
}

std::string GrowingReadme(const std::string& name, const std::string& upper, bool symbolic) {
  return absl::StrCat(
      "- Some sizes are found during the run, with no bound (`", upper,
      "_GROWS` is 1): `output_bytes[i]` gives the bytes at `outputs[i]` and `workspace_bytes` "
      "the workspace's. A run that finds one too small returns `KILN_ERR_BUFFER_TOO_SMALL` "
      "(11) without writing past it, and `*shortfall` names the buffer (`output`, -1 for the "
      "workspace) and the bytes it needs: grow it and run again (`",
      name, "_main.c` does). Start from ",
      symbolic ? absl::StrCat("`", name, "_output_dims()` and `", name, "_workspace_size()`")
               : absl::StrCat("the outputs' `_STATIC_BYTES` and `", upper, "_WORKSPACE_SIZE`"),
      "; after a run, `", name, "_output_shape()` gives each output's dims.\n");
}

}  // namespace kiln::aot
