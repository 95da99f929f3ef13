// RNN, GRU and LSTM (dims may be symbolic) → recurrent_pb_f32 when W and R are float constants
// (packed here into the panels the kernel reads), else recurrent_f32. The
// shape rule appended a scratch output sized for the kernel chosen the same
// way; absent optional inputs and outputs are bound to another buffer with 0
// bytes and flagged off.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/emit/panel_packing.h"
#include "compiler/ir/graph_util.h"
#include "compiler/ops/op_def.h"
#include "compiler/passes/recurrent_scratch.h"
#include "kiln/kernels.h"

namespace kiln::compiler {
namespace {

using ir::ConstantData;
using ir::DType;
using ir::ShapeStr;
using Shape = std::vector<int64_t>;
using emit::kPanel;
using emit::PackPanels16;

absl::Status RecurrentShape(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(3));
  const std::string& op = c.node().op_type;
  const int64_t gates = op == "LSTM" ? 4 : op == "GRU" ? 3 : 1;
  const size_t n_out = op == "LSTM" ? 3 : 2;
  const Shape& x = c.S(0);
  const int64_t layout = c.node().GetInt("layout", 0);
  if (x.size() != 3) return c.Err(absl::StrCat("X must be 3-D, got ", ShapeStr(x)));
  const int64_t seq = layout ? x[1] : x[0], batch = layout ? x[0] : x[1], input = x[2];
  const std::string dir = c.node().GetString("direction", "forward");
  if (dir != "forward" && dir != "reverse" && dir != "bidirectional") {
    return c.Err(absl::StrCat("unknown direction '", dir, "'"));
  }
  const int64_t dirs = dir == "bidirectional" ? 2 : 1;
  int64_t hidden = c.node().GetInt("hidden_size", -1);
  if (hidden < 0) hidden = c.S(2).size() == 3 ? c.S(2)[2] : -1;
  if (hidden > c.kMaxDim) return c.Err(absl::StrCat("hidden_size ", hidden, " is beyond the limits"));
  if (c.S(1) != Shape{dirs, gates * hidden, input} || c.S(2) != Shape{dirs, gates * hidden, hidden}) {
    return c.Err(absl::StrCat("W ", ShapeStr(c.S(1)), " / R ", ShapeStr(c.S(2)),
                              " do not match hidden_size ", hidden, ", input size ", input));
  }
  if (c.Has(3) && c.S(3) != Shape{dirs, 2 * gates * hidden}) return c.Err("B has the wrong shape");
  if (c.Has(4)) {
    if (ir::IsSymbolic(batch) || ir::IsSymbolic(seq)) {
      return c.Err("sequence_lens with a symbolic batch or sequence length is not supported");
    }
    if (ir::ElementCount(c.S(4)) != batch) return c.Err("sequence_lens must have one entry per batch");
    // Run-time lengths are clamped by the kernel; constant ones are checked here.
    if (const ConstantData* lens = c.C(4)) {
      for (int64_t b = 0; b < batch; ++b) {
        if (lens->IntAt(b) < 0 || lens->IntAt(b) > seq) return c.Err("sequence_lens entry out of range");
      }
    }
  }
  Shape state = layout ? Shape{batch, dirs, hidden} : Shape{dirs, batch, hidden};
  for (size_t k : {size_t{5}, size_t{6}}) {
    if (k == 6 && op != "LSTM") break;
    if (!c.Has(k)) continue;
    const Shape& s = c.S(k);
    bool ok = s.size() == state.size();
    for (size_t d = 0; ok && d < s.size(); ++d) {
      if (s[d] == state[d]) continue;
      // A batch from another input's symbol (X [N, ...], state [2, M, H]):
      // ONNX requires them equal, so the run checks it.
      ok = ir::IsSymbolic(s[d]) || ir::IsSymbolic(state[d]);
      if (ok) state[d] = c.dims().AssumeEqual(state[d], s[d]);
    }
    if (!ok) return c.Err("initial state has the wrong shape");
  }
  if (op == "LSTM" && c.Has(7) && c.S(7) != Shape{dirs, 3 * hidden}) return c.Err("P has the wrong shape");
  if (c.node().HasAttr("activations")) {
    const auto& acts = c.node().attributes.at("activations").strings;
    const size_t per = op == "LSTM" ? 3 : op == "GRU" ? 2 : 1;
    if (acts.size() != per * dirs) return c.Err("activations list has the wrong length");
  }
  const DType t = c.T(0);
  KILN_RETURN_IF_ERROR(c.Set(0, t, layout ? Shape{batch, seq, dirs, hidden}
                                          : Shape{seq, dirs, batch, hidden}));
  for (size_t k = 1; k < n_out; ++k) KILN_RETURN_IF_ERROR(c.Set(k, t, state));
  // The kernel's scratch (kiln/kernels.h): smaller when W and R are constants
  // the lowering packs at compile time (recurrent_pb_f32).
  const int64_t cell = op == "LSTM" ? 2 : op == "GRU" ? 1 : 0;
  const bool packed = c.C(1) && c.C(2) && c.T(1) == DType::F32 && c.T(2) == DType::F32;
  const int64_t scratch = RecurrentScratchFloats(c.dims(), cell, seq, input, hidden, dirs, packed);
  if (!ir::IsSymbolic(scratch) && scratch < 0) {
    return c.Err("the recurrent kernel's scratch size overflows");
  }
  return c.SetScratch(n_out, DType::F32, {scratch});
}


struct ActDef {
  const char* name;
  int64_t code;
  float alpha, beta;  // ONNX defaults
};

constexpr ActDef kActs[] = {
    {"Sigmoid", 0, 0, 0},         {"Tanh", 1, 0, 0},        {"Relu", 2, 0, 0},
    {"Affine", 3, 1.0f, 0.0f},    {"LeakyRelu", 4, 0.01f, 0}, {"ThresholdedRelu", 5, 1.0f, 0},
    {"ScaledTanh", 6, 1.0f, 1.0f}, {"HardSigmoid", 7, 0.2f, 0.5f}, {"Elu", 8, 1.0f, 0},
    {"Softsign", 9, 0, 0},        {"Softplus", 10, 0, 0},
};

// W [dirs, G*H, k] (k = input for W, H for R) as recurrent_pb_f32 reads it:
// per direction and gate, the [k, H] block transposed in 16-column panels.
ir::ConstantPtr PackGatePanels(const ir::ConstantData& w, int64_t dirs, int64_t gates,
                               int64_t hidden, int64_t k) {
  auto out = std::make_shared<ir::ConstantData>();
  const int64_t panels = (hidden + kPanel - 1) / kPanel;
  out->dtype = ir::DType::F32;
  out->shape = {dirs, gates, panels, k, kPanel};
  for (int64_t d = 0; d < dirs; ++d) {
    for (int64_t g = 0; g < gates; ++g) {
      const int64_t row0 = (d * gates + g) * hidden;
      const ir::ConstantPtr block = PackPanels16(
          w, k, hidden, [&](int64_t kk, int64_t j) { return (row0 + j) * k + kk; });
      out->bytes.insert(out->bytes.end(), block->bytes.begin(), block->bytes.end());
    }
  }
  return out;
}

absl::Status LowerRecurrent(emit::LoweringContext& ctx, const ir::Node& node) {
  const std::string& op = node.op_type;
  const int64_t cell = op == "LSTM" ? 2 : op == "GRU" ? 1 : 0;
  const size_t n_out = op == "LSTM" ? 3 : 2, per = op == "LSTM" ? 3 : op == "GRU" ? 2 : 1;
  if (node.outputs.size() != n_out + 1 || node.GetInt("kiln.scratch", 0) != 1) {
    return ctx.Invalid(node, "the scratch output is missing");
  }
  for (size_t k : {size_t{0}, size_t{1}, size_t{2}, size_t{3}, size_t{5}, size_t{6}, size_t{7}}) {
    if (k < node.inputs.size() && node.inputs[k] != ir::kNoValue &&
        ctx.value(node.inputs[k]).dtype != ir::DType::F32) {
      return ctx.Unimplemented(node, "only float32 recurrent ops are supported");
    }
  }
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto r, ctx.InputShape(node, 2));
  const int64_t layout = node.GetInt("layout", 0);
  const int64_t seq = layout ? x[1] : x[0], batch = layout ? x[0] : x[1];
  const int64_t hidden = r[2], dirs = r[0];
  const std::string dir = node.GetString("direction", "forward");
  const int64_t direction = dir == "reverse" ? 1 : dir == "bidirectional" ? 2 : 0;

  auto present_in = [&](size_t k) { return k < node.inputs.size() && node.inputs[k] != ir::kNoValue; };
  auto present_out = [&](size_t k) { return k < n_out && node.outputs[k] != ir::kNoValue; };
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  std::vector<emit::Binding> b(12, bx);
  std::vector<int64_t> bytes(12, 0);
  auto bind_in = [&](size_t slot, size_t k) -> absl::Status {
    if (!present_in(k)) return absl::OkStatus();
    KILN_ASSIGN_OR_RETURN(b[slot], ctx.Bind(node, node.inputs[k]));
    bytes[slot] = -1;
    return absl::OkStatus();
  };
  auto bind_out = [&](size_t slot, size_t k) -> absl::Status {
    if (k < n_out && !present_out(k)) return absl::OkStatus();
    KILN_ASSIGN_OR_RETURN(b[slot], ctx.Bind(node, node.outputs[k]));
    bytes[slot] = -1;
    return absl::OkStatus();
  };
  KILN_RETURN_IF_ERROR(bind_in(0, 0));
  KILN_RETURN_IF_ERROR(bind_in(1, 1));
  KILN_RETURN_IF_ERROR(bind_in(2, 2));
  KILN_RETURN_IF_ERROR(bind_in(3, 3));
  KILN_RETURN_IF_ERROR(bind_in(4, 5));
  if (cell == 2) {
    KILN_RETURN_IF_ERROR(bind_in(5, 6));
    KILN_RETURN_IF_ERROR(bind_in(6, 7));
  }
  KILN_RETURN_IF_ERROR(bind_out(7, 0));
  KILN_RETURN_IF_ERROR(bind_out(8, 1));
  if (cell == 2) KILN_RETURN_IF_ERROR(bind_out(9, 2));
  KILN_RETURN_IF_ERROR(bind_out(10, n_out));
  const bool lens_at_run_time = present_in(4) && !ctx.value(node.inputs[4]).constant;
  if (lens_at_run_time) {
    if (ctx.value(node.inputs[4]).dtype != ir::DType::I32) {
      return ctx.Invalid(node, "sequence_lens must be int32");
    }
    KILN_RETURN_IF_ERROR(bind_in(11, 4));
  }

  emit::kernel::RecurrentF32 rnn;
  rnn.cell = cell;
  rnn.seq = seq;
  rnn.batch = batch;
  rnn.input = x[2];
  rnn.hidden = hidden;
  rnn.num_dirs = dirs;
  rnn.direction = direction;
  rnn.layout = layout;
  rnn.has_b = present_in(3);
  rnn.has_h0 = present_in(5);
  rnn.has_c0 = cell == 2 && present_in(6);
  rnn.has_p = cell == 2 && present_in(7);
  rnn.has_y = present_out(0);
  rnn.has_yh = present_out(1);
  rnn.has_yc = cell == 2 && present_out(2);
  rnn.linear_before_reset = node.GetInt("linear_before_reset", 0) != 0;
  rnn.input_forget = node.GetInt("input_forget", 0) != 0;
  rnn.has_clip = node.HasAttr("clip");
  rnn.has_lens = lens_at_run_time ? 1 : present_in(4) ? 0 : 2;
  // Activations: per direction f (, g (, h)); missing slots stay Sigmoid.
  std::vector<std::string> names;
  if (node.HasAttr("activations")) {
    names = node.attributes.at("activations").strings;
  } else {
    const std::vector<std::string> def =
        cell == 2 ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
        : cell == 1 ? std::vector<std::string>{"Sigmoid", "Tanh"} : std::vector<std::string>{"Tanh"};
    for (int64_t d = 0; d < dirs; ++d) names.insert(names.end(), def.begin(), def.end());
  }
  std::vector<float> alphas, betas;
  if (node.HasAttr("activation_alpha")) alphas = node.attributes.at("activation_alpha").floats;
  if (node.HasAttr("activation_beta")) betas = node.attributes.at("activation_beta").floats;
  std::vector<int64_t>& codes = rnn.act;
  codes.assign(6, 0);
  rnn.alpha.assign(6, 0.0f);
  rnn.beta.assign(6, 0.0f);
  rnn.clip = node.GetFloat("clip", 0.0f);
  for (size_t i = 0; i < names.size(); ++i) {
    const ActDef* def = nullptr;
    for (const ActDef& a : kActs) {
      if (names[i] == a.name) def = &a;
    }
    if (!def) return ctx.Unimplemented(node, absl::StrCat("activation '", names[i], "'"));
    const size_t slot = (i / per) * 3 + i % per;
    if (slot >= 6) return ctx.Invalid(node, "too many activations");
    codes[slot] = def->code;
    rnn.alpha[slot] = i < alphas.size() ? alphas[i] : def->alpha;
    rnn.beta[slot] = i < betas.size() ? betas[i] : def->beta;
  }
  // Without sequence_lens every length is seq (has_lens 2): no per-batch
  // list, so a symbolic batch needs none.
  for (int64_t k = 0; present_in(4) && k < batch; ++k) {
    rnn.seq_lens.push_back(ctx.value(node.inputs[4]).constant
                               ? ctx.value(node.inputs[4]).constant->IntAt(k)
                               : seq);
  }
  // The kernel whose scratch the shape rule planned (the same test).
  const ir::Value& w = ctx.value(node.inputs[1]);
  const ir::Value& rv = ctx.value(node.inputs[2]);
  const bool packed = w.constant && rv.constant && w.dtype == ir::DType::F32 &&
                      rv.dtype == ir::DType::F32;
  const int64_t want = RecurrentScratchFloats(ctx.dims(), cell, seq, x[2], hidden, dirs, packed);
  const std::vector<int64_t>& planned = ctx.value(node.outputs[n_out]).shape;
  if (planned.size() != 1 || !ctx.dims().SameDim(planned[0], want)) {
    return ctx.Invalid(node, "the scratch output does not have the kernel's size");
  }
  if (!packed) return ctx.Dispatch(node, rnn, b, bytes);
  const int64_t gates = cell == 2 ? 4 : cell == 1 ? 3 : 1;
  b[1] = ctx.BindNewConstant(absl::StrCat(w.name, ".packed"),
                             PackGatePanels(*w.constant, dirs, gates, hidden, x[2]));
  b[2] = ctx.BindNewConstant(absl::StrCat(rv.name, ".packed"),
                             PackGatePanels(*rv.constant, dirs, gates, hidden, hidden));
  return ctx.Dispatch(node, emit::kernel::RecurrentPbF32(rnn), b, bytes);
}

}  // namespace

void RegisterRecurrentOps(std::vector<OpDef>& ops) {
  for (const char* op : {"RNN", "GRU", "LSTM"}) {
    ops.push_back({op, RecurrentShape, /*symbolic=*/true, LowerRecurrent});
  }
}

}  // namespace kiln::compiler
