#include "compiler/passes/math_activations.h"

#include <map>
#include <string>

#include "kiln/kernels.h"

namespace kiln::compiler {
namespace {

// Kind plus the ONNX attribute names and defaults of its two constants.
struct ActSpec {
  int64_t kind;
  const char* alpha_name;
  float alpha_default;
  const char* beta_name;
  float beta_default;
};

const std::map<std::string, ActSpec>& Specs() {
  static const auto* specs = new std::map<std::string, ActSpec>{
      {"Abs", {KILN_ACT_ABS, nullptr, 0, nullptr, 0}},
      {"Neg", {KILN_ACT_NEG, nullptr, 0, nullptr, 0}},
      {"Exp", {KILN_ACT_EXP, nullptr, 0, nullptr, 0}},
      {"Log", {KILN_ACT_LOG, nullptr, 0, nullptr, 0}},
      {"Sqrt", {KILN_ACT_SQRT, nullptr, 0, nullptr, 0}},
      {"Reciprocal", {KILN_ACT_RECIPROCAL, nullptr, 0, nullptr, 0}},
      {"Floor", {KILN_ACT_FLOOR, nullptr, 0, nullptr, 0}},
      {"Ceil", {KILN_ACT_CEIL, nullptr, 0, nullptr, 0}},
      {"Round", {KILN_ACT_ROUND, nullptr, 0, nullptr, 0}},
      {"Sign", {KILN_ACT_SIGN, nullptr, 0, nullptr, 0}},
      {"Erf", {KILN_ACT_ERF, nullptr, 0, nullptr, 0}},
      {"Sin", {KILN_ACT_SIN, nullptr, 0, nullptr, 0}},
      {"Cos", {KILN_ACT_COS, nullptr, 0, nullptr, 0}},
      {"Tan", {KILN_ACT_TAN, nullptr, 0, nullptr, 0}},
      {"Sinh", {KILN_ACT_SINH, nullptr, 0, nullptr, 0}},
      {"Cosh", {KILN_ACT_COSH, nullptr, 0, nullptr, 0}},
      {"Asin", {KILN_ACT_ASIN, nullptr, 0, nullptr, 0}},
      {"Acos", {KILN_ACT_ACOS, nullptr, 0, nullptr, 0}},
      {"Atan", {KILN_ACT_ATAN, nullptr, 0, nullptr, 0}},
      {"Asinh", {KILN_ACT_ASINH, nullptr, 0, nullptr, 0}},
      {"Acosh", {KILN_ACT_ACOSH, nullptr, 0, nullptr, 0}},
      {"Atanh", {KILN_ACT_ATANH, nullptr, 0, nullptr, 0}},
      {"HardSigmoid", {KILN_ACT_HARD_SIGMOID, "alpha", 0.2f, "beta", 0.5f}},
      {"HardSwish", {KILN_ACT_HARD_SWISH, nullptr, 0, nullptr, 0}},
      {"LeakyRelu", {KILN_ACT_LEAKY_RELU, "alpha", 0.01f, nullptr, 0}},
      {"Elu", {KILN_ACT_ELU, "alpha", 1.0f, nullptr, 0}},
      {"Selu", {KILN_ACT_SELU, "alpha", 1.67326319217681884765625f, "gamma",
                1.05070102214813232421875f}},
      {"Celu", {KILN_ACT_CELU, "alpha", 1.0f, nullptr, 0}},
      {"Softplus", {KILN_ACT_SOFTPLUS, nullptr, 0, nullptr, 0}},
      {"Softsign", {KILN_ACT_SOFTSIGN, nullptr, 0, nullptr, 0}},
      {"ThresholdedRelu", {KILN_ACT_THRESHOLDED_RELU, "alpha", 1.0f, nullptr, 0}},
      {"Mish", {KILN_ACT_MISH, nullptr, 0, nullptr, 0}},
      {"Shrink", {KILN_ACT_SHRINK, "lambd", 0.5f, "bias", 0.0f}},
      // ONNX Gelu (opset 20) with approximate "none" (the "tanh" form is
      // KILN_ACT_GELU_TANH, below); dispatch formation also writes PyTorch's
      // exported Div-Erf-Add-Mul-Mul chain as one.
      {"Gelu", {KILN_ACT_GELU, nullptr, 0, nullptr, 0}},
      // Not an ONNX op: dispatch formation's name for x * Sigmoid(x).
      {"Silu", {KILN_ACT_SILU, nullptr, 0, nullptr, 0}},
  };
  return *specs;
}

}  // namespace

bool MathActivationParams(const ir::Node& node, int64_t* kind, float* alpha, float* beta) {
  const auto it = Specs().find(node.op_type);
  if (it == Specs().end()) return false;
  const ActSpec& s = it->second;
  *kind = s.kind;
  if (node.op_type == "Gelu") {
    const std::string approximate = node.GetString("approximate", "none");
    if (approximate == "tanh") *kind = KILN_ACT_GELU_TANH;
    else if (approximate != "none") return false;
  }
  *alpha = s.alpha_name ? node.GetFloat(s.alpha_name, s.alpha_default) : 0.0f;
  *beta = s.beta_name ? node.GetFloat(s.beta_name, s.beta_default) : 0.0f;
  return true;
}

}  // namespace kiln::compiler
