// The audio front end: the spectral ops DFT (dft_f32) and STFT (stft_f32)
// (opset 17), float32 with a trailing component dim (1 real, 2 complex), and
// the signal constants HannWindow, HammingWindow, BlackmanWindow
// (signal_window) and MelWeightMatrix (mel_weight_matrix), whose sizes come
// from constant inputs, else from the model's declared output shape (the
// kernel re-checks the run-time input), else — at top level — from the run:
// a dims kernel reports them (shape_resolve, stft_dims,
// mel_weight_matrix_dims) and they are patched into the kernel's parameters
// (the output goes to the workspace's tail, sized without a bound). The shape
// rules resolve what the lowering needs into attributes:
//   DFT:  kiln.axis (normalised), kiln.n (transform length);
//   STFT: kiln.frame_length (0 when only known at run time).
// DFT's dft_length must be a constant. STFT's frame_step / frame_length may
// be run-time scalars; the stft_f32 kernel re-checks them against the
// shape it was given. Each
// transform length known at compile time gets a constant table of cos / sin
// of 2 pi m / n in double, so the kernels spend no trigonometry per term.
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"
#include "compiler/ops/op_def.h"
#include "kiln/kernels.h"

namespace kiln::compiler {
namespace {

using emit::BindAll;
using emit::Binding;
using emit::DTypeCode;
using emit::HasInput;
using emit::LoweringContext;
using ir::DType;
using Shape = std::vector<int64_t>;
using Ctx = ShapeRuleContext;

// Float32 [..., 1 or 2] with static dims: what both ops take.
absl::Status CheckSignal(Ctx& c, size_t k, const char* what, int64_t min_rank) {
  if (c.T(k) != DType::F32) return c.Err(absl::StrCat(what, " must be float32"));
  if (c.Rank(k) < min_rank) {
    return c.Err(absl::StrCat(what, " must have rank >= ", min_rank, ", got ",
                              ir::ShapeStr(c.S(k))));
  }
  for (int64_t d : c.S(k)) KILN_RETURN_IF_ERROR(c.RequireStatic(d, what));
  const int64_t comps = c.S(k).back();
  if (comps != 1 && comps != 2) {
    return c.Err(absl::StrCat("the last dim of ", what,
                              " must be 1 (real) or 2 (complex), got ", comps));
  }
  return absl::OkStatus();
}

// A compile-time scalar integer input, or false when it is only known at run time.
absl::Status ConstScalar(Ctx& c, size_t k, const char* what, bool* known, int64_t* v) {
  *known = false;
  if (c.T(k) != DType::I32 && c.T(k) != DType::I64) {
    return c.Err(absl::StrCat(what, " must be int32 or int64"));
  }
  if (c.In(k).has_shape && ir::ElementCount(c.S(k)) != 1) {
    return c.Err(absl::StrCat(what, " must hold one value"));
  }
  const ir::ConstantData* d = c.C(k);
  if (!d) return absl::OkStatus();
  if (d->element_count() != 1) return c.Err(absl::StrCat(what, " must hold one value"));
  *v = d->IntAt(0);
  if (*v < 1 || *v > Ctx::kMaxDim) return c.Err(absl::StrCat(what, " must be >= 1, got ", *v));
  *known = true;
  return absl::OkStatus();
}

// Whether the model declares dim `d` of the output as a number.
bool DeclaresDim(const Ctx& c, size_t d) {
  const int64_t v = c.DeclaredDim(0, d);
  return v >= 0 && !ir::IsSymbolic(v);
}

// Dim `d` of the output as the model declares it, or an error saying which
// input would have decided it.
absl::Status DeclaredDim(const Ctx& c, size_t d, const char* what, int64_t* out) {
  if (DeclaresDim(c, d)) {
    *out = c.DeclaredDim(0, d);
    return absl::OkStatus();
  }
  return c.Err(absl::StrCat(what, " is not known at compile time and the output's dim ", d,
                            " is not declared"));
}

absl::Status Dft(Ctx& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  KILN_RETURN_IF_ERROR(CheckSignal(c, 0, "input", 2));
  const Shape& x = c.S(0);
  const int64_t r = c.Rank(0);
  int64_t axis = c.node().GetInt("axis", 1);
  if (axis < 0) axis += r;
  if (axis < 0 || axis >= r - 1) {
    return c.Err(absl::StrCat("axis ", c.node().GetInt("axis", 1),
                              " must name a signal dim (not the last) of rank ", r));
  }
  int64_t n = x[axis];
  if (c.Has(1)) {
    bool known = false;
    KILN_RETURN_IF_ERROR(ConstScalar(c, 1, "dft_length", &known, &n));
    if (!known) {
      return absl::UnimplementedError(
          absl::StrCat(c.graph().source, ": node ", c.node().Describe(),
                       ": dft_length must be a compile-time constant"));
    }
  }
  if (n < 1) return c.Err("the transform length must be >= 1");
  const bool inverse = c.node().GetInt("inverse", 0) != 0;
  const bool onesided = c.node().GetInt("onesided", 0) != 0;
  if (onesided && inverse) return c.Err("onesided with inverse is not supported");
  if (onesided && x.back() == 2) return c.Err("onesided output needs a real input");
  c.node().SetInt("kiln.axis", axis);
  c.node().SetInt("kiln.n", n);
  Shape y = x;
  y[axis] = onesided ? n / 2 + 1 : n;
  y.back() = 2;
  return c.Set(0, DType::F32, std::move(y));
}

absl::Status Stft(Ctx& c) {
  KILN_RETURN_IF_ERROR(c.Need(2));
  KILN_RETURN_IF_ERROR(CheckSignal(c, 0, "signal", 3));
  if (c.Rank(0) != 3) return c.Err("signal must be [batch, length, 1 or 2]");
  const Shape& x = c.S(0);
  const bool onesided = c.node().GetInt("onesided", 1) != 0;
  if (onesided && x[2] == 2) return c.Err("onesided output needs a real signal");
  bool step_known = false, fl_known = false;
  int64_t step = 0, fl = 0;
  KILN_RETURN_IF_ERROR(ConstScalar(c, 1, "frame_step", &step_known, &step));
  if (c.Has(2)) {
    if (c.T(2) != DType::F32 || c.Rank(2) != 1 || ir::IsSymbolic(c.S(2)[0])) {
      return c.Err("window must be a static float32 vector");
    }
    fl = c.S(2)[0];
    fl_known = true;
  }
  if (c.Has(3)) {
    bool known = false;
    int64_t v = 0;
    KILN_RETURN_IF_ERROR(ConstScalar(c, 3, "frame_length", &known, &v));
    if (known && fl_known && v != fl) {
      return c.Err(absl::StrCat("frame_length ", v, " differs from the window's length ", fl));
    }
    if (known) {
      fl = v;
      fl_known = true;
    }
  } else if (!fl_known) {
    return c.Err("needs a window or a frame_length");
  }
  if (fl_known && (fl < 1 || fl > x[1])) {
    return c.Err(absl::StrCat("frame length ", fl, " must be in 1..", x[1]));
  }
  c.node().SetInt("kiln.frame_length", fl_known ? fl : 0);
  const int64_t batch = x[0], length = x[1];  // copies: reporting dims may move x
  std::optional<int64_t> frames, bins;
  if (step_known && fl_known) frames = (length - fl) / step + 1;
  if (fl_known) bins = onesided ? fl / 2 + 1 : fl;
  if (!frames || !bins) {
    // Unknown counts the model declares are compiled as declared (the kernel
    // re-checks them); else, at top level, stft_dims reports them.
    const bool declared = (frames || DeclaresDim(c, 1)) && (bins || DeclaresDim(c, 2));
    if (c.node().GetInt("kiln.result_dims", 0) != 0 || (!declared && c.graph().scope.empty())) {
      KILN_ASSIGN_OR_RETURN(const ir::ValueId dims, c.ReportedDimsOutput(1, 2));
      if (!frames) frames = c.ReportedDim(dims, 0, ir::kNoBound, 0, ".frames");
      if (!bins) bins = c.ReportedDim(dims, 1, ir::kNoBound, 0, ".bins");
    } else {
      int64_t v = 0;
      if (!frames) {
        KILN_RETURN_IF_ERROR(DeclaredDim(c, 1, "frame_step or frame_length", &v));
        frames = v;
      }
      if (!bins) {
        KILN_RETURN_IF_ERROR(DeclaredDim(c, 2, "frame_length", &v));
        bins = v;
      }
    }
  }
  return c.Set(0, DType::F32, {batch, *frames, *bins, 2});
}

absl::Status OutputFloat(Ctx& c, DType* t) {
  *t = ir::DTypeFromOnnx(c.node().GetInt("output_datatype", 1));
  if (*t != DType::F32 && *t != DType::F64 && *t != DType::F16) {
    return c.Err("output_datatype must be a float type");
  }
  return absl::OkStatus();
}

absl::Status SignalWindow(Ctx& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  if (c.T(0) != DType::I32 && c.T(0) != DType::I64) return c.Err("size must be int32 or int64");
  DType t;
  KILN_RETURN_IF_ERROR(OutputFloat(c, &t));
  // A run-time size without a declared output shape: the length is
  // reported during the run (shape_resolve), without a bound.
  if (c.node().GetInt("kiln.result_dims", 0) != 0 ||
      (c.C(0) == nullptr && c.DeclaredDim(0, 0) < 0 && c.graph().scope.empty())) {
    if (ir::ElementCount(c.S(0)) != 1) return c.Err("size must hold one value");
    KILN_ASSIGN_OR_RETURN(const ir::ValueId dims, c.ReportedDimsOutput(1, 1));
    return c.Set(0, t, {c.ReportedDim(dims, 0, ir::kNoBound, 0, ".length")});
  }
  int64_t n = 0;
  KILN_RETURN_IF_ERROR(c.SizeInput(0, "size", 0, 0, &n));
  return c.Set(0, t, {n});
}

absl::Status MelWeightMatrix(Ctx& c) {
  KILN_RETURN_IF_ERROR(c.Need(5));
  if (c.T(0) != c.T(1) || c.T(0) != c.T(2) || (c.T(0) != DType::I32 && c.T(0) != DType::I64)) {
    return c.Err("num_mel_bins, dft_length and sample_rate must share an int32/int64 dtype");
  }
  if (c.T(3) != c.T(4) || (c.T(3) != DType::F32 && c.T(3) != DType::F64 && c.T(3) != DType::F16)) {
    return c.Err("lower_edge_hertz and upper_edge_hertz must share a float dtype");
  }
  DType t;
  KILN_RETURN_IF_ERROR(OutputFloat(c, &t));
  std::optional<int64_t> bins, spec;
  int64_t v = 0;
  if (c.C(0)) {
    KILN_RETURN_IF_ERROR(c.SizeInput(0, "num_mel_bins", 1, 0, &v));
    bins = v;
  }
  if (const ir::ConstantData* d = c.C(1)) {
    if (d->element_count() != 1 || d->IntAt(0) < 0 || d->IntAt(0) > Ctx::kMaxDim) {
      return c.Err("dft_length must be one value in range");
    }
    spec = d->IntAt(0) / 2 + 1;
  }
  const bool declared = (bins || DeclaresDim(c, 1)) && (spec || DeclaresDim(c, 0));
  if ((!bins || !spec) && (c.node().GetInt("kiln.result_dims", 0) != 0 ||
                           (!declared && c.graph().scope.empty()))) {
    // Run-time sizes the model does not declare: mel_weight_matrix_dims
    // reports them.
    KILN_ASSIGN_OR_RETURN(const ir::ValueId dims, c.ReportedDimsOutput(1, 2));
    if (!spec) spec = c.ReportedDim(dims, 0, ir::kNoBound, 0, ".spectrum_bins");
    if (!bins) bins = c.ReportedDim(dims, 1, ir::kNoBound, 0, ".mel_bins");
  }
  if (!bins) {
    KILN_RETURN_IF_ERROR(c.SizeInput(0, "num_mel_bins", 1, 0, &v));
    bins = v;
  }
  if (!spec) {
    KILN_RETURN_IF_ERROR(c.SizeInput(1, "dft_length", 0, 0, &v));
    spec = v;
  }
  return c.Set(0, t, {*spec, *bins});
}

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
  emit::kernel::DftF32 dft;
  dft.O = outer;
  dft.N_in = x[axis];
  dft.I = inner;
  dft.C = x.back();
  dft.n = n;
  dft.K = y[axis];
  dft.inverse = node.GetInt("inverse", 0) != 0 ? 1 : 0;
  return ctx.Dispatch(node, dft, {bx, bt, by});
}

absl::Status LowerStft(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(Shape x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(Shape y, ctx.OutputShape(node, 0));
  KILN_RETURN_IF_ERROR(ctx.RequireStatic(node, x, "signal"));
  const bool reports_dims = node.GetInt("kiln.result_dims", 0) != 0;
  if (!reports_dims) KILN_RETURN_IF_ERROR(ctx.RequireStatic(node, y, "output"));
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
  const auto code = [&](size_t k) { return emit::DTypeCode(ctx, node.inputs[k]); };
  if (reports_dims) {  // F and K from the run-time scalars, patched into stft_f32
    KILN_ASSIGN_OR_RETURN(Binding dims, ctx.Bind(node, node.outputs.back()));
    emit::kernel::StftDims sizes;
    sizes.L = x[1];
    sizes.onesided = node.GetInt("onesided", 1) != 0 ? 1 : 0;
    sizes.window_len = window_len;
    sizes.has_frame_length = has_fl ? 1 : 0;
    sizes.step_dtype = code(1);
    sizes.frame_length_dtype = has_fl ? code(3) : 0;
    KILN_RETURN_IF_ERROR(ctx.Dispatch(node, sizes, {bs, bf, dims}, {-1, has_fl ? -1 : 0, -1}));
  }
  emit::kernel::StftF32 stft;
  stft.B = x[0];
  stft.L = x[1];
  stft.C = x[2];
  stft.F = y[1];
  stft.K = y[2];
  stft.onesided = node.GetInt("onesided", 1) != 0 ? 1 : 0;
  stft.window_len = window_len;
  stft.has_frame_length = has_fl ? 1 : 0;
  stft.table_n = table_n;
  stft.step_dtype = code(1);
  stft.frame_length_dtype = has_fl ? code(3) : 0;
  return ctx.Dispatch(node, stft, {bx, bs, bw, bf, bt, by},
                      {-1, -1, has_window ? -1 : 0, has_fl ? -1 : 0, table_n > 0 ? -1 : 0, -1});
}

absl::Status LowerSignalWindow(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(Shape y, ctx.OutputShape(node, 0));
  const int64_t kind = node.op_type == "HannWindow" ? 0 : node.op_type == "HammingWindow" ? 1 : 2;
  KILN_ASSIGN_OR_RETURN(Binding bs, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  if (node.GetInt("kiln.result_dims", 0) != 0) {  // the size is the length (no cap)
    KILN_ASSIGN_OR_RETURN(Binding dims, ctx.Bind(node, node.outputs.back()));
    emit::kernel::ShapeResolve resolve;
    resolve.mode = KILN_SHAPE_CHECK_EXACT;
    resolve.dtype = DTypeCode(ctx, node.inputs[0]);
    resolve.count = 1;
    resolve.flag = 0;
    resolve.IR = 0;
    resolve.OR = 1;
    resolve.out_dims = {-1};
    KILN_RETURN_IF_ERROR(ctx.Dispatch(node, resolve, {bs, dims}));
  }
  emit::kernel::SignalWindow window;
  window.kind = kind;
  window.N = y[0];
  window.periodic = node.GetInt("periodic", 1) != 0 ? 1 : 0;
  window.size_dtype = DTypeCode(ctx, node.inputs[0]);
  window.out_dtype = emit::DTypeCode(ctx, node.outputs[0]);
  return ctx.Dispatch(node, window, {bs, by});
}

absl::Status LowerMel(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(Shape y, ctx.OutputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(std::vector<Binding> binds, BindAll(ctx, node, {0, 1, 2, 3, 4}));
  if (node.GetInt("kiln.result_dims", 0) != 0) {  // sizes patched into mel_weight_matrix
    KILN_ASSIGN_OR_RETURN(Binding dims, ctx.Bind(node, node.outputs.back()));
    emit::kernel::MelWeightMatrixDims sizes;
    sizes.int_dtype = DTypeCode(ctx, node.inputs[0]);
    KILN_RETURN_IF_ERROR(ctx.Dispatch(node, sizes, {binds[0], binds[1], dims}));
  }
  emit::kernel::MelWeightMatrix mel;
  mel.num_mel_bins = y[1];
  mel.spec_bins = y[0];
  mel.int_dtype = DTypeCode(ctx, node.inputs[0]);
  mel.float_dtype = DTypeCode(ctx, node.inputs[3]);
  mel.out_dtype = emit::DTypeCode(ctx, node.outputs[0]);
  return ctx.Dispatch(node, mel, binds);
}

}  // namespace

void RegisterSpectralOps(std::vector<OpDef>& ops) {
  ops.push_back({"DFT", Dft, /*symbolic=*/false, LowerDft});
  // Symbolic: run-time frame counts without a declaration give reported dims
  // (the signal itself must be static).
  ops.push_back({"STFT", Stft, /*symbolic=*/true, LowerStft});
  // Symbolic: a run-time size without a declaration gives a reported length.
  ops.push_back({"HannWindow", SignalWindow, /*symbolic=*/true, LowerSignalWindow});
  ops.push_back({"HammingWindow", SignalWindow, /*symbolic=*/true, LowerSignalWindow});
  ops.push_back({"BlackmanWindow", SignalWindow, /*symbolic=*/true, LowerSignalWindow});
  ops.push_back({"MelWeightMatrix", MelWeightMatrix, /*symbolic=*/true, LowerMel});
}

}  // namespace kiln::compiler
