#include "vm/kernel_params.h"

#include <map>
#include <type_traits>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_cat.h"
#include "vm/kernel_param_words.h"

namespace kiln::vm {
namespace {

const KernelParamRow* Find(absl::string_view kernel) {
  absl::ConsumePrefix(&kernel, "kiln_");
  for (const KernelParamRow& p : kKernelParamRows) {
    if (kernel == p.kernel) return &p;
  }
  return nullptr;
}

// Expands a name pattern against the values it describes: "x[R]" repeats R
// times (an earlier parameter's value, or a number), "x[*]" takes what the
// names after it leave. Values past the pattern get `fallback`<k>; *fits
// says whether the pattern named every value and every plain name got one.
template <typename T>
std::vector<std::pair<std::string, T>> Expand(const char* pattern, absl::Span<const T> values,
                                              const char* fallback, bool* fits = nullptr) {
  std::vector<std::pair<std::string, T>> out;
  std::map<std::string, int64_t> seen;
  size_t k = 0;
  bool all_plain_named = true;
  const std::vector<ParamWord> words =
      pattern == nullptr ? std::vector<ParamWord>() : ParseParamWords(pattern);
  for (size_t w = 0; w < words.size(); ++w) {
    const ParamWord& word = words[w];
    if (!word.array) {
      if (k >= values.size()) {
        all_plain_named = false;
        break;
      }
      out.push_back({word.name, values[k]});
      // Repeat counts are integers (and converting a float from a module
      // the verifier is still checking could overflow).
      if constexpr (std::is_integral_v<T>) seen[word.name] = values[k];
      ++k;
      continue;
    }
    // "COUNT?" (that many or none) needs nothing more: the loop stops at the end.
    int64_t count = 0;
    if (word.count == "*") {
      count = static_cast<int64_t>(values.size() - k) - static_cast<int64_t>(words.size() - w - 1);
    } else if (!absl::SimpleAtoi(word.count, &count)) {
      auto it = seen.find(word.count);
      count = it == seen.end() ? 0 : it->second;
    }
    for (int64_t j = 0; j < count && k < values.size(); ++j, ++k) {
      out.push_back({absl::StrCat(word.name, "[", j, "]"), values[k]});
    }
  }
  if (fits != nullptr) *fits = all_plain_named && k == values.size();
  for (; k < values.size(); ++k) out.push_back({absl::StrCat(fallback, k), values[k]});
  return out;
}

}  // namespace

std::vector<std::pair<std::string, int64_t>> NameIParams(absl::string_view kernel,
                                                         absl::Span<const int64_t> iparams) {
  const KernelParamRow* p = Find(kernel);
  return Expand<int64_t>(p ? p->iparams : nullptr, iparams, "i");
}

std::vector<std::pair<std::string, float>> NameFParams(absl::string_view kernel,
                                                       absl::Span<const float> fparams) {
  const KernelParamRow* p = Find(kernel);
  return Expand<float>(p ? p->fparams : nullptr, fparams, "f");
}

bool ParamNamesFit(absl::string_view kernel, absl::Span<const int64_t> iparams,
                   absl::Span<const float> fparams) {
  const KernelParamRow* p = Find(kernel);
  if (p == nullptr) return false;
  bool ints = false, floats = false;
  Expand<int64_t>(p->iparams, iparams, "i", &ints);
  Expand<float>(p->fparams, fparams, "f", &floats);
  return ints && floats;
}

double KernelFlops(absl::string_view kernel, absl::Span<const int64_t> iparams) {
  std::map<std::string, double> v;
  for (const auto& [name, value] : NameIParams(kernel, iparams)) v[name] = static_cast<double>(value);
  absl::ConsumePrefix(&kernel, "kiln_");
  if (absl::StartsWith(kernel, "conv2d_") && v.count("has_bias")) {
    const double groups = v["groups"] > 0 ? v["groups"] : 1;
    return 2.0 * v["N"] * v["OC"] * v["OH"] * v["OW"] * (v["C"] / groups) * v["KH"] * v["KW"];
  }
  if (kernel == "conv3d_f32" && v.count("has_bias")) {
    const double groups = v["groups"] > 0 ? v["groups"] : 1;
    return 2.0 * v["N"] * v["OC"] * v["OD"] * v["OH"] * v["OW"] * (v["C"] / groups) * v["KD"] *
           v["KH"] * v["KW"];
  }
  if ((kernel == "gemm_f32" || kernel == "gemm_pb_f32") && v.count("K")) return 2.0 * v["M"] * v["N"] * v["K"];
  if (kernel == "matmul_f32" && v.count("R")) {
    double batch = 1;
    for (int64_t j = 0; j < static_cast<int64_t>(v["R"]); ++j) {
      auto it = v.find(absl::StrCat("batch_dims[", j, "]"));
      if (it != v.end()) batch *= it->second;
    }
    return 2.0 * batch * v["M"] * v["N"] * v["K"];
  }
  return -1;
}

}  // namespace kiln::vm
