// TfIdfVectorizer → tfidf (runtime/kernels/tfidf.c). Shape inference
// (passes/shape_rules_tfidf.cc) validated the attributes; here they become
// the kernel's entry table (iparams), weights (fparams) and a constant int64
// pool binding.
#include <cstring>

#include "absl/strings/str_cat.h"
#include "compiler/emit/lower_ops.h"
#include "compiler/passes/shape_rules_tfidf.h"
#include "kiln/kernels.h"

namespace kiln::compiler::emit {
namespace {

absl::Status LowerTfIdf(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_RETURN_IF_ERROR(ctx.RequireStatic(node, x, "the input shape"));
  const ir::DType dt = ctx.value(node.inputs[0]).dtype;
  if (dt != ir::DType::I32 && dt != ir::DType::I64) {
    return ctx.Unimplemented(node, "only int32 and int64 tokens are supported");
  }
  if (x.size() != 1 && x.size() != 2) return ctx.Invalid(node, "input must be 1-D or 2-D");
  TfIdfPlan plan;
  if (std::string why; !ParseTfIdf(node, &plan, &why)) return ctx.Invalid(node, why);
  const int64_t rows = x.size() == 2 ? x[0] : 1;
  const int64_t cols = x.back();
  const int64_t dtype = dt == ir::DType::I32 ? KILN_DTYPE_I32 : KILN_DTYPE_I64;
  // An empty pool still gets a one-value binding: constants are never empty.
  std::vector<int64_t> pool = plan.pool;
  if (pool.empty()) pool.push_back(0);
  auto data = std::make_shared<ir::ConstantData>();
  data->dtype = ir::DType::I64;
  data->shape = {static_cast<int64_t>(pool.size())};
  data->bytes.resize(pool.size() * sizeof(int64_t));
  std::memcpy(data->bytes.data(), pool.data(), data->bytes.size());
  const Binding bp = ctx.BindNewConstant(absl::StrCat(node.name, ".pool"), data);

  std::vector<int64_t> ip = {dtype,
                             rows,
                             cols,
                             plan.skips,
                             static_cast<int64_t>(plan.entries.size()),
                             static_cast<int64_t>(plan.pool.size()),
                             plan.out_len,
                             plan.mode};
  std::vector<float> fp;
  for (const TfIdfPlan::Entry& e : plan.entries) {
    ip.insert(ip.end(), {e.len, e.off, e.index});
    fp.push_back(e.weight);
  }
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  return ctx.Dispatch(node, "tfidf", std::move(ip), std::move(fp), {bx, bp, by});
}

}  // namespace

void RegisterTfIdfLowerings(LoweringTable& table) { table["TfIdfVectorizer"] = LowerTfIdf; }

}  // namespace kiln::compiler::emit
