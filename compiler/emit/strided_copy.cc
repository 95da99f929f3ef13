// The strided_copy dispatch every byte mover shares (lower_ops.h): Slice,
// Expand, Tile, Split, DepthToSpace and SpaceToDepth (compiler/ops/) lower to
// it. Any dtype: it moves elem_bytes per element.
#include "absl/strings/str_cat.h"
#include "compiler/emit/lower_ops.h"
#include "kiln/kernel_abi.h"

namespace kiln::compiler::emit {

using Shape = std::vector<int64_t>;

// Dims that are contiguous on both sides merge, so high-rank views fit KILN_MAX_RANK.
absl::Status EmitStridedCopy(LoweringContext& ctx, const ir::Node& node, const Binding& src,
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

}  // namespace kiln::compiler::emit
