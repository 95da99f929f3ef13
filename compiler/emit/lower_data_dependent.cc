// Ops whose results depend on run-time values:
//  - output LENGTH from the data (ops/data_dependent.cc):
//    NonZero, Compress, Unique, NonMaxSuppression, compiled for the model's
//    declared output shape and lowered to kernels (nonzero, compress,
//    unique, non_max_suppression) that compute the result and fail the run
//    unless it has that shape; without a declaration, to their *_bounded
//    twins, which report the length (a data symbol) for later dispatches;
//  - Dropout whose training_mode is decided at run time
//    (ops/dropout.h): the dropout kernel.
// Kernels that need working memory get the scratch output their shape rule
// appended (ShapeRuleContext::SetScratch); absent optional inputs and
// outputs are bound to another buffer with 0 bytes and flagged off.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/emit/lower_ops.h"
#include "compiler/ir/graph.h"
#include "kiln/kernels.h"

namespace kiln::compiler::emit {
namespace {

using Shape = std::vector<int64_t>;

// The seed of Dropout without a `seed` attribute: fixed, so runs repeat.
constexpr uint64_t kDefaultDropoutSeed = 0x4B494C4E44524F50ull;  // "KILNDROP"

// X and Y's shapes; a length known only after the run is its bound here,
// the capacity of the *_bounded kernel that computes it. X may hold lengths
// reported earlier (`sized_x`: NonZero and NonMaxSuppression shaped after
// the run), which the dispatch patches per run.
absl::Status Shapes(LoweringContext& ctx, const ir::Node& node, Shape* x, Shape* y,
                    bool sized_x = false) {
  KILN_ASSIGN_OR_RETURN(*x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(*y, ctx.OutputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(*y, ctx.BoundShape(node, *y));
  if (!sized_x || node.GetInt("kiln.result_count", 0) == 0) {
    KILN_RETURN_IF_ERROR(ctx.RequireStatic(node, *x, "the input shape"));
  }
  KILN_RETURN_IF_ERROR(ctx.RequireStatic(node, *y, "the output shape"));
  return absl::OkStatus();
}

// X viewed as [outer, len, inner] around the node's `axis` attribute (shape
// inference checked its range); without one, [1, all elements, 1]. *out is
// the output's extent there.
void AxisView(const ir::Node& node, const Shape& x, const Shape& y, int64_t* outer, int64_t* len,
              int64_t* inner, int64_t* out) {
  *outer = 1, *len = ir::ElementCount(x), *inner = 1, *out = ir::ElementCount(y);
  if (!node.HasAttr("axis")) return;
  const int64_t r = static_cast<int64_t>(x.size());
  int64_t axis = node.GetInt("axis", 0);
  if (axis < 0) axis += r;
  for (int64_t d = 0; d < axis; ++d) *outer *= x[static_cast<size_t>(d)];
  for (int64_t d = axis + 1; d < r; ++d) *inner *= x[static_cast<size_t>(d)];
  *len = x[static_cast<size_t>(axis)];
  *out = y[static_cast<size_t>(axis)];
}

// Appends the binding of value v, or (v absent) `fallback` with 0 bytes;
// returns whether v is present.
absl::StatusOr<bool> BindOptional(LoweringContext& ctx, const ir::Node& node, ir::ValueId v,
                                  const Binding& fallback, std::vector<Binding>* bindings,
                                  std::vector<int64_t>* bytes) {
  if (v == ir::kNoValue) {
    bindings->push_back(fallback);
    bytes->push_back(0);
    return false;
  }
  KILN_ASSIGN_OR_RETURN(Binding b, ctx.Bind(node, v));
  bindings->push_back(b);
  bytes->push_back(-1);
  return true;
}

ir::ValueId InputOrNone(const ir::Node& node, size_t k) {
  return k < node.inputs.size() ? node.inputs[k] : ir::kNoValue;
}
ir::ValueId OutputOrNone(const ir::Node& node, size_t k) {
  return k < node.outputs.size() ? node.outputs[k] : ir::kNoValue;
}

// The scratch output the shape rule appended after the op's n_out outputs
// (followed by the result count of an output shaped after the run).
absl::StatusOr<Binding> BindScratch(LoweringContext& ctx, const ir::Node& node, size_t n_out) {
  const size_t extra = node.GetInt("kiln.result_count", 0) != 0 ? 2 : 1;
  if (node.outputs.size() != n_out + extra || node.GetInt("kiln.scratch", 0) != 1) {
    return ctx.Invalid(node, "the scratch output is missing");
  }
  return ctx.Bind(node, node.outputs[n_out]);
}

}  // namespace

absl::Status LowerNonZero(LoweringContext& ctx, const ir::Node& node) {
  Shape x, y;
  KILN_RETURN_IF_ERROR(Shapes(ctx, node, &x, &y, /*sized_x=*/true));
  if (x.empty() || x.size() > KILN_MAX_RANK || y.size() != 2) {
    return ctx.Unimplemented(node, absl::StrCat("rank ", x.size(), " is not in 1..",
                                                KILN_MAX_RANK));
  }
  kernel::Nonzero nonzero;
  nonzero.dtype = DTypeCode(ctx, node.inputs[0]);
  nonzero.R = static_cast<int64_t>(x.size());
  nonzero.count = y[1];
  nonzero.in_dims = x;
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  if (node.GetInt("kiln.result_count", 0) != 0) {  // shaped after the run
    KILN_ASSIGN_OR_RETURN(Binding count, ctx.Bind(node, node.outputs[1]));
    return ctx.Dispatch(node, kernel::NonzeroBounded(nonzero), {bx, by, count});
  }
  return ctx.Dispatch(node, nonzero, {bx, by});
}

absl::Status LowerCompress(LoweringContext& ctx, const ir::Node& node) {
  Shape x, y;
  KILN_RETURN_IF_ERROR(Shapes(ctx, node, &x, &y));
  KILN_ASSIGN_OR_RETURN(Shape cond, ctx.InputShape(node, 1));
  const int64_t eb = static_cast<int64_t>(ir::DTypeSize(ctx.value(node.inputs[0]).dtype));
  int64_t outer, len, inner, out;
  AxisView(node, x, y, &outer, &len, &inner, &out);
  kernel::Compress compress;
  compress.elem_bytes = eb;
  compress.outer = outer;
  compress.axis_len = len;
  compress.inner = inner;
  compress.cond_len = ir::ElementCount(cond);
  compress.out_count = out;
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding bc, ctx.Bind(node, node.inputs[1]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  if (node.GetInt("kiln.result_count", 0) != 0) {  // shaped after the run
    KILN_ASSIGN_OR_RETURN(Binding count, ctx.Bind(node, node.outputs[1]));
    return ctx.Dispatch(node, kernel::CompressBounded(compress), {bx, bc, by, count});
  }
  return ctx.Dispatch(node, compress, {bx, bc, by});
}

// Outputs Y, indices, inverse_indices, counts, then the scratch.
absl::Status LowerUnique(LoweringContext& ctx, const ir::Node& node) {
  Shape x, y;
  KILN_RETURN_IF_ERROR(Shapes(ctx, node, &x, &y));
  int64_t outer, len, inner, count;
  AxisView(node, x, y, &outer, &len, &inner, &count);
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding scratch, BindScratch(ctx, node, 4));
  std::vector<Binding> b = {bx, by};
  std::vector<int64_t> bytes = {-1, -1};
  kernel::Unique unique;
  unique.dtype = DTypeCode(ctx, node.inputs[0]);
  unique.outer = outer;
  unique.len = len;
  unique.inner = inner;
  unique.count = count;
  unique.sorted = node.GetInt("sorted", 1);
  // Outputs 1..3; an absent one is not written.
  kernel::KernelInt* has[] = {&unique.has_indices, &unique.has_inverse, &unique.has_counts};
  for (size_t k = 1; k < 4; ++k) {
    KILN_ASSIGN_OR_RETURN(bool present, BindOptional(ctx, node, node.outputs[k], by, &b, &bytes));
    *has[k - 1] = present ? 1 : 0;
  }
  b.push_back(scratch);
  bytes.push_back(-1);
  if (node.GetInt("kiln.result_count", 0) != 0) {  // shaped after the run: count = the bound
    KILN_ASSIGN_OR_RETURN(Binding n, ctx.Bind(node, node.outputs[5]));
    b.push_back(n);
    bytes.push_back(-1);
    return ctx.Dispatch(node, kernel::UniqueBounded(unique), b, bytes);
  }
  return ctx.Dispatch(node, unique, b, bytes);
}

// Inputs boxes, scores and the optional scalars max_output_boxes_per_class,
// iou_threshold, score_threshold (bound whether constant or not: the kernel
// reads them at run time); output selected_indices, then the scratch.
absl::Status LowerNonMaxSuppression(LoweringContext& ctx, const ir::Node& node) {
  Shape boxes, y;
  KILN_RETURN_IF_ERROR(Shapes(ctx, node, &boxes, &y, /*sized_x=*/true));
  KILN_ASSIGN_OR_RETURN(Shape scores, ctx.InputShape(node, 1));
  KILN_ASSIGN_OR_RETURN(Binding bb, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding bs, ctx.Bind(node, node.inputs[1]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding scratch, BindScratch(ctx, node, 1));
  std::vector<Binding> b = {bb, bs};
  std::vector<int64_t> bytes = {-1, -1};
  kernel::NonMaxSuppression nms;
  nms.B = boxes[0];
  nms.N = boxes[1];
  nms.C = scores[1];
  nms.center_point_box = node.GetInt("center_point_box", 0);
  nms.count = y[0];
  // Inputs 2..4; an absent one has dtype 0.
  kernel::KernelInt* dtypes[] = {&nms.max_dtype, &nms.iou_dtype, &nms.score_dtype};
  for (size_t k = 2; k < 5; ++k) {
    const ir::ValueId v = InputOrNone(node, k);
    KILN_ASSIGN_OR_RETURN(bool present, BindOptional(ctx, node, v, bb, &b, &bytes));
    *dtypes[k - 2] = present ? DTypeCode(ctx, v) : 0;
  }
  b.insert(b.end(), {by, scratch});
  bytes.insert(bytes.end(), {-1, -1});
  if (node.GetInt("kiln.result_count", 0) != 0) {  // shaped after the run: count = the bound
    KILN_ASSIGN_OR_RETURN(Binding n, ctx.Bind(node, node.outputs[2]));
    b.push_back(n);
    bytes.push_back(-1);
    return ctx.Dispatch(node, kernel::NonMaxSuppressionBounded(nms), b, bytes);
  }
  return ctx.Dispatch(node, nms, b, bytes);
}

// Reached only for a Dropout the shape rule marked "kiln.dropout_kernel"
// (others are aliases of their input).
absl::Status LowerDropout(LoweringContext& ctx, const ir::Node& node) {
  // Elementwise: a symbolic count (attention weights over a number of
  // windows of the sizes) is patched at run time.
  KILN_ASSIGN_OR_RETURN(const Shape x, ctx.InputShape(node, 0));
  const uint64_t seed = node.HasAttr("seed") ? static_cast<uint64_t>(node.GetInt("seed", 0))
                                             : kDefaultDropoutSeed;
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  std::vector<Binding> b = {bx};
  std::vector<int64_t> bytes = {-1};
  const ir::ValueId ratio = InputOrNone(node, 1);
  KILN_ASSIGN_OR_RETURN(bool has_ratio, BindOptional(ctx, node, ratio, bx, &b, &bytes));
  KILN_ASSIGN_OR_RETURN(bool has_training,
                        BindOptional(ctx, node, InputOrNone(node, 2), bx, &b, &bytes));
  b.push_back(by);
  bytes.push_back(-1);
  KILN_ASSIGN_OR_RETURN(bool has_mask,
                        BindOptional(ctx, node, OutputOrNone(node, 1), by, &b, &bytes));
  kernel::Dropout dropout;
  dropout.dtype = DTypeCode(ctx, node.inputs[0]);
  dropout.count = ctx.dims().Product(x);
  dropout.ratio_dtype = has_ratio ? DTypeCode(ctx, ratio) : 0;
  dropout.has_training = has_training ? 1 : 0;
  dropout.has_mask = has_mask ? 1 : 0;
  dropout.seed_hi = static_cast<int64_t>(seed >> 32);
  dropout.seed_lo = static_cast<int64_t>(seed & 0xFFFFFFFFu);
  return ctx.Dispatch(node, dropout, b, bytes);
}


}  // namespace kiln::compiler::emit
