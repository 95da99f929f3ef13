#include "tools/ort_reference.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "aot/shell.h"
#include "compiler/frontend/onnx_model_file.h"
#include "tools/commands.h"

#ifndef KILN_SOURCE_DIR
#define KILN_SOURCE_DIR ""
#endif

namespace kiln::tools {
namespace {

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// Removes the scratch directory however the comparison ends.
class ScratchDir {
 public:
  ScratchDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = absl::StrCat(tmp != nullptr && *tmp ? tmp : "/tmp", "/kiln-ort-XXXXXX");
    if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The last lines of a log, for an error message.
std::string Tail(const std::string& text, size_t lines) {
  std::vector<std::string> all = absl::StrSplit(text, '\n', absl::SkipEmpty());
  if (all.size() > lines) all.erase(all.begin(), all.end() - static_cast<long>(lines));
  std::string out;
  for (const std::string& l : all) absl::StrAppend(&out, "\n  ", l);
  return out;
}

}  // namespace

absl::StatusOr<std::string> OrtCommand(const std::string& explicit_command) {
  if (!explicit_command.empty()) return explicit_command;
  const char* env = std::getenv("KILN_ORT_CMD");
  if (env != nullptr && *env) return std::string(env);
  const std::string dir = absl::StrCat(KILN_SOURCE_DIR, "/benchmarks/models/ort");
  if (*KILN_SOURCE_DIR && Exists(dir + "/node_modules/onnxruntime-node/package.json")) {
    return absl::StrCat("node ", aot::ShellQuote(dir + "/ort_run.js"));
  }
  return absl::FailedPreconditionError(
      "ONNX Runtime is not set up: install it with benchmarks/models/ort/install.sh (npm "
      "onnxruntime-node), or name the command with --ort-cmd 'node PATH/ort_run.js' or "
      "KILN_ORT_CMD");
}

absl::Status RunOrtReference(const std::string& onnx_path, const std::string& command,
                             const fb::Signature& sig, const std::vector<vm::NpyArray>& inputs,
                             OrtValues* out) {
  auto bytes = compiler::ReadOnnxFile(onnx_path);
  if (!bytes.ok()) return bytes.status();
  auto model = compiler::ParseOnnxModel(*bytes, onnx_path);
  if (!model.ok()) return model.status();

  // Every value a main-graph node computes becomes an output (untyped: ONNX
  // Runtime infers the type), in node order; the model's own outputs stay first.
  onnx::GraphProto* graph = model->mutable_graph();
  std::set<std::string> is_output;
  std::vector<std::string> names;
  for (const onnx::ValueInfoProto& o : graph->output()) {
    is_output.insert(o.name());
    names.push_back(o.name());
  }
  std::vector<std::pair<std::string, std::string>> computed;  // value, "node 'N' (Op)"
  for (const onnx::NodeProto& node : graph->node()) {
    for (const std::string& v : node.output()) {
      if (v.empty()) continue;
      computed.emplace_back(v, absl::StrCat("ONNX Runtime, node '", node.name(), "' (",
                                            node.op_type(), ")"));
      if (is_output.insert(v).second) {
        graph->add_output()->set_name(v);
        names.push_back(v);
      }
    }
  }

  ScratchDir scratch;
  if (scratch.path().empty()) return absl::InternalError("cannot create a scratch directory");
  const std::string dir = scratch.path();
  if (absl::Status s = WriteFileAtomically(dir + "/model.onnx", model->SerializeAsString());
      !s.ok()) {
    return s;
  }
  std::string cmd = absl::StrCat(command, " ", aot::ShellQuote(dir + "/model.onnx"));
  int files = 0;
  auto add_input = [&](const std::string& name, const vm::NpyArray& array) -> absl::Status {
    const std::string file = absl::StrCat(dir, "/input", files++, ".npy");
    if (absl::Status s = vm::WriteNpy(file, array); !s.ok()) return s;
    absl::StrAppend(&cmd, " --input ", aot::ShellQuote(absl::StrCat(name, "=", file)));
    return absl::OkStatus();
  };
  const auto* sig_inputs = sig.inputs();
  const size_t input_count = sig_inputs ? sig_inputs->size() : 0;
  if (inputs.size() != input_count) {
    return absl::InternalError("the inputs do not match the module's signature");
  }
  for (size_t k = 0; k < input_count; ++k) {
    if (absl::Status s = add_input(sig_inputs->Get(k)->name()->str(), inputs[k]); !s.ok()) {
      return s;
    }
  }
  if (sig.bound_inputs()) {
    for (const fb::BoundInput* b : *sig.bound_inputs()) {
      vm::NpyArray value;
      value.dtype = b->desc()->dtype();
      if (b->desc()->shape()) value.shape.assign(b->desc()->shape()->begin(), b->desc()->shape()->end());
      if (b->value()) value.data.assign(b->value()->begin(), b->value()->end());
      if (absl::Status s = add_input(b->desc()->name()->str(), value); !s.ok()) return s;
    }
  }
  absl::StrAppend(&cmd, " --output-dir ", aot::ShellQuote(dir + "/values"), " 2>&1");
  std::string log;
  if (aot::RunShell(cmd, &log) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("ONNX Runtime did not run '", onnx_path, "' (", command, "):", Tail(log, 6)));
  }

  // K.npy is output K; a type .npy cannot hold (or Kiln's reader does not)
  // has none.
  std::map<std::string, size_t> array_of;
  for (size_t k = 0; k < names.size(); ++k) {
    const std::string file = absl::StrCat(dir, "/values/", k, ".npy");
    if (!Exists(file)) continue;
    auto array = vm::ReadNpy(file);
    if (!array.ok()) continue;
    array_of[names[k]] = out->arrays.size();
    out->arrays.push_back(std::move(*array));
  }
  for (const auto& [value, where] : computed) {
    auto it = array_of.find(value);
    if (it == array_of.end()) continue;
    const vm::NpyArray& a = out->arrays[it->second];
    out->values.push_back({value, a.dtype, a.shape, &a.data, where});
  }
  return absl::OkStatus();
}

}  // namespace kiln::tools
