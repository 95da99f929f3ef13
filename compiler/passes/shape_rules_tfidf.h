// TfIdfVectorizer (opset 9) on integer tokens: attribute validation shared by
// shape inference and lowering (emit/lower_tfidf.cc), and the shape rule
// X [C] -> Y [max(ngram_indexes) + 1], X [N, C] -> Y [N, that], float32.
// Every inconsistent attribute is refused here, naming the node, so the
// kernel only ever sees tables its checker accepts.
#ifndef KILN_COMPILER_PASSES_SHAPE_RULES_TFIDF_H_
#define KILN_COMPILER_PASSES_SHAPE_RULES_TFIDF_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

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

// Validates the node's attributes; on error, what is wrong in *why.
bool ParseTfIdf(const ir::Node& node, TfIdfPlan* plan, std::string* why);

// True if `node` is TfIdfVectorizer; the rule's result is then in *status.
bool InferTfIdfShapes(ir::Graph& graph, ir::Node& node, absl::Status* status);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_SHAPE_RULES_TFIDF_H_
