// The ONNX backend conformance runner. For every test directory of the chosen
// suites (Debian's libonnx-testdata): compile model.onnx, run every
// test_data_set_* in the VM and compare with the reference outputs; emit the
// AOT bundle, build all bundles in one parallel `make` against the runtime
// library built once, run each bundle's runner and compare the same way.
// Each test's compile + VM run happens in a forked child, so a crash or hang
// fails that test only. Results are checked against expectations.txt.
//
// The bundles can be built for another machine and run there through an
// emulator (--bundle-path, --cc, --run-prefix: AArch64 under qemu-aarch64,
// tests/aarch64), on a sample of the tests (--sample) and without the VM runs
// (--no-vm), which that machine does not need again.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "aot/bundle_writer.h"
#include "aot/c_emitter.h"
#include "tools/module_inputs.h"
#include "compiler/compiler.h"
#include "onnx/onnx_pb.h"
#include "tests/conformance/compare.h"
#include "tests/conformance/results.h"
#include "tests/conformance/tensor_proto.h"
#include "vm/instance.h"
#include "vm/module_image.h"
#include "vm/module_verifier.h"
#include "vm/run_growing.h"

namespace kiln::conformance {
namespace {

namespace fs = std::filesystem;

struct Options {
  std::string data_dir = "/usr/share/libonnx-testdata/data";
  std::vector<std::string> suites;
  std::string work_dir;
  std::string expectations;
  std::string report;
  std::string runtime_dir;    // holds libruntime_<path>.a, each path's kernels
  std::string runtime_lib;    // the chosen path's, and its compile flags:
  std::string bundle_cflags;  // bundles are built as for that path
  std::string bundle_path;    // --bundle-path: a path other than the VM's
  std::string cc;             // the bundles' C compiler (default: make's CC)
  std::string run_prefix;     // a command (an emulator) that runs each bundle
  std::string filter;
  int sample = 1;             // every sample-th test of each suite
  bool full_on_widest = false;  // ... unless the VM's path is the CPU's widest
  bool update = false;
  bool aot = true;
  bool vm = true;
  bool verbose = false;
  // Compile each model with its declared value_info and graph-output shapes
  // removed (in subgraphs too): what the compiler infers itself.
  bool strip_declared_shapes = false;
  int jobs = 2;
  int timeout_s = 120;
};

struct TestCase {
  std::string suite, name, dir;
  std::string work;  // this test's bundle / scratch directory
};

std::string OneLine(std::string s, size_t max = 220) {
  for (char& c : s) {
    if (c == '\n' || c == '\t' || c == '\r') c = ' ';
  }
  if (s.size() > max) s = s.substr(0, max) + "...";
  return s;
}

// Op types of the model's main graph (for the per-op report and reasons).
std::vector<std::string> ModelOps(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  onnx::ModelProto m;
  std::vector<std::string> ops;
  if (!m.ParseFromString(ss.str())) return ops;
  for (const auto& n : m.graph().node()) {
    ops.push_back(n.domain().empty() || n.domain() == "ai.onnx"
                      ? n.op_type()
                      : absl::StrCat(n.domain(), ":", n.op_type()));
  }
  return ops;
}

// The names between "(" and ")" that follow node labels in a compiler message.
std::vector<std::string> NodeOpsIn(const std::string& msg) {
  std::set<std::string> ops;
  size_t pos = 0;
  while ((pos = msg.find("' (", pos)) != std::string::npos) {
    const size_t end = msg.find(')', pos + 3);
    if (end == std::string::npos) break;
    ops.insert(msg.substr(pos + 3, end - pos - 3));
    pos = end;
  }
  return {ops.begin(), ops.end()};
}

// A precise, stable reason from a compile error.
std::string ClassifyCompileError(const TestCase& t, const std::string& raw) {
  std::string msg = raw;
  const std::string model = t.dir + "/model.onnx";
  for (size_t p; (p = msg.find(model)) != std::string::npos;) msg.replace(p, model.size(), "model");
  static const std::set<std::string> kControl = {"If", "Loop", "Scan", "SequenceMap"};
  static const std::set<std::string> kDataDependent = {"NonZero", "Unique", "Compress",
                                                       "NonMaxSuppression", "StringSplit"};
  static const std::set<std::string> kTraining = {"Gradient", "Adagrad", "Adam", "Momentum",
                                                  "ai.onnx.preview.training:Gradient",
                                                  "ai.onnx.preview.training:Adagrad",
                                                  "ai.onnx.preview.training:Adam",
                                                  "ai.onnx.preview.training:Momentum"};
  std::string prefix = absl::StrContains(t.name, "training") ? "training-only: " : "";
  if (const size_t at = msg.find("unsupported op"); at != std::string::npos) {
    // The ops named after it: the context before may name an enclosing If.
    std::vector<std::string> ops = NodeOpsIn(msg.substr(at));
    std::vector<std::string> control, dd, train, other;
    for (const std::string& op : ops) {
      if (kControl.count(op)) control.push_back(op);
      else if (kDataDependent.count(op)) dd.push_back(op);
      else if (kTraining.count(op)) train.push_back(op);
      else other.push_back(op);
    }
    if (!control.empty()) return absl::StrCat("control flow: ", absl::StrJoin(control, ", "));
    if (!train.empty()) return absl::StrCat("training-only: ", absl::StrJoin(train, ", "));
    if (!dd.empty()) return absl::StrCat("data-dependent shape: ", absl::StrJoin(dd, ", "));
    return absl::StrCat(prefix, "unsupported op: ", absl::StrJoin(other, ", "));
  }
  if (absl::StrContains(msg, "only float32 kernels exist")) {
    // "... node 'n' (Op): tensor 't' is int64; only float32 kernels exist"
    std::vector<std::string> ops = NodeOpsIn(msg);
    const size_t is = msg.find("' is ");
    std::string dtype = "?";
    if (is != std::string::npos) {
      dtype = msg.substr(is + 5, msg.find(';', is) - is - 5);
    }
    return absl::StrCat(prefix, "dtype ", dtype, " unsupported in op ",
                        ops.empty() ? "?" : ops.front());
  }
  // "node 'n' (Op): input 'x' is int64; only float32 is supported"
  if (const size_t only = msg.find("; only float32"); only != std::string::npos) {
    const size_t is = msg.rfind("' is ", only);
    std::vector<std::string> ops = NodeOpsIn(msg);
    if (is != std::string::npos && !ops.empty()) {
      return absl::StrCat(prefix, "dtype ", msg.substr(is + 5, only - is - 5),
                          " unsupported in op ", ops.front());
    }
  }
  if (const size_t p = msg.find("uses ONNX opset "); p != std::string::npos) {
    const size_t semi = msg.find(';', p);
    return absl::StrCat(prefix, "opset ", msg.substr(p + 16, semi - p - 16),
                        " unsupported (Kiln imports opsets 11-17)");
  }
  if (absl::StrContains(msg, "is not a tensor")) {
    return absl::StrCat(prefix, "sequence/optional inputs unsupported");
  }
  if (absl::StrContains(msg, "not known at compile time") ||
      absl::StrContains(msg, "must be known at compile time") ||
      absl::StrContains(msg, "must be constant")) {
    return absl::StrCat(prefix, "run-time shape/axes/attribute input: ",
                        absl::StrJoin(NodeOpsIn(msg), ", "), " (",
                        OneLine(msg.substr(msg.find("): ") == std::string::npos
                                               ? 0 : msg.find("): ") + 3), 120), ")");
  }
  if (absl::StrContains(msg, "on run-time data")) {
    return absl::StrCat(prefix, "run-time input to compile-time-only op: ",
                        absl::StrJoin(NodeOpsIn(msg), ", "));
  }
  if (absl::StrContains(msg, "has unsupported element type") ||
      absl::StrContains(msg, "unsupported element type")) {
    return absl::StrCat(prefix, "dtype unsupported: ", OneLine(msg, 160));
  }
  return absl::StrCat(prefix, "compile: ", OneLine(msg, 200));
}

// test_data_set_* directories, sorted.
std::vector<std::string> DataSets(const std::string& dir) {
  std::vector<std::string> sets;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_directory() && absl::StartsWith(e.path().filename().string(), "test_data_set_")) {
      sets.push_back(e.path().string());
    }
  }
  std::sort(sets.begin(), sets.end());
  return sets;
}

// PREFIX_0.pb, PREFIX_1.pb, ... while they exist.
std::vector<std::string> Numbered(const std::string& dir, const std::string& prefix) {
  std::vector<std::string> files;
  for (int i = 0;; ++i) {
    std::string p = absl::StrCat(dir, "/", prefix, "_", i, ".pb");
    if (!fs::exists(p)) break;
    files.push_back(p);
  }
  return files;
}

struct ChildResult {
  bool vm_pass = false;
  std::string vm_reason;
  bool aot_ready = false;  // the bundle and its data are written
  std::string aot_reason;
  int data_sets = 0;
};

// Removes the shapes a graph declares beyond its inputs': every value_info,
// and the shape of every graph output (types stay), in subgraphs as well.
void StripDeclaredShapes(onnx::GraphProto* g) {
  g->clear_value_info();
  for (onnx::ValueInfoProto& out : *g->mutable_output()) {
    if (out.type().has_tensor_type()) out.mutable_type()->mutable_tensor_type()->clear_shape();
  }
  for (onnx::NodeProto& n : *g->mutable_node()) {
    for (onnx::AttributeProto& a : *n.mutable_attribute()) {
      if (a.has_g()) StripDeclaredShapes(a.mutable_g());
      for (onnx::GraphProto& sub : *a.mutable_graphs()) StripDeclaredShapes(&sub);
    }
  }
}

absl::StatusOr<std::string> CompileTest(const TestCase& t, bool strip_declared_shapes) {
  const std::string path = t.dir + "/model.onnx";
  if (!strip_declared_shapes) return compiler::BuildModule(path, {});
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  onnx::ModelProto m;
  if (!m.ParseFromString(ss.str())) return absl::InvalidArgumentError(path + ": not an ONNX model");
  StripDeclaredShapes(m.mutable_graph());
  return compiler::BuildModuleFromBytes(m.SerializeAsString(), path, {});
}

// Everything a child does for one test: compile, VM, bundle emission.
ChildResult RunTestInProcess(const TestCase& t, bool with_vm, bool with_aot,
                             bool strip_declared_shapes) {
  ChildResult r;
  auto bytes = CompileTest(t, strip_declared_shapes);
  if (!bytes.ok()) {
    r.vm_reason = r.aot_reason = ClassifyCompileError(t, std::string(bytes.status().message()));
    return r;
  }
  auto image = vm::ModuleImage::LoadBytes(bytes->data(), bytes->size(), t.name + ".kiln");
  if (!image.ok()) {
    r.vm_reason = r.aot_reason = absl::StrCat("load: ", OneLine(std::string(image.status().message())));
    return r;
  }
  // Read every data set first: unreadable data fails VM and AOT alike.
  struct DataSet {
    std::vector<vm::NpyArray> inputs, refs;
  };
  std::vector<DataSet> sets;
  const fb::Signature& sig = *(*image)->module().signature();
  for (const std::string& sdir : DataSets(t.dir)) {
    DataSet ds;
    for (auto* list : {&ds.inputs, &ds.refs}) {
      const bool inputs = list == &ds.inputs;
      const auto* descs = inputs ? sig.inputs() : sig.outputs();
      for (const std::string& f : Numbered(sdir, inputs ? "input" : "output")) {
        auto a = ReadTensorProto(f);
        if (!a.ok()) {
          r.vm_reason = r.aot_reason = std::string(a.status().message());
          return r;
        }
        // ONNX 1.12 wrote its bfloat16 test tensors as UINT16 holding the
        // bfloat16 bits: read them as the type the model declares.
        const size_t k = list->size();
        if (a->dtype == fb::DType::U16 && k < descs->size() &&
            descs->Get(static_cast<flatbuffers::uoffset_t>(k))->dtype() == fb::DType::BF16) {
          a->dtype = fb::DType::BF16;
        }
        list->push_back(std::move(*a));
      }
    }
    if (ds.inputs.size() != sig.inputs()->size() || ds.refs.size() != sig.outputs()->size()) {
      r.vm_reason = r.aot_reason = absl::StrCat(
          "signature: data has ", ds.inputs.size(), " inputs / ", ds.refs.size(),
          " outputs, the module ", sig.inputs()->size(), " / ", sig.outputs()->size());
      return r;
    }
    sets.push_back(std::move(ds));
  }
  r.data_sets = static_cast<int>(sets.size());
  if (sets.empty()) {
    r.vm_reason = r.aot_reason = "no test data sets";
    return r;
  }

  // VM.
  if (!with_vm) {
    r.vm_reason = "not run (--no-vm)";
  } else if (auto instance = vm::Instance::Create(*image); !instance.ok()) {
    r.vm_reason = absl::StrCat("instance: ", OneLine(std::string(instance.status().message())));
  } else {
    r.vm_pass = true;
    for (size_t s = 0; s < sets.size() && r.vm_pass; ++s) {
      std::vector<vm::HostTensor> in, out;
      for (const vm::NpyArray& a : sets[s].inputs) {
        // An empty tensor still needs a non-null buffer for the VM's checks.
        static uint8_t empty_buffer[8];
        uint8_t* p = a.data.empty() ? empty_buffer : const_cast<uint8_t*>(a.data.data());
        in.push_back({a.dtype, a.shape, p, a.data.size()});
      }
      std::vector<vm::NpyArray> got(sig.outputs()->size());
      for (uint32_t i = 0; i < got.size(); ++i) {
        const fb::TensorDesc* d = sig.outputs()->Get(i);
        got[i].dtype = d->dtype();
        got[i].shape.assign(d->shape()->begin(), d->shape()->end());
        // A byte pattern no reference is likely to hold: unwritten outputs fail.
        got[i].data.assign(vm::TensorDescBytes(*d), 0xA5);
        static uint8_t empty_out[8];
        out.push_back({got[i].dtype, got[i].shape,
                       got[i].data.empty() ? empty_out : got[i].data.data(), got[i].data.size()});
      }
      // Sizes found during the run without a bound grow these buffers.
      absl::Status st = vm::RunGrowing(**instance, in, absl::MakeSpan(out),
                                       [&](size_t k, uint64_t bytes) -> void* {
                                         got[k].data.assign(bytes, 0xA5);
                                         return got[k].data.data();
                                       });
      if (!st.ok()) {
        r.vm_pass = false;
        r.vm_reason = absl::StrCat("run: ", OneLine(std::string(st.message())));
        break;
      }
      for (size_t i = 0; i < got.size(); ++i) {
        // A length known only after the run shrinks the bound-sized buffer.
        tools::ShapeAfterRun(**instance, i, &got[i]);
        std::string why = CompareTensors(got[i], sets[s].refs[i]);
        if (!why.empty()) {
          r.vm_pass = false;
          r.vm_reason = absl::StrCat(absl::StartsWith(why, "numerics") ? "" : "output: ", why,
                                     " (output ", i, ", data set ", s, ")");
          break;
        }
      }
    }
  }
  if (!with_aot) return r;

  // AOT: the bundle plus each data set's inputs and references as .npy.
  aot::AotOptions opts;
  opts.name = "m";
  opts.prefix_kernel_symbols = false;  // linked against the prebuilt runtime library
  auto files = aot::EmitBundle(**image, opts);
  if (!files.ok()) {
    r.aot_reason = absl::StrCat("aot emit: ", OneLine(std::string(files.status().message())));
    return r;
  }
  if (absl::Status st = aot::WriteBundle(t.work, *files); !st.ok()) {
    r.aot_reason = absl::StrCat("aot write: ", OneLine(std::string(st.message())));
    return r;
  }
  for (size_t s = 0; s < sets.size(); ++s) {
    const std::string d = absl::StrCat(t.work, "/data", s);
    fs::create_directories(d);
    for (size_t i = 0; i < sets[s].inputs.size(); ++i) {
      if (!vm::WriteNpy(absl::StrCat(d, "/in", i, ".npy"), sets[s].inputs[i]).ok()) {
        r.aot_reason = "aot: writing inputs failed";
        return r;
      }
    }
    for (size_t i = 0; i < sets[s].refs.size(); ++i) {
      if (!vm::WriteNpy(absl::StrCat(d, "/ref", i, ".npy"), sets[s].refs[i]).ok()) {
        r.aot_reason = "aot: writing references failed";
        return r;
      }
    }
  }
  r.aot_ready = true;
  return r;
}

void WriteChildResult(const std::string& path, const ChildResult& r) {
  std::ofstream f(path);
  f << (r.vm_pass ? 1 : 0) << "\n" << OneLine(r.vm_reason, 400) << "\n" << (r.aot_ready ? 1 : 0)
    << "\n" << OneLine(r.aot_reason, 400) << "\n" << r.data_sets << "\n";
}

bool ReadChildResult(const std::string& path, ChildResult* r) {
  std::ifstream f(path);
  std::string a, b, c, d, e;
  if (!std::getline(f, a) || !std::getline(f, b) || !std::getline(f, c) || !std::getline(f, d) ||
      !std::getline(f, e)) {
    return false;
  }
  r->vm_pass = a == "1";
  r->vm_reason = b;
  r->aot_ready = c == "1";
  r->aot_reason = d;
  r->data_sets = std::atoi(e.c_str());
  return true;
}

struct Running {
  pid_t pid;
  size_t index;
  std::chrono::steady_clock::time_point start;
};

std::string DescribeExit(int status) {
  if (WIFSIGNALED(status)) return absl::StrCat("crash: signal ", WTERMSIG(status));
  return absl::StrCat("child exited with status ", WEXITSTATUS(status));
}

// Compile + VM (+ bundle emission) for every test, `jobs` children at a time.
std::vector<ChildResult> RunChildren(const std::vector<TestCase>& tests, const Options& o) {
  std::vector<ChildResult> results(tests.size());
  std::vector<Running> running;
  size_t next = 0;
  auto result_path = [&](size_t i) { return tests[i].work + ".result"; };
  while (next < tests.size() || !running.empty()) {
    while (next < tests.size() && static_cast<int>(running.size()) < o.jobs) {
      const size_t i = next++;
      fs::remove_all(tests[i].work);
      fs::remove(result_path(i));
      fs::create_directories(fs::path(tests[i].work).parent_path());
      std::cout.flush();
      const pid_t pid = fork();
      if (pid == 0) {
        ChildResult r = RunTestInProcess(tests[i], o.vm, o.aot, o.strip_declared_shapes);
        WriteChildResult(result_path(i), r);
        _exit(0);
      }
      if (pid < 0) {
        results[i].vm_reason = results[i].aot_reason = "fork failed";
        continue;
      }
      running.push_back({pid, i, std::chrono::steady_clock::now()});
    }
    bool reaped = false;
    for (size_t k = 0; k < running.size();) {
      int status = 0;
      const pid_t w = waitpid(running[k].pid, &status, WNOHANG);
      const size_t i = running[k].index;
      if (w == running[k].pid) {
        if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0) ||
            !ReadChildResult(result_path(i), &results[i])) {
          results[i].vm_pass = false;
          results[i].vm_reason = results[i].aot_reason =
              absl::StrCat(DescribeExit(status), " during compile or VM run");
        }
        running.erase(running.begin() + static_cast<long>(k));
        reaped = true;
        continue;
      }
      const auto age = std::chrono::steady_clock::now() - running[k].start;
      if (age > std::chrono::seconds(o.timeout_s)) {
        kill(running[k].pid, SIGKILL);
        waitpid(running[k].pid, &status, 0);
        results[i].vm_reason = results[i].aot_reason =
            absl::StrCat("timeout: compile + VM run exceeded ", o.timeout_s, " s");
        running.erase(running.begin() + static_cast<long>(k));
        reaped = true;
        continue;
      }
      ++k;
    }
    if (!reaped && !running.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return results;
}

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

std::string FirstLines(const std::string& path, int n) {
  std::ifstream f(path);
  std::string line, out;
  for (int i = 0; i < n && std::getline(f, line); ++i) absl::StrAppend(&out, line, " ");
  return OneLine(out, 240);
}

// Builds every ready bundle in one `make -k -jN`: each runner binary from its
// three generated C files, linked against the runtime library built once.
void BuildBundles(const std::vector<TestCase>& tests, const std::vector<ChildResult>& child,
                  const Options& o) {
  std::ostringstream mk;
  mk << "# Generated by conformance_runner: every AOT bundle's runner, linked\n"
        "# against the runtime kernels compiled once (" << o.runtime_lib << ").\n"
     << (o.cc.empty() ? "CC ?= cc" : "CC = " + o.cc) << "\n"
     << "BUNDLE_CFLAGS = -O1 -std=c11 -Wall -Wextra -Werror " << o.bundle_cflags << "\n"
     << "KILN_RUNTIME_LIB = " << o.runtime_lib << "\n\nall:";
  std::vector<size_t> ready;
  for (size_t i = 0; i < tests.size(); ++i) {
    if (child[i].aot_ready) {
      ready.push_back(i);
      mk << " \\\n  " << tests[i].work << "/m_run";
    }
  }
  mk << "\n\n";
  for (size_t i : ready) {
    const std::string& d = tests[i].work;
    mk << d << "/m_run: " << d << "/m.c " << d << "/m_weights.c " << d << "/m_main.c\n"
       << "\t@$(CC) $(BUNDLE_CFLAGS) -I" << d << " -I" << d << "/runtime/include -o $@ " << d
       << "/m.c " << d << "/m_weights.c " << d << "/m_main.c $(KILN_RUNTIME_LIB) -lm > " << d
       << "/build.log 2>&1\n\n";
  }
  mk << ".PHONY: all\n";
  const std::string makefile = o.work_dir + "/Makefile";
  std::ofstream(makefile) << mk.str();
  const std::string cmd = absl::StrCat("make -k -j", o.jobs, " -f ", ShellQuote(makefile), " > ",
                                       ShellQuote(o.work_dir + "/make.log"), " 2>&1");
  (void)std::system(cmd.c_str());
}

// Runs each built bundle on its data sets (through --run-prefix, if given)
// and compares with the references.
void RunBundles(const std::vector<TestCase>& tests, const std::vector<ChildResult>& child,
                const Options& o, std::vector<TestResult>* results) {
  for (size_t i = 0; i < tests.size(); ++i) {
    TestResult& r = (*results)[i];
    if (!child[i].aot_ready) continue;
    const std::string& d = tests[i].work;
    if (!fs::exists(d + "/m_run")) {
      r.aot_reason = absl::StrCat("aot build: ", FirstLines(d + "/build.log", 3));
      continue;
    }
    r.aot_pass = true;
    for (int s = 0; s < child[i].data_sets && r.aot_pass; ++s) {
      const std::string sd = absl::StrCat(d, "/data", s);
      std::string cmd = absl::StrCat("timeout 60 ", o.run_prefix, o.run_prefix.empty() ? "" : " ",
                                     ShellQuote(d + "/m_run"));
      std::vector<std::string> refs;
      for (int k = 0;; ++k) {
        std::string p = absl::StrCat(sd, "/in", k, ".npy");
        if (!fs::exists(p)) break;
        absl::StrAppend(&cmd, " --input ", ShellQuote(p));
      }
      for (int k = 0;; ++k) {
        std::string p = absl::StrCat(sd, "/ref", k, ".npy");
        if (!fs::exists(p)) break;
        refs.push_back(p);
        fs::remove(absl::StrCat(sd, "/out", k, ".npy"));
        absl::StrAppend(&cmd, " --output ", ShellQuote(absl::StrCat(sd, "/out", k, ".npy")));
      }
      absl::StrAppend(&cmd, " > ", ShellQuote(sd + "/run.log"), " 2>&1");
      if (std::system(cmd.c_str()) != 0) {
        r.aot_pass = false;
        r.aot_reason = absl::StrCat("aot run: ", FirstLines(sd + "/run.log", 2));
        break;
      }
      for (size_t k = 0; k < refs.size(); ++k) {
        auto got = vm::ReadNpy(absl::StrCat(sd, "/out", k, ".npy"));
        auto ref = vm::ReadNpy(refs[k]);
        std::string why;
        if (!got.ok()) why = absl::StrCat("aot output: ", got.status().message());
        else if (!ref.ok()) why = absl::StrCat("reference: ", ref.status().message());
        else why = CompareTensors(*got, *ref);
        if (!why.empty()) {
          r.aot_pass = false;
          r.aot_reason = absl::StrCat(OneLine(why), " (output ", k, ", data set ", s, ")");
          break;
        }
      }
    }
  }
}

constexpr int kSkipped = 77;

int Usage() {
  std::cerr << "usage: conformance_runner --work-dir DIR [--suite NAME ...] [--data-dir DIR]\n"
               "         [--expectations FILE] [--update-expectations] [--write-report FILE]\n"
               "         [--runtime-dir DIR] [--no-aot] [--no-vm] [--filter SUBSTRING]\n"
               "         [--sample N [--full-on-widest]] [--bundle-path PATH] [--cc CC] [--run-prefix COMMAND]\n"
               "         [--jobs N] [--timeout SECONDS] [--strip-declared-shapes] [--verbose]\n"
               "Suites: node simple pytorch-converted pytorch-operator (default: all).\n"
               "  --runtime-dir DIR    holds libruntime_<path>.a, each path's kernels\n"
               "  --sample N           every Nth test of each suite, in name order\n"
               "  --full-on-widest     with --sample: every test when the kernel path is\n"
               "                       the widest this CPU runs (its native path)\n"
               "  --no-vm              AOT bundles only (expectations: the AOT column)\n"
               "  --strip-declared-shapes  compile each model without its value_info and\n"
               "                       graph-output shapes (what inference finds alone)\n"
               "  --bundle-path PATH   build the bundles for PATH (its flags, its\n"
               "                       libruntime_PATH.a) instead of the VM's path\n"
               "  --cc CC              the bundles' C compiler (default: $CC, else cc)\n"
               "  --run-prefix CMD     run each bundle as `CMD bundle ...` (an emulator:\n"
               "                       'qemu-aarch64 -L /usr/aarch64-linux-gnu')\n";
  return 2;
}

int Main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--data-dir") o.data_dir = value();
    else if (a == "--suite") o.suites.push_back(value());
    else if (a == "--work-dir") o.work_dir = value();
    else if (a == "--expectations") o.expectations = value();
    else if (a == "--update-expectations") o.update = true;
    else if (a == "--write-report") o.report = value();
    else if (a == "--runtime-dir") o.runtime_dir = value();
    else if (a == "--filter") o.filter = value();
    else if (a == "--no-aot") o.aot = false;
    else if (a == "--strip-declared-shapes") o.strip_declared_shapes = true;
    else if (a == "--no-vm") o.vm = false;
    else if (a == "--sample") o.sample = std::atoi(value().c_str());
    else if (a == "--full-on-widest") o.full_on_widest = true;
    else if (a == "--bundle-path") o.bundle_path = value();
    else if (a == "--cc") o.cc = value();
    else if (a == "--run-prefix") o.run_prefix = value();
    else if (a == "--verbose") o.verbose = true;
    else if (a == "--jobs") o.jobs = std::max(1, std::atoi(value().c_str()));
    else if (a == "--timeout") o.timeout_s = std::max(1, std::atoi(value().c_str()));
    else return Usage();
  }
  if (o.suites.empty()) o.suites = {"node", "simple", "pytorch-converted", "pytorch-operator"};
  if (o.work_dir.empty() || o.sample < 1 || (!o.vm && !o.aot)) return Usage();
  // The VM runs the kernel path KILN_ISA names (or the widest); a path this
  // CPU lacks skips the run (ctest's SKIP_RETURN_CODE). The bundles are built
  // for the same path unless --bundle-path names one (whose machine runs
  // them, through --run-prefix).
  absl::StatusOr<vm::KernelPath> path = vm::ChooseKernelPath("");
  if (!path.ok()) {
    std::cout << "conformance_runner: skipped: " << path.status().message() << "\n";
    return kSkipped;
  }
  if (!o.bundle_path.empty()) {
    bool known = false;
    for (int k = 0; k < vm::kKernelPathCount && !known; ++k) {
      known = o.bundle_path == vm::KernelPathName(static_cast<vm::KernelPath>(k));
      if (known) *path = static_cast<vm::KernelPath>(k);
    }
    if (!known) {
      std::cerr << "conformance_runner: unknown --bundle-path '" << o.bundle_path
                << "' (expected portable, avx2, avx512 or neon)\n";
      return 2;
    }
  }
  if (o.full_on_widest && o.bundle_path.empty() && *path == vm::WidestKernelPath()) o.sample = 1;
  std::cout << "conformance_runner: kernel path " << vm::KernelPathName(*path)
            << (o.bundle_path.empty() ? "" : " (bundles)")
            << (o.sample == 1 ? "" : absl::StrCat(", a sample: 1 test in ", o.sample)) << "\n";
  o.runtime_lib = absl::StrCat(o.runtime_dir, "/libruntime_", vm::KernelPathName(*path), ".a");
  o.bundle_cflags = vm::KernelPathCompileFlags(*path);
  if (o.aot && o.runtime_dir.empty()) {
    std::cerr << "conformance_runner: --runtime-dir is required for the AOT path\n";
    return 2;
  }
  if (!o.report.empty() && (!o.vm || !o.aot || !o.filter.empty() || o.sample != 1)) {
    std::cerr << "conformance_runner: --write-report needs a full run (the VM and AOT paths, "
                 "no --filter or --sample)\n";
    return 2;
  }
  if (o.update && (!o.aot || !o.vm || !o.filter.empty() || o.sample != 1 ||
                   !o.bundle_path.empty() || o.expectations.empty())) {
    std::cerr << "conformance_runner: --update-expectations needs --expectations, the VM and "
                 "AOT paths, no --filter, --sample or --bundle-path\n";
    return 2;
  }
  std::map<std::string, Expectation> expected;
  if (!o.expectations.empty()) {
    auto e = ReadExpectations(o.expectations);
    if (!e.ok()) {
      std::cerr << "conformance_runner: " << e.status().message() << "\n";
      return 2;
    }
    expected = std::move(*e);
  }
  const auto start = std::chrono::steady_clock::now();
  fs::create_directories(o.work_dir);
  o.work_dir = fs::canonical(o.work_dir).string();

  std::vector<TestCase> tests;
  for (const std::string& suite : o.suites) {
    const std::string sdir = o.data_dir + "/" + suite;
    if (!fs::is_directory(sdir)) {
      std::cerr << "conformance_runner: no test data at " << sdir
                << " (install Debian's libonnx-testdata)\n";
      return 2;
    }
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(sdir)) {
      if (fs::exists(e.path() / "model.onnx")) names.push_back(e.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    int index = 0;
    for (const std::string& n : names) {
      if (!o.filter.empty() && !absl::StrContains(n, o.filter)) continue;
      if (index++ % o.sample != 0) continue;
      tests.push_back({suite, n, sdir + "/" + n, absl::StrCat(o.work_dir, "/", suite, "/", n)});
    }
  }

  std::vector<ChildResult> child = RunChildren(tests, o);
  const auto vm_done = std::chrono::steady_clock::now();
  std::vector<TestResult> results(tests.size());
  for (size_t i = 0; i < tests.size(); ++i) {
    results[i].suite = tests[i].suite;
    results[i].name = tests[i].name;
    results[i].ops = ModelOps(tests[i].dir + "/model.onnx");
    results[i].vm_pass = child[i].vm_pass;
    results[i].vm_reason = child[i].vm_reason;
    results[i].aot_reason = child[i].aot_reason;
  }
  if (o.aot) {
    BuildBundles(tests, child, o);
    RunBundles(tests, child, o, &results);
  }
  const auto end = std::chrono::steady_clock::now();
  const double secs = std::chrono::duration<double>(end - start).count();

  // Per-suite summary.
  std::map<std::string, std::array<int, 3>> counts;
  for (const TestResult& r : results) {
    auto& c = counts[r.suite];
    c[0]++;
    c[1] += r.vm_pass;
    c[2] += r.aot_pass;
    if (o.verbose) {
      std::cout << r.Key() << "  vm=" << (r.vm_pass ? "pass" : "FAIL: " + r.vm_reason)
                << "  aot=" << (r.aot_pass ? "pass" : "FAIL: " + r.aot_reason) << "\n";
    }
  }
  for (const auto& [suite, c] : counts) {
    std::cout << "suite " << suite << ": " << c[0] << " tests, "
              << (o.vm ? absl::StrCat("VM pass ", c[1]) : "VM not run")
              << (o.aot ? absl::StrCat(", AOT pass ", c[2]) : std::string()) << "\n";
  }
  std::cout << "time: compile+VM "
            << std::chrono::duration<double>(vm_done - start).count() << " s, total " << secs
            << " s\n";

  int rc = 0;
  if (!o.report.empty()) {
    if (absl::Status s = WriteReport(o.report, results, secs); !s.ok()) {
      std::cerr << s.message() << "\n";
      rc = 1;
    } else {
      std::cout << "wrote " << o.report << "\n";
    }
  }
  if (o.update) {
    if (absl::Status s = WriteExpectations(o.expectations, results, expected); !s.ok()) {
      std::cerr << s.message() << "\n";
      return 1;
    }
    std::cout << "wrote " << o.expectations << "\n";
    return rc;
  }
  if (!o.expectations.empty()) {
    // A filtered or sampled run cannot tell a listed test from a missing one.
    const bool every_test = o.filter.empty() && o.sample == 1;
    std::vector<std::string> problems =
        CheckExpectations(results, expected, o.vm, o.aot, every_test);
    for (const std::string& p : problems) std::cout << p << "\n";
    int failed = static_cast<int>(problems.size());
    std::cout << "expectations: " << tests.size() << " tests checked, " << failed
              << " problem" << (failed == 1 ? "" : "s") << "\n";
    if (failed) {
      std::cout << "(expectations: " << o.expectations
                << "; regenerate with scripts/conformance.sh --update)\n";
      rc = 1;
    }
  }
  return rc;
}

}  // namespace
}  // namespace kiln::conformance

int main(int argc, char** argv) { return kiln::conformance::Main(argc, argv); }
