// ConvTranspose (2-D; 1-D as H = 1), LpPool / GlobalLpPool and Einsum.
#include <map>

#include "absl/strings/str_cat.h"
#include "compiler/emit/lower_ops.h"
#include "compiler/passes/shape_rules_movement.h"
#include "kiln/kernel_abi.h"

namespace kiln::compiler::emit {
namespace {

using Shape = std::vector<int64_t>;

// [N, C, L] → [N, C, 1, L].
Shape As4D(Shape s) {
  if (s.size() == 3) s.insert(s.begin() + 2, 1);
  return s;
}

absl::Status LowerConvTranspose(LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(ctx.RequireF32(node));
  KILN_ASSIGN_OR_RETURN(auto x0, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto w0, ctx.InputShape(node, 1));
  KILN_ASSIGN_OR_RETURN(auto y0, ctx.OutputShape(node, 0));
  const Shape x = As4D(x0), w = As4D(w0), y = As4D(y0);
  const Shape k = node.GetInts("kiln.kernel_shape", {}), s = node.GetInts("kiln.strides", {});
  const Shape d = node.GetInts("kiln.dilations", {}), p = node.GetInts("kiln.pads", {});
  if (x.size() != 4 || k.size() != 2 || s.size() != 2 || d.size() != 2 || p.size() != 4) {
    return ctx.Invalid(node, "window attributes are missing");
  }
  const bool has_bias = node.inputs.size() > 2 && node.inputs[2] != ir::kNoValue;
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding bw, ctx.Bind(node, node.inputs[1]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  Binding bb = bw;
  if (has_bias) {
    KILN_ASSIGN_OR_RETURN(bb, ctx.Bind(node, node.inputs[2]));
  }
  return ctx.Dispatch(node, "conv_transpose_f32",
                      {x[0], x[1], x[2], x[3], y[1], y[2], y[3], k[0], k[1], s[0], s[1], p[0],
                       p[1], d[0], d[1], node.GetInt("group", 1), has_bias ? 1 : 0},
                      {}, {bx, bw, bb, by}, {-1, -1, has_bias ? -1 : 0, -1});
}

absl::Status LowerLpPool(LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(ctx.RequireF32(node));
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, 0));
  Shape ip;
  const int64_t p = node.GetInt("p", 2);
  if (node.op_type == "GlobalLpPool") {
    int64_t spatial = 1;
    for (size_t i = 2; i < x.size(); ++i) spatial *= x[i];
    // One window over the flattened spatial dims.
    ip = {x[0], x[1], 1, spatial, 1, 1, 1, spatial, 1, 1, 0, 0, 1, 1, p};
  } else {
    const Shape k = node.GetInts("kiln.kernel_shape", {}), s = node.GetInts("kiln.strides", {});
    const Shape d = node.GetInts("kiln.dilations", {}), pads = node.GetInts("kiln.pads", {});
    if (x.size() != 4 || k.size() != 2 || pads.size() != 4) return ctx.Invalid(node, "window attributes are missing");
    ip = {x[0], x[1], x[2], x[3], y[2], y[3], k[0], k[1], s[0], s[1], pads[0], pads[1], d[0], d[1], p};
  }
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  return ctx.Dispatch(node, "lp_pool_f32", std::move(ip), {}, {bx, by});
}

absl::Status LowerEinsum(LoweringContext& ctx, const ir::Node& node) {
  const ir::DType t = ctx.value(node.outputs[0]).dtype;
  if (t != ir::DType::F32 && t != ir::DType::F64) {
    return ctx.Unimplemented(node, "Einsum supports float32 and float64");
  }
  for (ir::ValueId v : node.inputs) {
    if (v == ir::kNoValue || ctx.value(v).dtype != t) return ctx.Invalid(node, "operand dtypes differ");
  }
  std::vector<Shape> shapes;
  for (size_t k = 0; k < node.inputs.size(); ++k) {
    KILN_ASSIGN_OR_RETURN(auto s, ctx.InputShape(node, k));
    shapes.push_back(s);
  }
  if (shapes.empty() || shapes.size() > 2) {
    return ctx.Unimplemented(node, "only one- and two-operand Einsum is supported");
  }
  auto spec = compiler::ParseEinsum(node.GetString("equation", ""), shapes);
  if (!spec.ok()) return ctx.Invalid(node, std::string(spec.status().message()));
  // Letters: output first, then the summed ones in order of appearance.
  std::string letters = spec->output;
  for (const std::string& t : spec->inputs) {
    for (char ch : t) if (letters.find(ch) == std::string::npos) letters += ch;
  }
  if (letters.size() > 16) return ctx.Unimplemented(node, "more than 16 distinct letters");
  const size_t L = letters.size();
  Shape dims(L, 1), strides[2] = {Shape(L, 0), Shape(L, 0)};
  // Dims may be symbolic (graphs with symbols): sizes and strides through the
  // pool; two different symbolic sizes of a letter must agree at run time.
  ir::DimPool* pool = ctx.dims().empty() ? nullptr : &ctx.dims();
  for (size_t k = 0; k < shapes.size(); ++k) {
    const Shape st = pool ? ContiguousStrides(shapes[k], *pool) : ContiguousStrides(shapes[k]);
    for (size_t i = 0; i < spec->inputs[k].size(); ++i) {
      const size_t l = letters.find(spec->inputs[k][i]);
      const int64_t d = shapes[k][i];
      if (pool && (ir::IsSymbolic(d) || ir::IsSymbolic(dims[l]))) {
        if (dims[l] == 1) dims[l] = d;
        else if (d != 1 && d != dims[l]) dims[l] = pool->AssumeEqual(dims[l], d);
      } else {
        dims[l] = std::max(dims[l], d);
      }
      // repeated letter: diagonal
      if (d != 1) strides[k][l] = pool ? pool->Add(strides[k][l], st[i]) : strides[k][l] + st[i];
    }
  }
  std::vector<int64_t> ip = {static_cast<int64_t>(L), static_cast<int64_t>(spec->output.size()),
                             shapes.size() == 2 ? 1 : 0, t == ir::DType::F64 ? 1 : 0};
  ip.insert(ip.end(), dims.begin(), dims.end());
  ip.insert(ip.end(), strides[0].begin(), strides[0].end());
  ip.insert(ip.end(), strides[1].begin(), strides[1].end());
  KILN_ASSIGN_OR_RETURN(Binding ba, ctx.Bind(node, node.inputs[0]));
  Binding bb = ba;
  if (shapes.size() == 2) {
    KILN_ASSIGN_OR_RETURN(bb, ctx.Bind(node, node.inputs[1]));
  }
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  return ctx.Dispatch(node, "einsum", std::move(ip), {}, {ba, bb, by},
                      {-1, shapes.size() == 2 ? -1 : 0, -1});
}

}  // namespace

void RegisterNNExtraLowerings(LoweringTable& table) {
  table["ConvTranspose"] = LowerConvTranspose;
  table["LpPool"] = LowerLpPool;
  table["GlobalLpPool"] = LowerLpPool;
  table["Einsum"] = LowerEinsum;
}

}  // namespace kiln::compiler::emit
