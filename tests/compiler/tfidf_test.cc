// TfIdfVectorizer in the compiler (compiler/ops/tfidf.cc): the output shape,
// the entry table the attributes become (n-grams outside [min_gram_length, max_gram_length] dropped), and
// the refusal of inconsistent attributes with messages naming the node. The
// numbers follow the ONNX document's layout of ngram_counts / pool_int64s;
// the counting itself is tested by tests/runtime/tfidf_test.cc and the ONNX
// node conformance tests (VM and AOT).
#include <string>
#include <vector>

#include "compiler/emit/lowering.h"
#include "compiler/passes/memory_planning.h"
#include "compiler/passes/shape_inference.h"
#include "gtest/gtest.h"
#include "kiln/kernels.h"
#include "tests/compiler/backend_graph_builder.h"
#include "tests/compiler/lower_graph.h"

namespace kiln::compiler {
namespace {

using Dims = std::vector<int64_t>;

struct Model {
  testing::GraphBuilder b;
  ir::NodeId node = 0;
  ir::ValueId out = 0;

  explicit Model(const Dims& x, ir::DType xt = ir::DType::I64) {
    b.g.opset = 9;
    const ir::ValueId vx = b.Input("x", x, xt);
    out = b.g.AddValue("y");
    b.Output(out);
    node = b.Node("TfIdfVectorizer", "tfidf1", {vx}, {out});
    // The conformance tests' pool: 1-grams 2 3 5 4, 2-grams (5,6) (7,8) (6,7).
    Str("mode", "TF");
    Int("min_gram_length", 1);
    Int("max_gram_length", 2);
    Int("max_skip_count", 3);
    Ints("ngram_counts", {0, 4});
    Ints("ngram_indexes", {0, 1, 2, 3, 4, 5, 6});
    Ints("pool_int64s", {2, 3, 5, 4, 5, 6, 7, 8, 6, 7});
  }
  ir::Attribute& Attr(const std::string& key) { return b.g.nodes[node].attributes[key]; }
  void Str(const std::string& key, const std::string& v) {
    Attr(key).kind = ir::Attribute::Kind::kString;
    Attr(key).s = v;
  }
  void Int(const std::string& key, int64_t v) {
    Attr(key).kind = ir::Attribute::Kind::kInt;
    Attr(key).i = v;
  }
  void Ints(const std::string& key, const Dims& v) {
    Attr(key).kind = ir::Attribute::Kind::kInts;
    Attr(key).ints = v;
  }
  absl::StatusOr<emit::LoweredModule> Lower() { return testing::InferPlanLower(b.g); }
};

void ExpectRefused(Model& m, absl::StatusCode code, const std::string& phrase) {
  auto lowered = m.Lower();
  ASSERT_FALSE(lowered.ok());
  EXPECT_EQ(lowered.status().code(), code) << lowered.status();
  EXPECT_NE(lowered.status().message().find("tfidf1"), std::string::npos) << lowered.status();
  EXPECT_NE(lowered.status().message().find(phrase), std::string::npos) << lowered.status();
}

TEST(TfIdfVectorizer, ShapeAndEntryTable) {
  Model m({3, 12});
  m.Int("min_gram_length", 2);  // only the 2-grams are counted
  m.Str("mode", "TFIDF");
  m.Attr("weights").kind = ir::Attribute::Kind::kFloats;
  m.Attr("weights").floats = {1, 2, 3, 4, 5, 6, 7};
  m.Ints("ngram_indexes", {0, 1, 2, 3, 9, 5, 6});
  auto lowered = m.Lower();
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  EXPECT_EQ(m.b.g.value(m.out).shape, (Dims{3, 10}));
  EXPECT_EQ(m.b.g.value(m.out).dtype, ir::DType::F32);
  ASSERT_EQ(lowered->executables.size(), 1u);
  const emit::ExecutableDesc& e = lowered->executables[0];
  EXPECT_NE(e.kernel.find("tfidf"), std::string::npos) << e.kernel;
  // dtype rows cols skips E pool_len out_len mode, then (len, off, index).
  EXPECT_EQ(e.iparams, (Dims{KILN_DTYPE_I64, 3, 12, 3, 3, 10, 10, KILN_TFIDF_TFIDF,
                             2, 4, 9, 2, 6, 5, 2, 8, 6}));
  EXPECT_EQ(e.fparams, (std::vector<float>{5, 6, 7}));
}

TEST(TfIdfVectorizer, OneDimensionalInput) {
  Model m({12}, ir::DType::I32);
  ASSERT_TRUE(m.Lower().ok());
  EXPECT_EQ(m.b.g.value(m.out).shape, (Dims{7}));
}

TEST(TfIdfVectorizer, RefusesInconsistentNgramCounts) {
  {
    Model m({12});
    m.Ints("ngram_counts", {0, 5});  // 5 values of 2-grams: not whole pairs
    ExpectRefused(m, absl::StatusCode::kInvalidArgument, "not a multiple of 2");
  }
  {
    Model m({12});
    m.Ints("ngram_counts", {0, 11});  // past the pool
    ExpectRefused(m, absl::StatusCode::kInvalidArgument, "ngram_counts");
  }
  {
    Model m({12});
    m.Ints("ngram_indexes", {0, 1, 2, 3, 4, 5});  // one n-gram short
    ExpectRefused(m, absl::StatusCode::kInvalidArgument, "more n-grams than the 6");
  }
  {
    Model m({12});
    m.Ints("ngram_indexes", {0, 1, 2, 3, 4, 5, 6, 7});  // one n-gram too many
    ExpectRefused(m, absl::StatusCode::kInvalidArgument, "describe 7 n-grams");
  }
}

TEST(TfIdfVectorizer, RefusesBadAttributes) {
  {
    Model m({12});
    m.Ints("ngram_indexes", {0, 1, 2, -3, 4, 5, 6});
    ExpectRefused(m, absl::StatusCode::kInvalidArgument, "out of range");
  }
  {
    Model m({12});
    m.Int("max_skip_count", -1);
    ExpectRefused(m, absl::StatusCode::kInvalidArgument, "max_skip_count");
  }
  {
    Model m({12});
    m.Str("mode", "BM25");
    ExpectRefused(m, absl::StatusCode::kInvalidArgument, "'BM25'");
  }
  {
    Model m({12});
    m.Int("min_gram_length", 3);  // above max_gram_length
    ExpectRefused(m, absl::StatusCode::kInvalidArgument, "min_gram_length");
  }
  {
    Model m({12});
    m.Attr("weights").kind = ir::Attribute::Kind::kFloats;
    m.Attr("weights").floats = {1, 2};
    ExpectRefused(m, absl::StatusCode::kInvalidArgument, "weights");
  }
}

TEST(TfIdfVectorizer, RefusesOtherInputsAsUnimplemented) {
  Model m({12}, ir::DType::F32);
  ExpectRefused(m, absl::StatusCode::kUnimplemented, "int32 and int64");
}

}  // namespace
}  // namespace kiln::compiler
