// TfIdfVectorizer (opset 9) on integer tokens → tfidf (runtime/kernels/tfidf.c).
// The shape rule: X [C] -> Y [max(ngram_indexes) + 1], X [N, C] -> Y [N, that],
// float32. Every inconsistent attribute is refused there, naming the node, so
// the kernel only ever sees tables its checker accepts; the lowering turns
// the attributes into the kernel's entry table (iparams), weights (fparams)
// and a constant int64 pool binding.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ops/op_def.h"
#include "kiln/kernels.h"

namespace kiln::compiler {
namespace {

// The n-grams of the pool the node will count, in pool order.
struct TfIdfPlan {
  int64_t mode = 0;       // kiln_tfidf_mode
  int64_t skips = 0;      // max_skip_count
  int64_t out_len = 0;    // max(ngram_indexes) + 1
  std::vector<int64_t> pool;     // pool_int64s
  // Per n-gram whose length is in [min_gram_length, max_gram_length]:
  struct Entry {
    int64_t len, off, index;
    float weight;
  };
  std::vector<Entry> entries;
};


// Bounds that keep every table offset and the output row far from int64
// overflow; real vocabularies are orders of magnitude smaller.
constexpr int64_t kMaxGram = 1 << 16;
constexpr int64_t kMaxIndex = int64_t{1} << 31;
constexpr int64_t kMaxSkip = int64_t{1} << 31;

bool Fail(std::string* why, std::string msg) {
  *why = std::move(msg);
  return false;
}

// Validates the node's attributes; on error, what is wrong in *why.
bool ParseTfIdf(const ir::Node& node, TfIdfPlan* plan, std::string* why) {
  const std::string mode = node.GetString("mode", "");
  if (mode == "TF") plan->mode = KILN_TFIDF_TF;
  else if (mode == "IDF") plan->mode = KILN_TFIDF_IDF;
  else if (mode == "TFIDF") plan->mode = KILN_TFIDF_TFIDF;
  else return Fail(why, absl::StrCat("unknown mode '", mode, "' (TF, IDF or TFIDF)"));
  if (node.HasAttr("pool_strings")) {
    return Fail(why, "pool_strings is not supported (Kiln has no string tensors)");
  }
  if (!node.HasAttr("pool_int64s")) return Fail(why, "pool_int64s is required");
  const int64_t min_gram = node.GetInt("min_gram_length", -1);
  const int64_t max_gram = node.GetInt("max_gram_length", -1);
  const int64_t skips = node.GetInt("max_skip_count", -1);
  if (min_gram < 1 || max_gram < min_gram || max_gram > kMaxGram) {
    return Fail(why, absl::StrCat("min_gram_length ", min_gram, " and max_gram_length ",
                                  max_gram, " must satisfy 1 <= min <= max <= ", kMaxGram));
  }
  if (skips < 0 || skips > kMaxSkip) {
    return Fail(why, absl::StrCat("max_skip_count must be in 0..2^31, got ", skips));
  }
  plan->skips = skips;
  plan->pool = node.GetInts("pool_int64s", {});
  const std::vector<int64_t> counts = node.GetInts("ngram_counts", {});
  const std::vector<int64_t> indexes = node.GetInts("ngram_indexes", {});
  const int64_t pool_len = static_cast<int64_t>(plan->pool.size());
  if (counts.empty()) return Fail(why, "ngram_counts is required");
  if (counts[0] != 0) return Fail(why, "ngram_counts must start at 0");
  std::vector<float> weights;
  if (auto it = node.attributes.find("weights"); it != node.attributes.end()) {
    weights = it->second.floats;
  }
  if (!weights.empty() && weights.size() != indexes.size()) {
    return Fail(why, absl::StrCat("weights has ", weights.size(), " values for ",
                                  indexes.size(), " ngram_indexes"));
  }
  // Group g (0-based) holds the (g+1)-grams from counts[g] to counts[g+1]
  // (or the pool's end); n-gram number k maps to ngram_indexes[k].
  int64_t gram = 0;
  plan->entries.clear();
  for (size_t g = 0; g < counts.size(); ++g) {
    const int64_t n = static_cast<int64_t>(g) + 1;
    const int64_t begin = counts[g];
    const int64_t end = g + 1 < counts.size() ? counts[g + 1] : pool_len;
    if (begin < 0 || end < begin || end > pool_len) {
      return Fail(why, absl::StrCat("ngram_counts [", g, "] = ", begin,
                                    " is out of order or past pool_int64s (", pool_len,
                                    " values)"));
    }
    if ((end - begin) % n != 0) {
      return Fail(why, absl::StrCat("the ", n, "-grams span ", end - begin,
                                    " pool values, not a multiple of ", n));
    }
    if (gram + (end - begin) / n > static_cast<int64_t>(indexes.size())) {
      return Fail(why, absl::StrCat("ngram_counts describe more n-grams than the ",
                                    indexes.size(), " of ngram_indexes"));
    }
    for (int64_t off = begin; off < end; off += n, ++gram) {
      const int64_t index = indexes[gram];
      if (index < 0 || index >= kMaxIndex) {
        return Fail(why, absl::StrCat("ngram_indexes [", gram, "] = ", index,
                                      " is out of range"));
      }
      plan->out_len = std::max(plan->out_len, index + 1);
      if (n < min_gram || n > max_gram) continue;
      plan->entries.push_back({n, off, index, weights.empty() ? 1.0f : weights[gram]});
    }
  }
  if (gram != static_cast<int64_t>(indexes.size())) {
    return Fail(why, absl::StrCat("ngram_counts describe ", gram, " n-grams but ngram_indexes has ",
                                  indexes.size()));
  }
  if (indexes.empty()) return Fail(why, "ngram_indexes is empty");
  return true;
}

absl::Status TfIdfShape(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  const std::vector<int64_t>& x = c.S(0);
  if (c.T(0) != ir::DType::I32 && c.T(0) != ir::DType::I64) {
    return absl::UnimplementedError(absl::StrCat(
        c.graph().source, ": node ", c.node().Describe(), ": input is ",
        ir::DTypeName(c.T(0)), "; only int32 and int64 tokens are supported"));
  }
  if (x.size() != 1 && x.size() != 2) {
    return c.Err(absl::StrCat("input ", ir::ShapeStr(x), " must be 1-D [C] or 2-D [N, C]"));
  }
  TfIdfPlan plan;
  if (std::string why; !ParseTfIdf(c.node(), &plan, &why)) return c.Err(why);
  if (x.size() == 1) return c.Set(0, ir::DType::F32, {plan.out_len});
  return c.Set(0, ir::DType::F32, {x[0], plan.out_len});
}

absl::Status LowerTfIdf(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_RETURN_IF_ERROR(ctx.RequireStatic(node, x, "the input shape"));
  const ir::DType dt = ctx.value(node.inputs[0]).dtype;
  if (dt != ir::DType::I32 && dt != ir::DType::I64) {
    return ctx.Unimplemented(node, "only int32 and int64 tokens are supported");
  }
  if (x.size() != 1 && x.size() != 2) return ctx.Invalid(node, "input must be 1-D or 2-D");
  TfIdfPlan plan;
  if (std::string why; !ParseTfIdf(node, &plan, &why)) return ctx.Invalid(node, why);
  const int64_t rows = x.size() == 2 ? x[0] : 1;
  const int64_t cols = x.back();
  const int64_t dtype = dt == ir::DType::I32 ? KILN_DTYPE_I32 : KILN_DTYPE_I64;
  // An empty pool still gets a one-value binding: constants are never empty.
  std::vector<int64_t> pool = plan.pool;
  if (pool.empty()) pool.push_back(0);
  auto data = std::make_shared<ir::ConstantData>();
  data->dtype = ir::DType::I64;
  data->shape = {static_cast<int64_t>(pool.size())};
  data->bytes.resize(pool.size() * sizeof(int64_t));
  std::memcpy(data->bytes.data(), pool.data(), data->bytes.size());
  const emit::Binding bp = ctx.BindNewConstant(absl::StrCat(node.name, ".pool"), data);

  emit::kernel::Tfidf tfidf;
  tfidf.dtype = dtype;
  tfidf.rows = rows;
  tfidf.cols = cols;
  tfidf.skips = plan.skips;
  tfidf.E = static_cast<int64_t>(plan.entries.size());
  tfidf.pool_len = static_cast<int64_t>(plan.pool.size());
  tfidf.out_len = plan.out_len;
  tfidf.mode = plan.mode;
  for (const TfIdfPlan::Entry& e : plan.entries) {
    tfidf.len_off_index.insert(tfidf.len_off_index.end(), {e.len, e.off, e.index});
    tfidf.weight.push_back(e.weight);
  }
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  return ctx.Dispatch(node, tfidf, {bx, bp, by});
}

}  // namespace

void RegisterTfIdfOps(std::vector<OpDef>& ops) {
  ops.push_back({"TfIdfVectorizer", TfIdfShape, /*symbolic=*/false, LowerTfIdf});
}

}  // namespace kiln::compiler
