#include "aot/readme_emitter.h"

#include <cctype>

#include "absl/strings/str_cat.h"

namespace kiln::aot {
namespace {

void AppendTensors(std::string* md, const char* title, const std::vector<ReadmeTensor>& list) {
  absl::StrAppend(md, "| ", title, " | name | dtype | shape |\n|---|---|---|---|\n");
  for (size_t i = 0; i < list.size(); ++i) {
    absl::StrAppend(md, "| ", i, " | `", list[i].name, "` | ", list[i].dtype, " | ", list[i].shape,
                    " |\n");
  }
  absl::StrAppend(md, "\n");
}

}  // namespace

std::string EmitReadme(const ReadmeFacts& f) {
  const std::string& n = f.name;
  std::string u = n;  // macros are upper case
  for (char& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const bool ext = f.options.external_weights;
  const std::string weights_arg = ext ? ", weights" : "";
  std::string md = absl::StrCat(
      "# ", n, ": ", f.origin, " compiled by kiln aot\n\n", "Target: `",
      TargetName(f.options.target), "`.\n\n", "## Calling the model\n\n", "```c\n#include \"", n,
      ".h\"\n\n", "int ", n, "_run(inputs, outputs, workspace", weights_arg, ");\n", "int ", n,
      "_run_with_host(inputs, outputs, workspace", weights_arg, ", host);\n",
      "const kiln_model_info* ", n, "_metadata(void);\n```\n\n");
  absl::StrAppend(
      &md, "- `inputs[i]` / `outputs[i]` point to dense C-order buffers, in the order below.\n",
      "- `workspace` is ", f.workspace_bytes, " bytes (`", u,
      "_WORKSPACE_SIZE`) that the caller owns, aligned to ", f.workspace_alignment,
      " bytes; scratch between calls.\n");
  if (ext) {
    absl::StrAppend(&md, "- `weights` points to the ", f.weights_bytes, " bytes of `", n,
                    "_weights.bin` (`", u, "_WEIGHTS_SIZE`), unchanged, aligned to ",
                    f.weights_alignment, " bytes (`", u,
                    "_WEIGHTS_ALIGNMENT`); they may live in read-only memory (flash).\n");
  } else {
    absl::StrAppend(&md, "- The ", f.weights_bytes, " bytes of weights are compiled in (`", n,
                    "_weights.c`, read-only data).\n");
  }
  absl::StrAppend(
      &md, "- Returns 0, `KILN_ERR_ALIGNMENT` (4) for a NULL or under-aligned workspace",
      ext ? " or weights" : "", ", or the first failing kernel's code (kiln/kernel_abi.h).\n",
      "- Nothing is allocated and no state is kept outside the workspace; several models\n"
      "  link into one program because every global symbol starts with `",
      n, "_`.\n\n");
  AppendTensors(&md, "input", f.inputs);
  AppendTensors(&md, "output", f.outputs);
  absl::StrAppend(
      &md, "## Size\n\n", kSizeReportMarker, "\n\n## Files\n\n", "- `", n, ".h`, `", n,
      ".c`: the interface and the scheduling code\n",
      ext ? absl::StrCat("- `", n, "_weights.bin`: the weights, loaded by the caller\n")
          : absl::StrCat("- `", n, "_weights.c`: the weights\n"),
      "- `runtime/`: the kernels the model calls (C11; `<stdint.h>`, `<stddef.h>`,\n"
      "  `<string.h>`, `<math.h>` only)\n",
      "- `", n,
      "_main.c`: a runner reading and writing `.npy` files, the only file\n"
      "  that touches files\n",
      "- `Makefile`: `make` builds the ", IsCortexM(f.options.target) ? "firmware" : "runner",
      "; `make lib`, `make size`",
      IsCortexM(f.options.target) ? ", `make qemu INPUT=in.npy OUTPUT=out.npy`" : ", `make shared`",
      "\n");
  return md;
}

}  // namespace kiln::aot
