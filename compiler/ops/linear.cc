// Matrix products: Gemm and MatMul (gemm_f32, or gemm_pb_f32 with constant
// weights packed in panels; matmul_f32 for batches), Einsum with one or two
// operands (einsum) and Det (det_f32). Dims may be symbolic but for Det's.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/emit/panel_packing.h"
#include "compiler/ir/graph_util.h"
#include "compiler/ops/op_def.h"
#include "compiler/passes/symbolic_support.h"
#include "kiln/kernel_abi.h"

namespace kiln::compiler {
namespace {

using ir::DType;
using ir::ShapeStr;
using Shape = std::vector<int64_t>;
using emit::ContiguousStrides;
using emit::HasInput;
using emit::PackPanels16;
using emit::EpilogueOf;
using emit::Epilogue;

// Parsed Einsum equation: letters per operand and for the output, with "..."
// expanded to upper-case-free placeholder letters ('0'..'9').
struct EinsumSpec {
  std::vector<std::string> inputs;
  std::string output;
};

absl::StatusOr<EinsumSpec> ParseEinsum(const std::string& equation,
                                       const std::vector<std::vector<int64_t>>& shapes) {
  std::string eq;
  for (char ch : equation) if (ch != ' ') eq += ch;
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  size_t start = 0;
  for (;;) {
    const size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != shapes.size()) {
    return absl::InvalidArgumentError(absl::StrCat("equation '", equation, "' names ", terms.size(),
                                                   " operands, the node has ", shapes.size()));
  }
  // "..." becomes digits, right-aligned to the widest ellipsis.
  size_t ell = 0;
  for (size_t k = 0; k < terms.size(); ++k) {
    const size_t at = terms[k].find("...");
    if (at == std::string::npos) continue;
    const size_t letters = terms[k].size() - 3;
    if (shapes[k].size() < letters) return absl::InvalidArgumentError("operand rank is too small");
    ell = std::max(ell, shapes[k].size() - letters);
  }
  if (ell > 8) return absl::InvalidArgumentError("ellipsis covers too many dimensions");
  auto expand = [&](const std::string& t, size_t rank_here) -> std::string {
    const size_t at = t.find("...");
    if (at == std::string::npos) return t;
    std::string digits;
    for (size_t i = ell - rank_here; i < ell; ++i) digits += static_cast<char>('0' + i);
    return t.substr(0, at) + digits + t.substr(at + 3);
  };
  EinsumSpec spec;
  for (size_t k = 0; k < terms.size(); ++k) {
    const size_t at = terms[k].find("...");
    const size_t here = at == std::string::npos ? 0 : shapes[k].size() - (terms[k].size() - 3);
    spec.inputs.push_back(expand(terms[k], here));
    for (char ch : spec.inputs.back()) {
      if (!std::isalnum(static_cast<unsigned char>(ch))) {
        return absl::InvalidArgumentError(absl::StrCat("bad equation '", equation, "'"));
      }
    }
    if (spec.inputs.back().size() != shapes[k].size()) {
      return absl::InvalidArgumentError(absl::StrCat("operand ", k, " of '", equation,
                                                     "' does not match its rank ", shapes[k].size()));
    }
  }
  if (arrow != std::string::npos) {
    spec.output = expand(eq.substr(arrow + 2), ell);
  } else {
    // Implicit: ellipsis dims, then letters used once, alphabetically.
    std::map<char, int> count;
    for (const std::string& t : spec.inputs) for (char ch : t) ++count[ch];
    for (size_t i = 0; i < ell; ++i) spec.output += static_cast<char>('0' + i);
    for (const auto& [ch, n] : count) if (n == 1 && !std::isdigit(static_cast<unsigned char>(ch))) spec.output += ch;
  }
  std::set<char> seen;
  for (char ch : spec.output) {
    if (!seen.insert(ch).second) return absl::InvalidArgumentError("output repeats a letter");
  }
  return spec;
}

absl::Status MatMulShape(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(2));
  KILN_RETURN_IF_ERROR(c.SameDType(0, 1));
  Shape a = c.S(0), b = c.S(1);
  if (a.empty() || b.empty()) return c.Err("MatMul inputs must have rank >= 1");
  const bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  if (a_vec) a.insert(a.begin(), 1);
  if (b_vec) b.push_back(1);
  if (!c.dims().SameDim(a.back(), b[b.size() - 2])) {
    return c.Err(absl::StrCat("inner dimensions differ: ", SymbolicShapeStr(c.graph(), c.S(0)),
                              " x ", SymbolicShapeStr(c.graph(), c.S(1))));
  }
  Shape batch;
  if (!ir::BroadcastShapes(Shape(a.begin(), a.end() - 2), Shape(b.begin(), b.end() - 2), &batch,
                           &c.dims())) {
    return c.Err(absl::StrCat("batch dimensions of ", ShapeStr(c.S(0)), " and ",
                              ShapeStr(c.S(1)), " cannot be broadcast"));
  }
  if (!a_vec) batch.push_back(a[a.size() - 2]);
  if (!b_vec) batch.push_back(b.back());
  return c.Set(0, c.T(0), std::move(batch));
}

absl::Status GemmShape(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(2));
  KILN_RETURN_IF_ERROR(c.SameDType(0, 1));
  if (c.Rank(0) != 2 || c.Rank(1) != 2) {
    return c.Err(absl::StrCat("A and B must be 2-D, got ", ShapeStr(c.S(0)), " and ",
                              ShapeStr(c.S(1))));
  }
  const bool ta = c.node().GetInt("transA", 0) != 0, tb = c.node().GetInt("transB", 0) != 0;
  const int64_t m = ta ? c.S(0)[1] : c.S(0)[0], ka = ta ? c.S(0)[0] : c.S(0)[1];
  const int64_t kb = tb ? c.S(1)[1] : c.S(1)[0], n = tb ? c.S(1)[0] : c.S(1)[1];
  if (ka != kb) {
    return c.Err(absl::StrCat("inner dimensions differ: A ", ShapeStr(c.S(0)),
                              ta ? " (transposed)" : "", ", B ", ShapeStr(c.S(1)),
                              tb ? " (transposed)" : ""));
  }
  if (c.Has(2)) {
    Shape out;
    if (!ir::BroadcastShapes(c.S(2), {m, n}, &out) || out != Shape{m, n}) {
      return c.Err(absl::StrCat("C of shape ", ShapeStr(c.S(2)),
                                " does not broadcast to the output ", ShapeStr({m, n})));
    }
  }
  return c.Set(0, c.T(0), {m, n});
}

absl::Status DetShape(ShapeRuleContext& c) {
  ir::Graph& g = c.graph();
  ir::Node& n = c.node();
  if (n.inputs.empty() || n.inputs[0] == ir::kNoValue || !g.value(n.inputs[0]).has_shape) {
    return c.Err("expects a shaped input");
  }
  const ir::Value& x = g.value(n.inputs[0]);
  const size_t r = x.shape.size();
  if (r < 2 || x.shape[r - 1] != x.shape[r - 2]) {
    return c.Err(absl::StrCat("input ", ir::ShapeStr(x.shape), " is not a batch of square matrices"));
  }
  KILN_RETURN_IF_ERROR(c.Set(0, x.dtype, Shape(x.shape.begin(), x.shape.end() - 2)));
  return absl::OkStatus();
}

absl::Status EinsumShape(ShapeRuleContext& c) {
  const size_t n = c.node().inputs.size();
  KILN_RETURN_IF_ERROR(c.Need(n));
  if (n < 1 || n > 2) return c.Err("only one- and two-operand Einsum is supported");
  std::vector<Shape> shapes;
  for (size_t k = 0; k < n; ++k) shapes.push_back(c.S(k));
  auto spec = ParseEinsum(c.node().GetString("equation", ""), shapes);
  if (!spec.ok()) return c.Err(std::string(spec.status().message()));
  std::map<char, int64_t> dim;
  for (size_t k = 0; k < n; ++k) {
    for (size_t i = 0; i < spec->inputs[k].size(); ++i) {
      const char l = spec->inputs[k][i];
      const int64_t d = shapes[k][i];
      auto it = dim.find(l);
      if (it == dim.end() || it->second == 1) dim[l] = d;
      else if (d != 1 && d != it->second && (ir::IsSymbolic(d) || ir::IsSymbolic(it->second))) {
        it->second = c.dims().AssumeEqual(it->second, d);  // checked at run time
      } else if (d != 1 && d != it->second) return c.Err(absl::StrCat("letter '", std::string(1, l), "' has sizes ", it->second, " and ", d));
    }
  }
  Shape out;
  for (char l : spec->output) {
    if (!dim.count(l)) return c.Err(absl::StrCat("output letter '", std::string(1, l), "' is on no input"));
    out.push_back(dim[l]);
  }
  return c.Set(0, c.T(0), std::move(out));
}


absl::Status LowerGemm(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(ctx.RequireF32(node));
  KILN_ASSIGN_OR_RETURN(auto a, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto b, ctx.InputShape(node, 1));
  KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, 0));
  if (a.size() > 2 && y.size() == a.size() && node.GetString("kiln.source_op", "") == "MatMul") {
    // A MatMul of a stack of matrices [..., M, K] by one matrix (dispatch
    // formation): a dense A is one [rows, K] matrix, Y one [rows, N].
    const std::vector<int64_t> a_rows(a.begin(), a.end() - 1), y_rows(y.begin(), y.end() - 1);
    a = {ctx.dims().Product(a_rows), a.back()};
    y = {ctx.dims().Product(y_rows), y.back()};
  }
  if (a.size() != 2 || b.size() != 2 || y.size() != 2) {
    return ctx.Invalid(node, "Gemm operands must be 2-D");
  }
  const int64_t trans_a = node.GetInt("transA", 0) != 0;
  const int64_t trans_b = node.GetInt("transB", 0) != 0;
  const int64_t m = trans_a ? a[1] : a[0];
  const int64_t k = trans_a ? a[0] : a[1];
  const int64_t n = trans_b ? b[0] : b[1];
  if ((trans_b ? b[1] : b[0]) != k || y[0] != m || y[1] != n) {
    return ctx.Invalid(node, "operand shapes do not agree");
  }
  const bool has_c = HasInput(node, 2);
  int64_t c_stride_m = 0, c_stride_n = 0;
  KILN_ASSIGN_OR_RETURN(emit::Binding ba, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  emit::Binding bc = ba;  // unread when there is no C
  if (has_c) {
    KILN_ASSIGN_OR_RETURN(auto c, ctx.InputShape(node, 2));
    if (c.size() > 2) return ctx.Invalid(node, "C must have rank <= 2");
    // Right-align C to [M, N]; a dimension of 1 broadcasts (stride 0).
    const int64_t cm = c.size() == 2 ? c[0] : 1;
    const int64_t cn = c.empty() ? 1 : c.back();
    if ((cm != 1 && cm != m) || (cn != 1 && cn != n)) {
      return ctx.Invalid(node, "C does not broadcast to [M, N]");
    }
    c_stride_n = cn == 1 ? 0 : 1;
    c_stride_m = cm == 1 ? 0 : cn;
    KILN_ASSIGN_OR_RETURN(bc, ctx.Bind(node, node.inputs[2]));
  }
  const Epilogue act = EpilogueOf(node);
  emit::kernel::GemmF32 gemm;
  gemm.M = m;
  gemm.N = n;
  gemm.K = k;
  gemm.trans_a = trans_a;
  gemm.trans_b = trans_b;
  gemm.has_c = has_c ? 1 : 0;
  gemm.c_stride_m = c_stride_m;
  gemm.c_stride_n = c_stride_n;
  gemm.activation = act.kind;
  gemm.alpha = node.GetFloat("alpha", 1.0f);
  gemm.beta = node.GetFloat("beta", 1.0f);
  gemm.act_alpha = act.alpha;
  gemm.act_beta = act.beta;
  const std::vector<int64_t> c_unread = {-1, -1, has_c ? -1 : 0, -1};
  const ir::Value& bv = ctx.value(node.inputs[1]);
  if (bv.constant && bv.constant->dtype == ir::DType::F32 && (ir::IsSymbolic(m) || m > 0) &&
      n > 0) {
    const emit::Binding bp = ctx.BindNewConstant(absl::StrCat(bv.name, ".packed"),
                                           PackPanels16(*bv.constant, k, n,
                                                        [&](int64_t kk, int64_t j) {
                                                          return trans_b ? j * k + kk : kk * n + j;
                                                        }),
                                           /*layout=PackedPanel16*/ 1);
    emit::kernel::GemmPbF32 packed(gemm);
    packed.trans_b = 0;  // the panels hold B itself
    return ctx.Dispatch(node, packed, {ba, bp, bc, by}, c_unread);
  }
  KILN_ASSIGN_OR_RETURN(emit::Binding bb, ctx.Bind(node, node.inputs[1]));
  return ctx.Dispatch(node, gemm, {ba, bb, bc, by}, c_unread);
}

absl::Status LowerMatMul(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(ctx.RequireF32(node));
  KILN_ASSIGN_OR_RETURN(auto a, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto b, ctx.InputShape(node, 1));
  KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, 0));
  if (a.empty() || b.empty()) return ctx.Invalid(node, "operands must have rank >= 1");
  // numpy: a 1-D A is a row [1,K], a 1-D B a column [K,1]; the unit dim is
  // dropped from the result, which leaves its memory layout unchanged.
  if (a.size() == 1) a.insert(a.begin(), 1);
  if (b.size() == 1) b.push_back(1);
  const int64_t m = a[a.size() - 2], k = a.back(), n = b.back();
  ir::DimPool& dims_pool = ctx.dims();
  if (!dims_pool.SameDim(b[b.size() - 2], k)) return ctx.Invalid(node, "inner dimensions differ");
  const std::vector<int64_t> a_batch(a.begin(), a.end() - 2), b_batch(b.begin(), b.end() - 2);
  const size_t r = std::max(a_batch.size(), b_batch.size());
  if (r > KILN_MAX_RANK) return ctx.Unimplemented(node, "too many batch dimensions");
  const std::vector<int64_t> a_str = ContiguousStrides(a_batch, dims_pool);
  const std::vector<int64_t> b_str = ContiguousStrides(b_batch, dims_pool);
  std::vector<int64_t> dims(r), as(r, 0), bs(r, 0);
  int64_t batch = 1;
  for (size_t d = 0; d < r; ++d) {
    const size_t ad = d + a_batch.size(), bd = d + b_batch.size();  // right-aligned
    const int64_t da = ad >= r ? a_batch[ad - r] : 1;
    const int64_t db = bd >= r ? b_batch[bd - r] : 1;
    if (!dims_pool.SameDim(da, db) && da != 1 && db != 1) {
      return ctx.Invalid(node, "batch dimensions do not broadcast");
    }
    dims[d] = da == 1 ? db : da;  // equal, or one of them broadcasts
    if (da != 1) as[d] = dims_pool.Mul(dims_pool.Mul(a_str[ad - r], m), k);
    if (db != 1) bs[d] = dims_pool.Mul(dims_pool.Mul(b_str[bd - r], k), n);
    batch = dims_pool.Mul(batch, dims[d]);
  }
  if (dims_pool.Product(y) != dims_pool.Mul(dims_pool.Mul(batch, m), n)) {
    return ctx.Invalid(node, "output shape disagrees");
  }
  emit::kernel::MatmulF32 matmul;
  matmul.M = m;
  matmul.N = n;
  matmul.K = k;
  matmul.R = static_cast<int64_t>(r);
  matmul.batch_dims = dims;
  matmul.a_batch_strides = as;
  matmul.b_batch_strides = bs;
  KILN_ASSIGN_OR_RETURN(emit::Binding ba, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding bb, ctx.Bind(node, node.inputs[1]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  return ctx.Dispatch(node, matmul, {ba, bb, by});
}

absl::Status LowerEinsum(emit::LoweringContext& ctx, const ir::Node& node) {
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
  auto spec = ParseEinsum(node.GetString("equation", ""), shapes);
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
  emit::kernel::Einsum einsum;
  einsum.L = static_cast<int64_t>(L);
  einsum.nout = static_cast<int64_t>(spec->output.size());
  einsum.has_b = shapes.size() == 2 ? 1 : 0;
  einsum.is_f64 = t == ir::DType::F64 ? 1 : 0;
  einsum.dims = dims;
  einsum.a_strides = strides[0];
  einsum.b_strides = strides[1];
  KILN_ASSIGN_OR_RETURN(emit::Binding ba, ctx.Bind(node, node.inputs[0]));
  emit::Binding bb = ba;
  if (shapes.size() == 2) {
    KILN_ASSIGN_OR_RETURN(bb, ctx.Bind(node, node.inputs[1]));
  }
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  return ctx.Dispatch(node, einsum, {ba, bb, by}, {-1, shapes.size() == 2 ? -1 : 0, -1});
}

absl::Status LowerDet(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(ctx.RequireF32(node));
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  const int64_t m = x.back();
  if (m > 32) return ctx.Unimplemented(node, "matrices larger than 32 x 32 are not supported");
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  const int64_t batch = m == 0 ? ir::ElementCount({x.begin(), x.end() - 2})
                               : ir::ElementCount(x) / (m * m);
  emit::kernel::DetF32 det;
  det.batch = batch;
  det.M = m;
  return ctx.Dispatch(node, det, {bx, by});
}

}  // namespace

void RegisterLinearOps(std::vector<OpDef>& ops) {
  ops.push_back({"Gemm", GemmShape, /*symbolic=*/true, LowerGemm});
  ops.push_back({"MatMul", MatMulShape, /*symbolic=*/true, LowerMatMul});
  ops.push_back({"Einsum", EinsumShape, /*symbolic=*/true, LowerEinsum});
  ops.push_back({"Det", DetShape, /*symbolic=*/false, LowerDet});
}

}  // namespace kiln::compiler
