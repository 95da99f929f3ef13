#include "compiler/passes/conv_algorithm.h"

#include <vector>

#include "compiler/passes/shape_rule_context.h"
#include "kiln/conv_winograd.h"

namespace kiln::compiler {
namespace {

bool StaticShape(const ir::Value& v, size_t rank) {
  if (v.dtype != ir::DType::F32 || !v.has_shape || v.shape.size() != rank) return false;
  for (int64_t d : v.shape) {
    if (d < 0 || ir::IsSymbolic(d)) return false;
  }
  return true;
}

bool AllOnes(const std::vector<int64_t>& v) {
  for (int64_t x : v) {
    if (x != 1) return false;
  }
  return true;
}

// A 2-D Conv that conv2d_winograd_f32 computes: float32, constant weights
// [OC, C, 3, 3], one group, strides and dilations 1, static shapes.
bool WinogradShaped(const ir::Graph& g, const ir::Node& n) {
  if (n.op_type != "Conv" || !n.domain.empty() || n.inputs.size() < 2 || n.outputs.size() != 1) {
    return false;
  }
  const ir::Value& x = g.value(n.inputs[0]);
  const ir::Value& w = g.value(n.inputs[1]);
  const ir::Value& y = g.value(n.outputs[0]);
  if (w.constant == nullptr || w.constant->dtype != ir::DType::F32 || !StaticShape(w, 4) ||
      !StaticShape(x, 4) || !StaticShape(y, 4)) {
    return false;
  }
  const std::vector<int64_t> one = {1, 1};
  return n.GetInt("group", 1) == 1 && w.shape[2] == 3 && w.shape[3] == 3 &&
         w.shape[1] == x.shape[1] && w.shape[0] == y.shape[1] &&
         AllOnes(n.GetInts("kiln.strides", n.GetInts("strides", one))) &&
         AllOnes(n.GetInts("kiln.dilations", n.GetInts("dilations", one)));
}

}  // namespace

bool WinogradWins(int64_t channels, int64_t out_channels, int64_t out_h, int64_t out_w) {
  return channels >= 16 && out_channels >= 16 && out_h >= 7 && out_w >= 7;
}

absl::Status ChooseConvAlgorithms(ir::Graph& graph) {
  for (ir::Node& node : graph.nodes) {
    if (node.removed || !WinogradShaped(graph, node)) continue;
    const std::vector<int64_t>& x = graph.value(node.inputs[0]).shape;
    const std::vector<int64_t>& y = graph.value(node.outputs[0]).shape;
    if (!WinogradWins(x[1], y[1], y[2], y[3])) continue;
    // Few tiles share each weight: the kernel transforms the plain weights
    // itself rather than read U, 4x their size (kiln/conv_winograd.h). A
    // plane under 8x8 always gets them: they are also the direct kernel's,
    // which the AVX-512 path runs on such planes.
    const int64_t tiles = x[0] * kiln_winograd_tiles(y[2]) * kiln_winograd_tiles(y[3]);
    const bool transformed =
        tiles > KILN_WINOGRAD_RAW_MAX_TILES && !kiln_winograd_plain_tap_major(y[2], y[3]);
    node.SetInt("kiln.winograd", transformed ? 1 : 2);
    const std::vector<ir::ConstantPtr> no_known_values;
    ShapeRuleContext rule(graph, node, no_known_values);
    absl::Status s = rule.SetScratch(
        1, ir::DType::F32,
        {kiln_winograd_scratch_floats(x[0], x[1], y[1], y[2], y[3], transformed ? 1 : 0)});
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace kiln::compiler
