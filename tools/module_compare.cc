#include "tools/module_compare.h"

#include <cmath>
#include <cstring>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/module_inputs.h"
#include "vm/instance.h"

namespace kiln::tools {
namespace {

double Element(const ComparedValue& v, uint64_t i) {
  if (v.dtype == fb::DType::F32) {
    float f;
    std::memcpy(&f, v.bytes->data() + i * 4, 4);
    return f;
  }
  double d;
  std::memcpy(&d, v.bytes->data() + i * 8, 8);
  return d;
}

}  // namespace

absl::StatusOr<RecordedRun> RunAndRecord(std::shared_ptr<const vm::ModuleImage> image,
                                         const std::vector<std::string>& input_files,
                                         std::vector<vm::NpyArray>* inputs) {
  const std::string& path = image->origin();
  auto instance = vm::Instance::Create(image);
  if (!instance.ok()) return instance.status();
  const fb::Signature& sig = (*instance)->signature();
  if (inputs->empty()) {
    if ((*instance)->has_symbols() && input_files.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "'", path, "' has symbolic dimensions; give --input FILE.npy files (random inputs "
          "need static shapes)"));
    }
    auto loaded = input_files.empty() ? RandomInputs(sig, 1234) : LoadInputs(sig, input_files);
    if (!loaded.ok()) return loaded.status();
    *inputs = std::move(*loaded);
  }
  RecordedRun r;
  auto dispatches = vm::DescribeDispatches(*image);
  if (!dispatches.ok()) return dispatches.status();
  r.dispatches = std::move(*dispatches);
  r.recorder = std::make_unique<vm::ValueRecorder>(&r.dispatches);
  if (absl::Status s = ReserveFor(**instance, *inputs); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("'", path, "': ", s.message()));
  }
  std::vector<vm::NpyArray> outputs = OutputBuffers(**instance);
  std::vector<vm::HostTensor> in = Views(*inputs), out = Views(outputs);
  // Sizes found during the run without a bound: an unrecorded run first
  // grows the workspace and outputs to what they need.
  if ((*instance)->has_unbounded_sizes()) {
    if (absl::Status s = RunGrowingOutputs(**instance, in, &outputs, &out); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("'", path, "': ", s.message()));
    }
  }
  absl::Status s = (*instance)->Run(in, out, r.recorder.get());
  if (!r.recorder->status().ok()) s = r.recorder->status();
  if (!s.ok()) return absl::Status(s.code(), absl::StrCat("'", path, "': ", s.message()));
  return r;
}

std::vector<ComparedValue> ValuesOf(const RecordedRun& run) {
  std::vector<ComparedValue> out;
  out.reserve(run.recorder->values().size());
  for (const vm::RecordedValue& v : run.recorder->values()) {
    out.push_back({v.info->name, v.info->dtype, v.shape, &v.bytes,
                   vm::DescribeDispatch(run.dispatches[v.dispatch])});
  }
  return out;
}

ModuleComparison CompareRecordedRuns(const RecordedRun& a, const RecordedRun& b, double atol,
                                     double rtol) {
  return CompareValues(ValuesOf(a), ValuesOf(b), atol, rtol);
}

ModuleComparison CompareValues(const std::vector<ComparedValue>& a,
                               const std::vector<ComparedValue>& b, double atol, double rtol) {
  ModuleComparison c;
  c.atol = atol;
  c.rtol = rtol;
  // A value recorded several times (in a Loop or Scan body, once per
  // iteration) pairs its k-th recording in A with its k-th in B, as --dump
  // names them NAME, NAME__2, ...
  auto keyed = [](const std::vector<ComparedValue>& values) {
    std::map<std::pair<std::string, size_t>, const ComparedValue*> out;
    std::map<std::string, size_t> seen;
    for (const ComparedValue& v : values) out[{v.name, ++seen[v.name]}] = &v;
    return out;
  };
  const auto in_a = keyed(a);
  const auto in_b = keyed(b);
  std::map<std::string, size_t> seen;
  for (const ComparedValue& va : a) {  // in A's order
    const std::pair<std::string, size_t> key = {va.name, ++seen[va.name]};
    auto it = in_b.find(key);
    if (it == in_b.end()) {
      ++c.only_a;
      continue;
    }
    const ComparedValue& vb = *it->second;
    const bool floating = va.dtype == fb::DType::F32 || va.dtype == fb::DType::F64;
    if (va.dtype != vb.dtype || va.shape != vb.shape || !floating) {
      if (*va.bytes != *vb.bytes && !floating) ++c.differing;
      ++c.skipped;
      continue;
    }
    ++c.compared;
    const uint64_t n = va.bytes->size() / (va.dtype == fb::DType::F32 ? 4 : 8);
    double worst = 0, worst_excess = 0;
    uint64_t worst_at = 0, bad = 0;
    for (uint64_t i = 0; i < n; ++i) {
      const double x = Element(va, i), y = Element(vb, i);
      const double diff = std::fabs(x - y);
      const bool both_nan = std::isnan(x) && std::isnan(y);
      const double excess = both_nan ? 0 : (std::isnan(diff) ? INFINITY : diff - (atol + rtol * std::fabs(x)));
      if (!both_nan && (std::isnan(diff) || diff > worst)) worst = diff;
      if (excess > 0) {
        if (bad == 0 || excess > worst_excess) {
          worst_excess = excess;
          worst_at = i;
        }
        ++bad;
      }
    }
    if (bad > 0) {
      ++c.differing;
      if (!c.has_first) {
        c.has_first = true;
        ValueDifference& f = c.first;
        f.value = absl::StrCat(va.name, key.second > 1 ? absl::StrCat("__", key.second) : "");
        f.shape = va.shape;
        f.max_abs_diff = worst;
        f.outside = bad;
        f.elements = n;
        f.worst_at = worst_at;
        f.a = Element(va, worst_at);
        f.b = Element(vb, worst_at);
        f.dispatch_a = va.where;
        f.dispatch_b = vb.where;
      }
    }
  }
  for (const auto& [key, v] : in_b) c.only_b += in_a.count(key) ? 0 : 1;
  return c;
}

std::string ModuleComparison::Report() const {
  std::string out = absl::StrFormat(
      "compared %zu values (%zu only in %s, %zu only in %s, %zu skipped for dtype/shape)\n",
      compared, only_a, label_a, only_b, label_b, skipped);
  if (differing == 0) {
    return out + absl::StrFormat("no value differs beyond atol=%g rtol=%g\n", atol, rtol);
  }
  absl::StrAppend(&out, absl::StrFormat("%zu values differ\n", differing));
  if (has_first) {
    absl::StrAppend(
        &out,
        absl::StrFormat(
            "first difference: value '%s' %s\n  max_abs_diff=%.6g, %llu of %llu elements outside "
            "atol=%g rtol=%g (worst at flat index %llu: %s=%.9g %s=%.9g)\n  %s: %s\n  %s: %s\n",
            first.value, vm::ShapeText(first.shape), first.max_abs_diff,
            static_cast<unsigned long long>(first.outside),
            static_cast<unsigned long long>(first.elements), atol, rtol,
            static_cast<unsigned long long>(first.worst_at), label_a, first.a, label_b, first.b,
            label_a, first.dispatch_a, label_b, first.dispatch_b));
  }
  return out;
}

}  // namespace kiln::tools
