// Pure data movement lowered to strided copies (any dtype): Slice (negative
// steps read through negative source strides), Expand (stride 0 broadcasts),
// Tile, Split, DepthToSpace, SpaceToDepth; and Pad through the pad kernel.
#include <cstring>

#include "absl/strings/str_cat.h"
#include "compiler/emit/lower_ops.h"
#include "compiler/ir/graph.h"
#include "compiler/passes/shape_inference.h"
#include "kiln/kernel_abi.h"

namespace kiln::compiler::emit {
namespace {

using Shape = std::vector<int64_t>;

// Emits one strided_copy after dropping unit dims and merging dims that are
// contiguous on both sides, so high-rank views fit KILN_MAX_RANK.
absl::Status StridedCopy(LoweringContext& ctx, const ir::Node& node, const Binding& src,
                         const Binding& dst, int64_t elem, int64_t src_off, int64_t dst_off,
                         const Shape& dims, const Shape& ss, const Shape& ds) {
  Shape d2, s2, t2;
  ir::DimPool& pool = ctx.dims();  // dims and strides may be symbolic
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 0) return absl::OkStatus();  // nothing to copy
    if (dims[i] == 1) continue;
    if (!d2.empty() && s2.back() == pool.Mul(ss[i], dims[i]) &&
        t2.back() == pool.Mul(ds[i], dims[i])) {
      d2.back() = pool.Mul(d2.back(), dims[i]);
      s2.back() = ss[i];
      t2.back() = ds[i];
      continue;
    }
    d2.push_back(dims[i]);
    s2.push_back(ss[i]);
    t2.push_back(ds[i]);
  }
  if (d2.size() > KILN_MAX_RANK) {
    return ctx.Unimplemented(node, absl::StrCat("the copy needs ", d2.size(),
                                                " dimensions; at most ", KILN_MAX_RANK));
  }
  kernel::StridedCopy copy;
  copy.elem_bytes = elem;
  copy.R = static_cast<int64_t>(d2.size());
  copy.src_offset = src_off;
  copy.dst_offset = dst_off;
  copy.dims = d2;
  copy.src_strides = s2;
  copy.dst_strides = t2;
  return ctx.Dispatch(node, copy, {src, dst});
}

absl::Status LowerSlice(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, 0));
  Shape starts, steps, out;
  absl::Status s = SliceParams(ctx.graph(), node, {}, x, &starts, &steps, &out);
  if (!s.ok()) return ctx.Invalid(node, std::string(s.message()));
  if (out != y) return ctx.Invalid(node, "slice geometry disagrees with the output shape");
  ir::DimPool& dims = ctx.dims();  // bounds and dims may be symbolic
  const Shape xs = ContiguousStrides(x, dims);
  Shape ss(x.size());
  int64_t off = 0;
  for (size_t d = 0; d < x.size(); ++d) {
    if (ir::IsSymbolic(y[d]) || y[d] > 0) off = dims.Add(off, dims.Mul(starts[d], xs[d]));
    ss[d] = dims.Mul(steps[d], xs[d]);
  }
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  return StridedCopy(ctx, node, bx, by, ElemBytes(ctx, node.inputs[0]), off, 0, y, ss,
                     ContiguousStrides(y, dims));
}

absl::Status LowerExpand(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, 0));
  if (x.size() > y.size()) return ctx.Invalid(node, "input rank exceeds output rank");
  // Dims may be symbolic: strides through the pool, x's dims matched to y's
  // as broadcasting matched them (stride 0 where x has 1).
  Shape ss;
  if (!BroadcastStrides(x, y, ctx.dims(), &ss)) return ctx.Invalid(node, "input does not broadcast");
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  return StridedCopy(ctx, node, bx, by, ElemBytes(ctx, node.inputs[0]), 0, 0, y, ss,
                     ContiguousStrides(y, ctx.dims()));
}

// Output viewed as [rep0, x0, rep1, x1, ...]: the repeat dims read stride 0.
absl::Status LowerTile(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, 0));
  // Symbolic dims: the rule left the repeats (kiln.repeats); sizes through the pool.
  const Shape reps = node.GetInts("kiln.repeats", {});
  if (!reps.empty() && reps.size() != x.size()) return ctx.Invalid(node, "repeats are missing");
  ir::DimPool* pool = reps.empty() ? nullptr : &ctx.dims();
  const Shape xs = pool ? ContiguousStrides(x, *pool) : ContiguousStrides(x);
  const Shape ys = pool ? ContiguousStrides(y, *pool) : ContiguousStrides(y);
  Shape dims, ss, ds;
  for (size_t d = 0; d < x.size(); ++d) {
    const int64_t rep = pool ? reps[d] : x[d] == 0 ? 0 : y[d] / x[d];
    dims.insert(dims.end(), {rep, x[d]});
    ss.insert(ss.end(), {0, xs[d]});
    ds.insert(ds.end(), {pool ? pool->Mul(x[d], ys[d]) : x[d] * ys[d], ys[d]});
  }
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  return StridedCopy(ctx, node, bx, by, ElemBytes(ctx, node.inputs[0]), 0, 0, dims, ss, ds);
}

absl::Status LowerSplit(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  const int64_t r = static_cast<int64_t>(x.size());
  int64_t axis = node.GetInt("axis", 0);
  if (axis < 0) axis += r;
  const Shape split = node.GetInts("kiln.split", {});
  // Sizes reported at run time add their dims output after the parts.
  const size_t parts = node.GetInt("kiln.result_dims", 0) != 0
                           ? static_cast<size_t>(node.GetInt("kiln.result_dims", 0))
                           : node.outputs.size();
  if (split.size() != parts) return ctx.Invalid(node, "split sizes are missing");
  const Shape xs = ContiguousStrides(x, ctx.dims());
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  int64_t at = 0;
  for (size_t k = 0; k < parts; ++k) {
    if (node.outputs[k] != ir::kNoValue) {
      KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, k));
      KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[k]));
      KILN_RETURN_IF_ERROR(StridedCopy(ctx, node, bx, by, ElemBytes(ctx, node.inputs[0]),
                                       ctx.dims().Mul(at, xs[axis]), 0, y, xs,
                                       ContiguousStrides(y, ctx.dims())));
    }
    at = ctx.dims().Add(at, split[k]);  // symbols when the sizes are reported
  }
  return absl::OkStatus();
}

// Both are a reshape + transpose; the output is walked as 6 dims.
absl::Status LowerDepthSpace(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  const int64_t b = node.GetInt("blocksize", 1);
  const int64_t N = x[0], C = x[1], H = x[2], W = x[3], hw = H * W;
  Shape dims, ss;
  if (node.op_type == "DepthToSpace") {
    const int64_t c2 = C / (b * b);
    dims = {N, c2, H, b, W, b};  // output [N, c2, H*b, W*b]
    if (node.GetString("mode", "DCR") == "CRD") {
      ss = {C * hw, b * b * hw, W, b * hw, 1, hw};
    } else {
      ss = {C * hw, hw, W, b * c2 * hw, 1, c2 * hw};
    }
  } else {
    dims = {N, b, b, C, H / b, W / b};  // output [N, b*b*C, H/b, W/b]
    ss = {C * hw, W, 1, hw, b * W, b};
  }
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  return StridedCopy(ctx, node, bx, by, ElemBytes(ctx, node.inputs[0]), 0, 0, dims, ss,
                     ContiguousStrides(dims));
}

absl::Status LowerPad(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, 0));
  const int64_t r = static_cast<int64_t>(x.size());
  if (r > KILN_MAX_RANK) return ctx.Unimplemented(node, "rank is too high");
  const Shape pads = node.GetInts("kiln.pads", {});
  if (static_cast<int64_t>(pads.size()) != 2 * r) return ctx.Invalid(node, "pads are missing");
  const std::string mode = node.GetString("mode", "constant");
  const int64_t m = mode == "edge" ? 1 : mode == "reflect" ? 2 : mode == "wrap" ? 3 : 0;
  const int64_t eb = ElemBytes(ctx, node.inputs[0]);
  if (eb < 1 || eb > 8) return ctx.Unimplemented(node, "element type is too wide");
  int64_t fill = 0;
  if (HasInput(node, 2)) {
    const ir::ConstantPtr& c = ctx.value(node.inputs[2]).constant;
    if (!c || c->bytes.size() != static_cast<size_t>(eb)) {
      return ctx.Invalid(node, "constant_value must be a compile-time scalar of the data type");
    }
    std::memcpy(&fill, c->bytes.data(), c->bytes.size());
  } else if (node.HasAttr("value")) {  // opset < 11
    const float v = node.GetFloat("value", 0.0f);
    std::memcpy(&fill, &v, 4);
  }
  // Dispatch would read a fill whose bits fall on an encoded dim (a float64
  // -2.0 is kSymbolicBase) as that dim.
  if (ctx.dims().Known(fill)) {
    return ctx.Unimplemented(node, "this constant_value beside symbolic dimensions");
  }
  kernel::Pad pad;
  pad.elem_bytes = eb;
  pad.mode = m;
  pad.R = r;
  pad.fill_bits = fill;
  pad.in_dims = x;
  pad.begin = std::vector<int64_t>(pads.begin(), pads.begin() + r);
  pad.out_dims = y;
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  return ctx.Dispatch(node, pad, {bx, by});
}

}  // namespace

void RegisterCopyLowerings(LoweringTable& table) {
  table["Slice"] = LowerSlice;
  table["Expand"] = LowerExpand;
  table["Tile"] = LowerTile;
  table["Split"] = LowerSplit;
  table["DepthToSpace"] = LowerDepthSpace;
  table["SpaceToDepth"] = LowerDepthSpace;
  table["Pad"] = LowerPad;
}

}  // namespace kiln::compiler::emit
