// Transpose and Concat as strided copies, ReverseSequence (reverse_sequence);
// any dtype: they only move bytes.
#include "absl/strings/str_cat.h"
#include "compiler/emit/lower_ops.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/graph_util.h"
#include "kiln/kernel_abi.h"

namespace kiln::compiler::emit {
namespace {

absl::Status LowerTranspose(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, 0));
  const size_t r = x.size();
  if (r > KILN_MAX_RANK) return ctx.Unimplemented(node, absl::StrCat("rank ", r, " is too high"));
  std::vector<int64_t> perm(r);
  for (size_t d = 0; d < r; ++d) perm[d] = static_cast<int64_t>(r - 1 - d);
  perm = node.GetInts("perm", perm);
  if (perm.size() != r || y.size() != r) return ctx.Invalid(node, "perm does not match the rank");
  const std::vector<int64_t> xs = ContiguousStrides(x, ctx.dims());
  const std::vector<int64_t> ys = ContiguousStrides(y, ctx.dims());
  std::vector<int64_t> src(r);
  for (size_t d = 0; d < r; ++d) {
    if (perm[d] < 0 || perm[d] >= static_cast<int64_t>(r) || x[perm[d]] != y[d]) {
      return ctx.Invalid(node, "perm is not a permutation matching the shapes");
    }
    src[d] = xs[perm[d]];
  }
  const int64_t elem = static_cast<int64_t>(ir::DTypeSize(ctx.value(node.inputs[0]).dtype));
  kernel::StridedCopy copy;
  copy.elem_bytes = elem;
  copy.R = static_cast<int64_t>(r);
  copy.src_offset = 0;
  copy.dst_offset = 0;
  copy.dims = y;
  copy.src_strides = src;
  copy.dst_strides = ys;
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  return ctx.Dispatch(node, copy, {bx, by});
}

// Each input is a [outer, len_k * inner] block written at column offset
// (sum of earlier len) * inner of the [outer, len_total * inner] output.
// Any of these may be symbolic (the offsets then are sums of dims): the pool
// does the arithmetic and the dispatch patches them at run time.
absl::Status LowerConcat(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, 0));
  const int64_t rank = static_cast<int64_t>(y.size());
  int64_t axis = node.GetInt("axis", 0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return ctx.Invalid(node, "axis out of range");
  ir::DimPool& dims = ctx.dims();
  const int64_t outer = dims.Product({y.begin(), y.begin() + axis});
  const int64_t inner = dims.Product({y.begin() + axis + 1, y.end()});
  const int64_t elem = static_cast<int64_t>(ir::DTypeSize(ctx.value(node.outputs[0]).dtype));
  const int64_t out_row = dims.Mul(y[axis], inner);
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  int64_t at = 0;
  for (size_t k = 0; k < node.inputs.size(); ++k) {
    KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, k));
    if (static_cast<int64_t>(x.size()) != rank) return ctx.Invalid(node, "input ranks differ");
    if (ctx.value(node.inputs[k]).dtype != ctx.value(node.outputs[0]).dtype) {
      return ctx.Invalid(node, "input dtypes differ");
    }
    for (int64_t d = 0; d < rank; ++d) {
      if (d != axis && !dims.SameDim(x[d], y[d])) return ctx.Invalid(node, "input shapes differ");
    }
    const int64_t len = x[axis];
    // A static zero: nothing to copy (the kernel copies nothing for a run-time zero).
    if (len != 0 && outer != 0 && inner != 0) {
      KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[k]));
      const int64_t row = dims.Mul(len, inner);
      // [outer, row] rows into the output's rows of out_row, from column at*inner.
      kernel::StridedCopy copy;
      copy.elem_bytes = elem;
      copy.R = 2;
      copy.src_offset = 0;
      copy.dst_offset = dims.Mul(at, inner);
      copy.dims = {outer, row};
      copy.src_strides = {row, 1};
      copy.dst_strides = {out_row, 1};
      KILN_RETURN_IF_ERROR(ctx.Dispatch(node, copy, {bx, by}));
    }
    at = dims.Add(at, len);
  }
  if (at != y[axis]) return ctx.Invalid(node, "input lengths do not add up to the output");
  return absl::OkStatus();
}

absl::Status LowerReverseSequence(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  const int64_t eb = static_cast<int64_t>(ir::DTypeSize(ctx.value(node.inputs[0]).dtype));
  if (eb < 1 || eb > 8) return ctx.Unimplemented(node, "unsupported dtype");
  const bool batch_first = node.GetInt("batch_axis", 1) == 0;
  int64_t inner = 1;
  for (size_t d = 2; d < x.size(); ++d) inner *= x[d];
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding bl, ctx.Bind(node, node.inputs[1]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  const int64_t t = batch_first ? x[1] : x[0], b = batch_first ? x[0] : x[1];
  kernel::ReverseSequence reverse;
  reverse.elem_bytes = eb;
  reverse.batch_first = batch_first ? 1 : 0;
  reverse.T = t;
  reverse.B = b;
  reverse.inner = inner;
  return ctx.Dispatch(node, reverse, {bx, bl, by});
}

}  // namespace

void RegisterMovementLowerings(LoweringTable& table) {
  table["Transpose"] = LowerTranspose;
  table["Concat"] = LowerConcat;
  table["ReverseSequence"] = LowerReverseSequence;
}

}  // namespace kiln::compiler::emit
