#include "vm/tools/dump.h"

#include <cmath>
#include <cstring>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "vm/dtype.h"
#include "vm/tools/json_text.h"

namespace kiln::vm {
namespace {

std::string IndexText(const std::vector<int64_t>& shape, uint64_t flat) {
  std::vector<int64_t> idx(shape.size(), 0);
  for (size_t k = shape.size(); k-- > 0;) {
    if (shape[k] > 0) {
      idx[k] = static_cast<int64_t>(flat % static_cast<uint64_t>(shape[k]));
      flat /= static_cast<uint64_t>(shape[k]);
    }
  }
  return ShapeText(idx);
}

}  // namespace

std::string SanitizeFileName(const std::string& name) {
  std::string out;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    out += ok ? c : '_';
  }
  if (out.empty() || out[0] == '.') out = "_" + out;
  return out;
}

std::string DescribeDispatch(const DispatchInfo& d) {
  std::string s = absl::StrCat("dispatch ", d.index, " (+", d.pc, ", ", d.kernel);
  if (!d.nodes.empty()) {
    std::vector<std::string> nodes;
    for (size_t k = 0; k < d.nodes.size(); ++k) {
      nodes.push_back(absl::StrCat(d.nodes[k], ":", k < d.op_types.size() ? d.op_types[k] : ""));
    }
    absl::StrAppend(&s, "; ONNX nodes ", absl::StrJoin(nodes, " + "));
  }
  return s + ")";
}

ValueDumper::ValueDumper(const std::vector<DispatchInfo>* dispatches, std::string dir)
    : ValueObserver(dispatches), dir_(std::move(dir)) {}

bool ValueDumper::AfterDispatch(uint32_t dispatch, void* const* bindings) {
  if (dispatch >= dispatches_->size() || !status_.ok()) return status_.ok();
  const DispatchInfo& d = (*dispatches_)[dispatch];
  for (const ValueInfo& value : d.values) {
    const ValueInfo* in_run = InRun(d, value);
    if (in_run == nullptr) return false;
    const ValueInfo& v = *in_run;
    std::string file = SanitizeFileName(v.name);
    int& uses = used_files_[file];
    if (uses++ > 0) file = absl::StrCat(file, "__", uses);
    file += ".npy";
    NpyArray array;
    array.dtype = v.dtype;
    array.shape = v.shape;
    array.data = ValueBytes(v, bindings[v.binding]);
    status_ = WriteNpy(absl::StrCat(dir_, "/", file), array);
    if (!status_.ok()) return false;
    entries_.push_back({file, v.name, dispatch, v.dtype, v.shape});
  }
  return true;
}

absl::Status ValueDumper::Finish() {
  if (!status_.ok()) return status_;
  std::vector<std::string> rows;
  for (const Entry& e : entries_) {
    const DispatchInfo& d = (*dispatches_)[e.dispatch];
    std::vector<std::string> nodes;
    for (const std::string& n : d.nodes) nodes.push_back(JsonString(n));
    rows.push_back(absl::StrCat(
        "  {\"value\":", JsonString(e.value), ",\"file\":", JsonString(e.file),
        ",\"dispatch\":", e.dispatch, ",\"kernel\":", JsonString(d.kernel), ",\"nodes\":[",
        absl::StrJoin(nodes, ","), "],\"dtype\":",
        JsonString(DTypeName(e.dtype)), ",\"shape\":[", absl::StrJoin(e.shape, ","), "]}"));
  }
  const std::string path = absl::StrCat(dir_, "/values.json");
  std::ofstream out(path, std::ios::trunc);
  out << "[\n" << absl::StrJoin(rows, ",\n") << "\n]\n";
  out.close();
  if (!out) return absl::DataLossError(absl::StrCat("cannot write '", path, "'"));
  return absl::OkStatus();
}

bool NanChecker::AfterDispatch(uint32_t dispatch, void* const* bindings) {
  if (dispatch >= dispatches_->size()) return true;
  const DispatchInfo& d = (*dispatches_)[dispatch];
  for (const ValueInfo& value : d.values) {
    if (value.dtype != fb::DType::F32 && value.dtype != fb::DType::F64) continue;
    const ValueInfo* in_run = InRun(d, value);
    if (in_run == nullptr) return false;
    const ValueInfo& v = *in_run;
    ++checked_;
    const uint64_t n = v.bytes / DTypeSize(v.dtype);
    uint64_t nans = 0, infs = 0, first = 0;
    const uint8_t* base = static_cast<const uint8_t*>(bindings[v.binding]);
    for (uint64_t i = 0; i < n; ++i) {
      double x;
      if (v.dtype == fb::DType::F32) {
        float f;
        std::memcpy(&f, base + i * 4, 4);
        x = f;
      } else {
        std::memcpy(&x, base + i * 8, 8);
      }
      if (std::isfinite(x)) continue;
      if (nans + infs == 0) first = i;
      (std::isnan(x) ? nans : infs)++;
    }
    if (nans + infs > 0) {
      message_ = absl::StrCat(DescribeDispatch(d), ": value '", v.name, "' ", ShapeText(v.shape),
                              " has ", nans, " NaN and ", infs, " Inf of ", n,
                              " elements, first at ",
                              IndexText(v.shape, ValueIndexOfStored(v, first)));
      return false;
    }
  }
  return true;
}

bool ValueRecorder::AfterDispatch(uint32_t dispatch, void* const* bindings) {
  if (dispatch >= dispatches_->size()) return true;
  const DispatchInfo& d = (*dispatches_)[dispatch];
  for (const ValueInfo& value : d.values) {
    const ValueInfo* in_run = InRun(d, value);
    if (in_run == nullptr) return false;
    const ValueInfo& v = *in_run;
    values_.push_back({&value, dispatch, ValueBytes(v, bindings[v.binding]), v.shape});
  }
  return true;
}

}  // namespace kiln::vm
