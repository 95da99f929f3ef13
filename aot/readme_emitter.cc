#include "aot/readme_emitter.h"

#include <cctype>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "aot/growing_interface.h"

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

// The calling section of a module with symbols: the symbols' values come
// with every call, and the workspace depends on them.
std::string SymbolicCalling(const ReadmeFacts& f, const std::string& u) {
  const std::string& n = f.name;
  std::vector<std::string> symbols;
  for (const std::string& s : f.symbols) symbols.push_back(absl::StrCat("`", s, "`"));
  return absl::StrCat(
      "## Calling the model\n\n", "```c\n#include \"", n, ".h\"\n\n", "int ", n,
      "_workspace_size(const int64_t* symbols, size_t* bytes);\n", "int ", n, "_run(", f.run_args,
      ");\n", "int ", n, "_run_with_host(", f.run_args, ", host);\n",
      "const kiln_model_info* ", n, "_metadata(void);\n```\n\n",
      "- The model has symbolic dimensions: ", absl::StrJoin(symbols, ", "),
      ". Every call takes their values as `int64_t symbols[", u,
      "_SYMBOL_COUNT]`, in that order (`", u,
      "_SYMBOLk_NAME`), each in 1..2^40. The shapes below name them; an input's symbolic dims "
      "must equal the values passed, and an output's shape is its shape below with the values "
      "substituted (`", u, "_INPUTi_DIM_SYMBOLS` / `", u, "_OUTPUTi_DIM_SYMBOLS` give each dim's symbol).\n",
      "- `inputs[i]` / `outputs[i]` point to dense C-order buffers, in the order below.\n",
      "- `workspace` is `", f.workspace_formula, "` bytes for given symbol values (",
      n, "_workspace_size() computes it; at least ", f.workspace_bytes, " bytes, `", u,
      "_WORKSPACE_MIN_SIZE`), owned by the caller, aligned to ", f.workspace_alignment,
      " bytes; scratch between calls. `workspace_bytes` says how large it is: a workspace "
      "too small for the symbols is refused with `KILN_ERR_OUT_OF_RANGE` (2) before anything "
      "runs, never overrun.\n");
}

}  // namespace

std::string EmitReadme(const ReadmeFacts& f) {
  const std::string& n = f.name;
  std::string u = n;  // macros are upper case
  for (char& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const bool ext = f.options.external_weights;
  std::string md = absl::StrCat("# ", n, ": ", f.origin, " compiled by kiln aot\n\n", "Target: `",
                                TargetName(f.options.target), "`.\n\n");
  if (!f.symbols.empty()) {
    absl::StrAppend(&md, SymbolicCalling(f, u));
  } else {
    absl::StrAppend(
        &md, "## Calling the model\n\n", "```c\n#include \"", n, ".h\"\n\n", "int ", n, "_run(",
        f.run_args, ");\n", "int ", n, "_run_with_host(", f.run_args, ", host);\n",
        "const kiln_model_info* ", n, "_metadata(void);\n```\n\n",
        "- `inputs[i]` / `outputs[i]` point to dense C-order buffers, in the order below.\n",
        "- `workspace` is ", f.workspace_bytes, " bytes (`", u,
        "_WORKSPACE_SIZE`", f.grows ? ", or more: see below" : "",
        ") that the caller owns, aligned to ", f.workspace_alignment,
        " bytes; scratch between calls.\n");
  }
  if (f.grows) absl::StrAppend(&md, GrowingReadme(n, u, !f.symbols.empty()));
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
      ext ? " or weights" : "",
      f.symbols.empty() ? ""
                        : ", `KILN_ERR_INVALID_ARGUMENT` (1) for NULL symbols, "
                          "`KILN_ERR_OUT_OF_RANGE` (2) for a symbol out of range or a workspace "
                          "too small",
      ", or the first failing kernel's code (kiln/kernel_abi.h).\n",
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
