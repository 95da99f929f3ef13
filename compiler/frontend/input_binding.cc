// Compile-time bindings of inputs; see input_binding.h.
#include "compiler/frontend/input_binding.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "compiler/ir/graph_util.h"

namespace kiln::compiler {
namespace {

using ir::DType;

template <typename T>
void Put(std::vector<uint8_t>* bytes, T v) {
  const size_t at = bytes->size();
  bytes->resize(at + sizeof(T));
  std::memcpy(bytes->data() + at, &v, sizeof(T));
}

// Whole number `part` that fits [lo, hi].
bool WholeIn(absl::string_view part, int64_t lo, uint64_t hi, int64_t* out) {
  return absl::SimpleAtoi(part, out) && *out >= lo &&
         (*out < 0 || static_cast<uint64_t>(*out) <= hi);
}

// Appends one element of `dtype` spelled `part`; false if it does not parse
// or fit.
bool AppendElement(DType dtype, absl::string_view part, std::vector<uint8_t>* bytes) {
  int64_t i = 0;
  double f = 0;
  switch (dtype) {
    case DType::F32:
      if (!absl::SimpleAtod(part, &f)) return false;
      Put(bytes, static_cast<float>(f));
      return true;
    case DType::F64:
      if (!absl::SimpleAtod(part, &f)) return false;
      Put(bytes, f);
      return true;
    case DType::Bool:
      if (part == "true" || part == "1") Put<uint8_t>(bytes, 1);
      else if (part == "false" || part == "0") Put<uint8_t>(bytes, 0);
      else return false;
      return true;
    case DType::I8: if (!WholeIn(part, INT8_MIN, INT8_MAX, &i)) return false; Put(bytes, static_cast<int8_t>(i)); return true;
    case DType::I16: if (!WholeIn(part, INT16_MIN, INT16_MAX, &i)) return false; Put(bytes, static_cast<int16_t>(i)); return true;
    case DType::I32: if (!WholeIn(part, INT32_MIN, INT32_MAX, &i)) return false; Put(bytes, static_cast<int32_t>(i)); return true;
    case DType::I64: if (!absl::SimpleAtoi(part, &i)) return false; Put(bytes, i); return true;
    case DType::U8: if (!WholeIn(part, 0, UINT8_MAX, &i)) return false; Put(bytes, static_cast<uint8_t>(i)); return true;
    case DType::U16: if (!WholeIn(part, 0, UINT16_MAX, &i)) return false; Put(bytes, static_cast<uint16_t>(i)); return true;
    case DType::U32: if (!WholeIn(part, 0, UINT32_MAX, &i)) return false; Put(bytes, static_cast<uint32_t>(i)); return true;
    case DType::U64: {
      uint64_t u = 0;
      if (!absl::SimpleAtoi(part, &u)) return false;
      Put(bytes, u);
      return true;
    }
    default:
      return false;
  }
}

}  // namespace

absl::Status BindInputValue(ir::ValueId id, const std::string& text, const std::string& where,
                            ir::Graph* graph) {
  ir::Value& v = graph->value(id);
  for (int64_t d : v.shape) {
    if (ir::IsSymbolic(d)) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, " has a symbolic shape; give it with --input-shape too to bind its value"));
    }
  }
  const int64_t count = ir::ElementCount(v.shape);
  std::vector<absl::string_view> parts = absl::StrSplit(text, ',');
  if (static_cast<int64_t>(parts.size()) != count) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, " is ", ir::DTypeName(v.dtype), "[", absl::StrJoin(v.shape, ","), "] (", count,
        count == 1 ? " element" : " elements", "); the value given, '", text, "', has ",
        parts.size()));
  }
  std::vector<uint8_t> bytes;
  for (absl::string_view part : parts) {
    if (!AppendElement(v.dtype, part, &bytes)) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": '", part, "' is not a ",
                                                     ir::DTypeName(v.dtype), " value"));
    }
  }
  ir::ConstantPtr value = ir::MakeConstant(v.dtype, v.shape, std::move(bytes));
  v.constant = value;
  graph->bound_inputs.emplace_back(v.name, std::move(value));
  for (size_t k = 0; k < graph->inputs.size(); ++k) {
    if (graph->inputs[k] == id) {
      graph->inputs.erase(graph->inputs.begin() + static_cast<std::ptrdiff_t>(k));
      break;
    }
  }
  return absl::OkStatus();
}

absl::Status CheckBoundDimsUsed(const std::map<std::string, int64_t>& bound,
                                const std::set<std::string>& used, const std::string& path) {
  for (const auto& [name, value] : bound) {
    if (used.count(name)) continue;
    std::vector<std::string> names;
    for (const std::string& u : used) names.push_back(absl::StrCat("'", u, "'"));
    return absl::InvalidArgumentError(absl::StrCat(
        "'", path, "': a value is given for dim '", name, "', which no input of the model "
        "declares (its symbolic dims: ", names.empty() ? "none" : absl::StrJoin(names, ", "), ")"));
  }
  return absl::OkStatus();
}

}  // namespace kiln::compiler
