// The audio front end: DFT (dft_f32), STFT (stft_f32), the windows
// HannWindow, HammingWindow, BlackmanWindow (signal_window) and
// MelWeightMatrix (mel_weight_matrix). Shape inference
// (passes/shape_rules_spectral.cc) resolved the axis, the transform length,
// the window and matrix sizes and, when static, STFT's frame length. Each transform length known here
// gets a constant table of cos / sin of 2 pi m / n in double, computed once
// at compile time so the kernels spend no trigonometry per term.
#include <cmath>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/emit/lower_ops.h"
#include "compiler/ir/graph_util.h"
#include "kiln/kernels.h"

namespace kiln::compiler::emit {
namespace {

using Shape = std::vector<int64_t>;

// Tables past this many entries (16 bytes each) are not worth their size:
// the kernel computes those twiddles with cos / sin instead.
constexpr int64_t kMaxTable = int64_t{1} << 16;

Binding TwiddleTable(LoweringContext& ctx, const ir::Node& node, int64_t n) {
  std::vector<double> t(static_cast<size_t>(2 * n));
  const double two_pi = 6.28318530717958647692;
  for (int64_t m = 0; m < n; ++m) {
    const double a = two_pi * static_cast<double>(m) / static_cast<double>(n);
    t[2 * m] = std::cos(a);
    t[2 * m + 1] = std::sin(a);
  }
  std::vector<uint8_t> bytes(t.size() * sizeof(double));
  std::memcpy(bytes.data(), t.data(), bytes.size());
  return ctx.BindNewConstant(absl::StrCat(node.name, ".twiddles"),
                             ir::MakeConstant(ir::DType::F64, {n, 2}, std::move(bytes)));
}

absl::Status LowerDft(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(Shape x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(Shape y, ctx.OutputShape(node, 0));
  KILN_RETURN_IF_ERROR(ctx.RequireStatic(node, x, "input"));
  if (!node.HasAttr("kiln.axis") || !node.HasAttr("kiln.n")) {
    return ctx.Invalid(node, "the axis and transform length were not resolved");
  }
  const int64_t axis = node.GetInt("kiln.axis", 1), n = node.GetInt("kiln.n", 0);
  if (axis < 0 || axis + 1 >= static_cast<int64_t>(x.size()) || y.size() != x.size()) {
    return ctx.Invalid(node, "the axis was not resolved");
  }
  if (n > kMaxTable) return ctx.Unimplemented(node, "dft_length beyond 65536 is not supported");
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x[d];
  for (size_t d = axis + 1; d + 1 < x.size(); ++d) inner *= x[d];
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  const Binding bt = TwiddleTable(ctx, node, n);
  Shape ip = {outer, x[axis], inner, x.back(), n, y[axis],
              node.GetInt("inverse", 0) != 0 ? 1 : 0};
  return ctx.Dispatch(node, "dft_f32", std::move(ip), {}, {bx, bt, by});
}

absl::Status LowerStft(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(Shape x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(Shape y, ctx.OutputShape(node, 0));
  KILN_RETURN_IF_ERROR(ctx.RequireStatic(node, x, "signal"));
  KILN_RETURN_IF_ERROR(ctx.RequireStatic(node, y, "output"));
  if (x.size() != 3 || y.size() != 4) return ctx.Invalid(node, "the shapes were not resolved");
  const int64_t fl = node.GetInt("kiln.frame_length", 0);
  const bool has_window = HasInput(node, 2), has_fl = HasInput(node, 3);
  int64_t window_len = 0;
  if (has_window) {
    KILN_ASSIGN_OR_RETURN(Shape w, ctx.InputShape(node, 2));
    window_len = w.at(0);
  }
  const int64_t table_n = fl > 0 && fl <= kMaxTable ? fl : 0;
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding bs, ctx.Bind(node, node.inputs[1]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  // Absent operands alias the signal with no bytes: the kernel never reads them.
  Binding bw = bx, bf = bx, bt = bx;
  if (has_window) {
    KILN_ASSIGN_OR_RETURN(bw, ctx.Bind(node, node.inputs[2]));
  }
  if (has_fl) {
    KILN_ASSIGN_OR_RETURN(bf, ctx.Bind(node, node.inputs[3]));
  }
  if (table_n > 0) bt = TwiddleTable(ctx, node, table_n);
  const auto code = [&](size_t k) { return static_cast<int64_t>(ctx.value(node.inputs[k]).dtype); };
  Shape ip = {x[0], x[1], x[2], y[1], y[2], node.GetInt("onesided", 1) != 0 ? 1 : 0,
              window_len, has_fl ? 1 : 0, table_n, code(1), has_fl ? code(3) : 0};
  return ctx.Dispatch(node, "stft_f32", std::move(ip), {}, {bx, bs, bw, bf, bt, by},
                      {-1, -1, has_window ? -1 : 0, has_fl ? -1 : 0, table_n > 0 ? -1 : 0, -1});
}

absl::Status LowerSignalWindow(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(Shape y, ctx.OutputShape(node, 0));
  const int64_t kind = node.op_type == "HannWindow" ? 0 : node.op_type == "HammingWindow" ? 1 : 2;
  KILN_ASSIGN_OR_RETURN(Binding bs, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  Shape ip = {kind, y[0], node.GetInt("periodic", 1) != 0 ? 1 : 0, DTypeCode(ctx, node.inputs[0]),
              static_cast<int64_t>(ctx.value(node.outputs[0]).dtype)};
  return ctx.Dispatch(node, "signal_window", std::move(ip), {}, {bs, by});
}

absl::Status LowerMel(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(Shape y, ctx.OutputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(std::vector<Binding> binds, BindAll(ctx, node, {0, 1, 2, 3, 4}));
  Shape ip = {y[1], y[0], DTypeCode(ctx, node.inputs[0]), DTypeCode(ctx, node.inputs[3]),
              static_cast<int64_t>(ctx.value(node.outputs[0]).dtype)};
  return ctx.Dispatch(node, "mel_weight_matrix", std::move(ip), {}, binds);
}

}  // namespace

void RegisterSpectralLowerings(LoweringTable& table) {
  table["HannWindow"] = LowerSignalWindow;
  table["HammingWindow"] = LowerSignalWindow;
  table["BlackmanWindow"] = LowerSignalWindow;
  table["MelWeightMatrix"] = LowerMel;
  table["DFT"] = LowerDft;
  table["STFT"] = LowerStft;
}

}  // namespace kiln::compiler::emit
