// Run-time shape-like inputs (passes/shape_rules_runtime.h): the shape_check
// dispatch that verifies the value before the op's own dispatches (or, with
// no declared output shape, shape_resolve, which reports the dims), and
// ConstantOfShape filled by a kernel when its dims arrive at run time.
#include <memory>

#include "absl/strings/str_cat.h"
#include "compiler/emit/lower_ops.h"
#include "compiler/ir/graph.h"
#include "compiler/passes/materialize_symbolic_values.h"
#include "compiler/passes/shape_rules_runtime.h"
#include "compiler/passes/symbolic_support.h"
#include "kiln/kernels.h"

namespace kiln::compiler::emit {
namespace {

using Shape = std::vector<int64_t>;

// The kernel mode for `op` and the dims it compares with (in, out).
absl::Status CheckParams(LoweringContext& ctx, const ir::Node& node, int64_t* mode, Shape* in,
                         Shape* out) {
  const std::string& op = node.op_type;
  in->clear();
  if (op == "Split") {
    *mode = KILN_SHAPE_CHECK_EXACT;
    *out = node.GetInts("kiln.split", {});
    // Reported sizes (shape_resolve): they must add up to the axis.
    const size_t n_out = node.GetInt("kiln.result_dims", 0) != 0
                             ? static_cast<size_t>(node.GetInt("kiln.result_dims", 0))
                             : node.outputs.size();
    if (out->size() != n_out) return ctx.Invalid(node, "split sizes are missing");
    if (n_out != node.outputs.size()) {
      KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
      int64_t axis = node.GetInt("axis", 0);
      if (axis < 0) axis += static_cast<int64_t>(x.size());
      *mode = KILN_SHAPE_CHECK_SPLIT;
      *in = {x.at(static_cast<size_t>(axis))};
    }
    return absl::OkStatus();
  }
  KILN_ASSIGN_OR_RETURN(*out, ctx.OutputShape(node, 0));
  if (op == "ConstantOfShape" || op == "Resize") {  // the value is the output shape
    *mode = KILN_SHAPE_CHECK_EXACT;
    return absl::OkStatus();
  }
  KILN_ASSIGN_OR_RETURN(*in, ctx.InputShape(node, 0));
  if (op == "OneHot") {
    const int64_t r = static_cast<int64_t>(out->size());
    int64_t axis = node.GetInt("axis", -1);
    if (axis < 0) axis += r;
    if (axis < 0 || axis >= r) return ctx.Invalid(node, "axis is out of range");
    *mode = KILN_SHAPE_CHECK_EXACT;
    *out = {(*out)[axis]};
    in->clear();
  } else if (op == "Reshape") {
    *mode = KILN_SHAPE_CHECK_RESHAPE;
  } else if (op == "Squeeze") {
    *mode = KILN_SHAPE_CHECK_SQUEEZE;
  } else if (op == "Unsqueeze") {
    *mode = KILN_SHAPE_CHECK_UNSQUEEZE;
  } else if (op == "Expand") {
    *mode = KILN_SHAPE_CHECK_EXPAND;
  } else if (op == "Tile") {
    *mode = KILN_SHAPE_CHECK_TILE;
  } else {
    return ctx.Unimplemented(node, "no run-time shape check for this op");
  }
  return absl::OkStatus();
}

// Fills the output with the `value` attribute (default float 0) by copying
// a block of B copies of it, B = ceil(n / 4096), with a stride-0 outer dim:
// strided_copy allows 4096 passes over what it reads.
}  // namespace

absl::Status LowerConstantOfShape(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, 0));
  const ir::Value& out = ctx.value(node.outputs[0]);
  const size_t eb = ir::DTypeSize(out.dtype);
  if (eb == 0) return ctx.Unimplemented(node, "unsupported output dtype");
  std::vector<uint8_t> one(eb, 0);
  auto it = node.attributes.find("value");
  if (it != node.attributes.end() && it->second.tensor) {
    const ir::ConstantData& v = *it->second.tensor;
    if (v.dtype != out.dtype || v.bytes.size() != eb) {
      return ctx.Invalid(node, "value must hold one element of the output dtype");
    }
    one = v.bytes;
  }
  if (HasSymbolicDims(y)) {
    // A count the symbols set: the fill kernel, its count patched at run time.
    auto value = std::make_shared<ir::ConstantData>();
    value->dtype = out.dtype;
    value->shape = {1};
    value->bytes = one;
    const Binding bv = ctx.BindNewConstant(absl::StrCat(node.name, ".value"), value);
    KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
    kernel::Fill fill;
    fill.eb = static_cast<int64_t>(eb);
    fill.n = ctx.dims().Product(y);
    return ctx.Dispatch(node, fill, {bv, by});
  }
  const int64_t n = ir::ElementCount(y);
  if (n <= 0) return absl::OkStatus();
  const int64_t block = (n + 4095) / 4096, rows = n / block, rest = n % block;
  auto data = std::make_shared<ir::ConstantData>();
  data->dtype = out.dtype;
  data->shape = {block};
  for (int64_t k = 0; k < block; ++k) data->bytes.insert(data->bytes.end(), one.begin(), one.end());
  const Binding bc = ctx.BindNewConstant(absl::StrCat(node.name, ".fill"), data);
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  const int64_t e = static_cast<int64_t>(eb);
  // The block copied to each of `rows` rows, then its head to the rest.
  kernel::StridedCopy copy;
  copy.elem_bytes = e;
  copy.R = 2;
  copy.src_offset = 0;
  copy.dst_offset = 0;
  copy.dims = {rows, block};
  copy.src_strides = {0, 1};
  copy.dst_strides = {block, 1};
  KILN_RETURN_IF_ERROR(ctx.Dispatch(node, copy, {bc, by}));
  if (rest == 0) return absl::OkStatus();
  copy.R = 1;
  copy.dst_offset = rows * block;
  copy.dims = {rest};
  copy.src_strides = {1};
  copy.dst_strides = {1};
  return ctx.Dispatch(node, copy, {bc, by});
}

absl::Status LowerShapeInputCheck(LoweringContext& ctx, const ir::Node& node) {
  const int k = compiler::RuntimeShapeInput(ctx.graph(), node);
  if (k < 0) return absl::OkStatus();
  const ir::ValueId v = node.inputs[k];
  KILN_ASSIGN_OR_RETURN(auto vshape, ctx.InputShape(node, static_cast<size_t>(k)));
  KILN_RETURN_IF_ERROR(ctx.RequireStatic(node, vshape, "the shape-like input's shape"));
  int64_t mode = 0;
  Shape in, out;
  KILN_RETURN_IF_ERROR(CheckParams(ctx, node, &mode, &in, &out));
  // Without a declared shape the dims are reported (shape_resolve); the
  // output's shape here is their bound.
  const bool reports = node.GetInt("kiln.result_dims", 0) != 0;
  if (reports) {
    // Each reported dim's cap: its bound, or none (-1, shape_resolve).
    for (int64_t& d : out) {
      if (ctx.dims().HasUnbounded(d)) d = -1;
    }
    KILN_ASSIGN_OR_RETURN(out, ctx.BoundShape(node, out));
  }
  KILN_RETURN_IF_ERROR(ctx.RequireStatic(node, in, "the input shape"));
  KILN_RETURN_IF_ERROR(ctx.RequireStatic(node, out, "the output shape"));
  const int64_t count = ir::ElementCount(vshape);
  if (count > KILN_SHAPE_CHECK_MAX_LEN || in.size() > KILN_SHAPE_CHECK_MAX_LEN ||
      out.size() > KILN_SHAPE_CHECK_MAX_LEN) {
    return ctx.Unimplemented(node, "the shape-like input or the rank is too long to check");
  }
  kernel::ShapeCheck check;
  check.mode = mode;
  check.dtype = DTypeCode(ctx, v);
  check.count = count;
  check.flag = node.GetInt("allowzero", 0) != 0 ? 1 : 0;
  check.IR = static_cast<int64_t>(in.size());
  check.OR = static_cast<int64_t>(out.size());
  check.in_dims = in;
  check.out_dims = out;
  KILN_ASSIGN_OR_RETURN(Binding b, ctx.Bind(node, v));
  if (reports) {
    KILN_ASSIGN_OR_RETURN(Binding dims, ctx.Bind(node, node.outputs.back()));
    return ctx.Dispatch(node, kernel::ShapeResolve(check), {b, dims});
  }
  return ctx.Dispatch(node, check, {b});
}

// Range over bounds computed from the symbols (passes/shape_inference.cc
// SymbolicRange): start and the count are patched at run time.
absl::Status LowerSymbolicRange(LoweringContext& ctx, const ir::Node& node) {
  const ir::ConstantPtr& start = ctx.value(node.inputs[0]).constant;
  const ir::ConstantPtr& delta = ctx.value(node.inputs[2]).constant;
  if (!start || !delta || delta->symbolic) {
    return ctx.Unimplemented(node, "start and delta must be known at compile time");
  }
  KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  kernel::Arange arange;
  arange.dtype = DTypeCode(ctx, node.outputs[0]);
  arange.n = y.at(0);
  arange.start = start->IntAt(0);
  arange.delta = delta->IntAt(0);
  return ctx.Dispatch(node, arange, {by});
}

// A size read as tensor data (passes/materialize_symbolic_values.h).
absl::Status LowerSymbolicValue(LoweringContext& ctx, const ir::Node& node) {
  kernel::IntValues values;
  values.values = node.GetInts("values", {});
  values.n = static_cast<int64_t>(values.values.size());
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  return ctx.Dispatch(node, values, {by});
}

void RegisterShapeCheckLowerings(LoweringTable& table) {
  table[absl::StrCat(compiler::kSymbolicValueDomain, ":", compiler::kSymbolicValueOp)] =
      LowerSymbolicValue;
}

}  // namespace kiln::compiler::emit
