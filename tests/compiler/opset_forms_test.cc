// Forms that opsets 18 to 21 introduced and Kiln does not implement are
// refused at compile time with an error naming the form (the models and the
// words are written by tests/models/opset/generate.py); the forms it does
// implement run against ONNX Runtime's outputs in tests/e2e (OpsetModels).
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "gtest/gtest.h"

namespace kiln::compiler {
namespace {

const std::string kRefusedDir = std::string(KILN_SOURCE_DIR) + "/tests/models/opset/refused";

struct Refusal {
  std::string model, words;
};

std::vector<Refusal> Refusals() {
  std::vector<Refusal> out;
  std::ifstream in(kRefusedDir + "/expected.txt");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) continue;
    out.push_back({line.substr(0, tab), line.substr(tab + 1)});
  }
  return out;
}

TEST(OpsetForms, UnimplementedFormsAreRefusedByName) {
  const std::vector<Refusal> refusals = Refusals();
  ASSERT_GE(refusals.size(), 4u) << "no refusals read from " << kRefusedDir << "/expected.txt";
  for (const Refusal& r : refusals) {
    auto module = BuildModule(kRefusedDir + "/" + r.model + ".onnx", {});
    ASSERT_FALSE(module.ok()) << r.model << " compiled";
    EXPECT_NE(std::string(module.status().message()).find(r.words), std::string::npos)
        << r.model << ": " << module.status().message();
  }
}

}  // namespace
}  // namespace kiln::compiler
