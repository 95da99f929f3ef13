// Compile-time evaluation of single nodes (EvaluateNode). Plain loops: this
// runs once per model on small shape tensors and the odd weight transform.
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"
#include "compiler/passes/symbolic_fold.h"
#include "compiler/passes/symbolic_support.h"
#include "compiler/passes/constant_folding.h"
#include "compiler/ops/slice.h"
#include "compiler/passes/shape_inference.h"
#include "compiler/ops/op_registry.h"
#include "compiler/passes/fold_eval.h"

namespace kiln::compiler {
namespace {

using ir::ConstantData;
using ir::ConstantPtr;
using ir::DType;
using Shape = std::vector<int64_t>;

using ir::IsFloat;

// Folding must give the bits the kernels would (runtime/kernels/cast.c,
// binary_typed.c, pow_typed.c), and never overflow itself: integers wrap
// modulo 2^64, float to integer truncates and saturates (NaN -> 0).
int64_t WrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t WrapSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
int64_t WrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}
int64_t WrapPow(int64_t base, int64_t exp, bool signed_exp) {
  if (signed_exp && exp < 0) {  // only 1 and -1 have integer reciprocals
    if (base == 1) return 1;
    if (base == -1) return (exp & 1) ? -1 : 1;
    return 0;
  }
  uint64_t r = 1, b = static_cast<uint64_t>(base), e = static_cast<uint64_t>(exp);
  for (; e != 0; e >>= 1) {
    if (e & 1) r *= b;
    b *= b;
  }
  return static_cast<int64_t>(r);
}
int64_t FloatToIntBits(double v, DType t) {
  if (std::isnan(v)) return 0;
  v = std::trunc(v);
  if (t == DType::U64) {
    if (v <= 0) return 0;
    if (v >= 18446744073709551616.0) return -1;  // all ones
    return static_cast<int64_t>(static_cast<uint64_t>(v));
  }
  double lo = -9223372036854775808.0, hi = 9223372036854775807.0;
  switch (t) {
    case DType::I8: lo = INT8_MIN; hi = INT8_MAX; break;
    case DType::U8: lo = 0; hi = UINT8_MAX; break;
    case DType::I16: lo = INT16_MIN; hi = INT16_MAX; break;
    case DType::U16: lo = 0; hi = UINT16_MAX; break;
    case DType::I32: lo = INT32_MIN; hi = INT32_MAX; break;
    case DType::U32: lo = 0; hi = UINT32_MAX; break;
    default: break;
  }
  if (v <= lo) v = lo;
  if (v >= hi) return t == DType::I64 ? INT64_MAX : static_cast<int64_t>(hi);  // 2^63 is out of range
  return static_cast<int64_t>(v);
}

uint16_t FloatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000;
  const int32_t exp = static_cast<int32_t>((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffff;
  if (((x >> 23) & 0xff) == 0xff) return static_cast<uint16_t>(sign | 0x7c00 | (mant ? 0x200 : 0));
  if (exp >= 31) return static_cast<uint16_t>(sign | 0x7c00);
  if (exp <= 0) {
    if (exp < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000;
    const int shift = 14 - exp;
    uint32_t h = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1))) ++h;
    return static_cast<uint16_t>(sign | h);
  }
  uint32_t h = (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  const uint32_t rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) ++h;  // may carry into exp: still correct
  return static_cast<uint16_t>(sign | h);
}

void StoreF(DType t, uint8_t* p, double v) {
  switch (t) {
    case DType::F32: { float x = static_cast<float>(v); std::memcpy(p, &x, 4); return; }
    case DType::F64: std::memcpy(p, &v, 8); return;
    case DType::F16: { uint16_t h = FloatToHalf(static_cast<float>(v)); std::memcpy(p, &h, 2); return; }
    case DType::BF16: {
      uint16_t b = ir::FloatToBFloat16(static_cast<float>(v));
      std::memcpy(p, &b, 2);
      return;
    }
    default: break;
  }
}

void StoreI(DType t, uint8_t* p, int64_t v) {
  switch (t) {
    case DType::I64: std::memcpy(p, &v, 8); return;
    case DType::I32: { int32_t x = static_cast<int32_t>(v); std::memcpy(p, &x, 4); return; }
    case DType::I16: { int16_t x = static_cast<int16_t>(v); std::memcpy(p, &x, 2); return; }
    case DType::I8: { int8_t x = static_cast<int8_t>(v); std::memcpy(p, &x, 1); return; }
    case DType::U8: { uint8_t x = static_cast<uint8_t>(v); std::memcpy(p, &x, 1); return; }
    case DType::Bool: *p = v != 0; return;
    case DType::U16: { uint16_t x = static_cast<uint16_t>(v); std::memcpy(p, &x, 2); return; }
    case DType::U32: { uint32_t x = static_cast<uint32_t>(v); std::memcpy(p, &x, 4); return; }
    case DType::U64: std::memcpy(p, &v, 8); return;
    default: StoreF(t, p, static_cast<double>(v)); return;
  }
}

Shape Strides(const Shape& s) {
  Shape st(s.size(), 1);
  for (size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
  return st;
}

// For each output element, the index of the input element it reads under
// numpy broadcasting (input right-aligned to the output).
std::vector<int64_t> BroadcastIndex(const Shape& in, const Shape& out) {
  const size_t r = out.size(), off = r - in.size();
  Shape in_strides_full(r, 0);
  const Shape st = Strides(in);
  for (size_t i = 0; i < in.size(); ++i) in_strides_full[off + i] = in[i] == 1 ? 0 : st[i];
  const int64_t n = ir::ElementCount(out);
  std::vector<int64_t> idx(static_cast<size_t>(n));
  Shape pos(r, 0);
  int64_t cur = 0;
  for (int64_t k = 0; k < n; ++k) {
    idx[k] = cur;
    for (size_t d = r; d-- > 0;) {
      if (++pos[d] < out[d]) {
        cur += in_strides_full[d];
        break;
      }
      cur -= in_strides_full[d] * (out[d] - 1);
      pos[d] = 0;
    }
  }
  return idx;
}

using E = FoldContext;

ConstantPtr Relabel(const E& e) {
  auto c = std::make_shared<ConstantData>(*e.In(0));
  c->shape = e.Out(0).shape;
  return c;
}

ConstantPtr ShapeOf(const E& e) {
  const Shape& x = e.g.value(e.n.inputs[0]).shape;
  const int64_t r = static_cast<int64_t>(x.size());
  auto clamp = [r](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + r : v, 0, r); };
  const int64_t start = clamp(e.n.GetInt("start", 0)), end = clamp(e.n.GetInt("end", r));
  Shape dims;
  for (int64_t i = start; i < end; ++i) dims.push_back(x[i]);
  return ir::MakeI64Constant({static_cast<int64_t>(dims.size())}, dims);
}

ConstantPtr CastOp(const E& e) {
  const ConstantData* x = e.In(0);
  const DType to = e.Out(0).dtype;
  auto out = NewFoldedConstant(to, x->shape);
  const size_t es = ir::DTypeSize(to);
  for (int64_t k = 0; k < x->element_count(); ++k) {
    uint8_t* p = out->bytes.data() + k * es;
    if (IsFloat(to)) {
      StoreF(to, p, x->FloatAt(k));
    } else if (to == DType::Bool) {
      *p = x->FloatAt(k) != 0.0;
    } else if (IsFloat(x->dtype)) {
      StoreI(to, p, FloatToIntBits(x->FloatAt(k), to));
    } else {
      StoreI(to, p, x->IntAt(k));
    }
  }
  return out;
}

ConstantPtr GatherOp(const E& e) {
  const ConstantData *x = e.In(0), *idx = e.In(1);
  const int64_t r = static_cast<int64_t>(x->shape.size());
  int64_t axis = e.n.GetInt("axis", 0);
  if (axis < 0) axis += r;
  const int64_t outer = ir::ElementCount(Shape(x->shape.begin(), x->shape.begin() + axis));
  const int64_t inner = ir::ElementCount(Shape(x->shape.begin() + axis + 1, x->shape.end()));
  const int64_t dim = x->shape[axis], es = static_cast<int64_t>(ir::DTypeSize(x->dtype));
  auto out = NewFoldedConstant(x->dtype, e.Out(0).shape);
  uint8_t* dst = out->bytes.data();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < idx->element_count(); ++i) {
      int64_t j = idx->IntAt(i);
      if (j < 0) j += dim;
      if (inner > 0) std::memcpy(dst, x->bytes.data() + ((o * dim + j) * inner) * es, inner * es);
      dst += inner * es;
    }
  }
  return out;
}

ConstantPtr ConcatOp(const E& e) {
  const DType t = e.Out(0).dtype;
  const Shape& os = e.Out(0).shape;
  int64_t axis = e.n.GetInt("axis", 0);
  if (axis < 0) axis += static_cast<int64_t>(os.size());
  const int64_t outer = ir::ElementCount(Shape(os.begin(), os.begin() + axis));
  const int64_t es = static_cast<int64_t>(ir::DTypeSize(t));
  auto out = NewFoldedConstant(t, os);
  uint8_t* dst = out->bytes.data();
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t k = 0; k < e.n.inputs.size(); ++k) {
      const ConstantData* x = e.In(k);
      const int64_t chunk = ir::ElementCount(Shape(x->shape.begin() + axis, x->shape.end())) * es;
      if (chunk > 0) std::memcpy(dst, x->bytes.data() + o * chunk, chunk);  // empty inputs have no data
      dst += chunk;
    }
  }
  return out;
}

// Generic gather by per-output-element source index.
ConstantPtr Pick(const ConstantData& x, DType t, const Shape& shape,
                 const std::function<int64_t(const Shape&)>& src) {
  auto out = NewFoldedConstant(t, shape);
  const size_t es = ir::DTypeSize(t);
  const int64_t n = ir::ElementCount(shape);
  Shape pos(shape.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    std::memcpy(out->bytes.data() + k * es, x.bytes.data() + src(pos) * es, es);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++pos[d] < shape[d]) break;
      pos[d] = 0;
    }
  }
  return out;
}

absl::StatusOr<ConstantPtr> SliceOp(const E& e) {
  const ConstantData* x = e.In(0);
  Shape starts, steps, shape;
  absl::Status s = SliceParams(e.g, e.n, e.known, x->shape, &starts, &steps, &shape);
  if (!s.ok()) return s;
  const Shape st = Strides(x->shape);
  return Pick(*x, x->dtype, shape, [&](const Shape& pos) {
    int64_t off = 0;
    for (size_t d = 0; d < pos.size(); ++d) off += (starts[d] + pos[d] * steps[d]) * st[d];
    return off;
  });
}

ConstantPtr TransposeOp(const E& e) {
  const ConstantData* x = e.In(0);
  Shape perm = e.n.GetInts("perm", {});
  if (perm.empty()) {
    for (size_t i = x->shape.size(); i-- > 0;) perm.push_back(static_cast<int64_t>(i));
  }
  const Shape st = Strides(x->shape);
  return Pick(*x, x->dtype, e.Out(0).shape, [&](const Shape& pos) {
    int64_t off = 0;
    for (size_t d = 0; d < pos.size(); ++d) off += pos[d] * st[perm[d]];
    return off;
  });
}

ConstantPtr ExpandOp(const E& e) {
  const ConstantData* x = e.In(0);
  const auto idx = BroadcastIndex(x->shape, e.Out(0).shape);
  auto out = NewFoldedConstant(x->dtype, e.Out(0).shape);
  const size_t es = ir::DTypeSize(x->dtype);
  for (size_t k = 0; k < idx.size(); ++k) {
    std::memcpy(out->bytes.data() + k * es, x->bytes.data() + idx[k] * es, es);
  }
  return out;
}

ConstantPtr WhereOp(const E& e) {
  const Shape& os = e.Out(0).shape;
  const ConstantData *c = e.In(0), *a = e.In(1), *b = e.In(2);
  const auto ic = BroadcastIndex(c->shape, os), ia = BroadcastIndex(a->shape, os),
             ib = BroadcastIndex(b->shape, os);
  auto out = NewFoldedConstant(a->dtype, os);
  const size_t es = ir::DTypeSize(a->dtype);
  for (size_t k = 0; k < ic.size(); ++k) {
    const ConstantData* src = c->IntAt(ic[k]) ? a : b;
    const int64_t j = c->IntAt(ic[k]) ? ia[k] : ib[k];
    std::memcpy(out->bytes.data() + k * es, src->bytes.data() + j * es, es);
  }
  return out;
}

// Equal and the orderings from the operands' relation.
bool Compare(const std::string& op, bool less, bool equal, bool greater) {
  if (op == "Equal") return equal;
  if (op == "Less") return less;
  if (op == "LessOrEqual") return less || equal;
  if (op == "Greater") return greater;
  return greater || equal;  // GreaterOrEqual
}

// ONNX Mod: the remainder with the divisor's sign (Python's %), or with the
// dividend's when c_mod (C's fmod and %). As runtime/kernels/binary_typed.c:
// a zero divisor gives 0, and so does -1 (which also avoids INT64_MIN % -1).
static double FloatMod(double x, double y, bool c_mod) {
  const double r = std::fmod(x, y);
  return !c_mod && r != 0 && ((r < 0) != (y < 0)) ? r + y : r;
}

static int64_t IntMod(int64_t x, int64_t y, bool is_unsigned, bool c_mod) {
  if (y == 0) return 0;
  if (is_unsigned) return static_cast<int64_t>(static_cast<uint64_t>(x) % static_cast<uint64_t>(y));
  if (y == -1) return 0;
  const int64_t r = x % y;
  return !c_mod && r != 0 && ((r < 0) != (y < 0)) ? r + y : r;
}

absl::StatusOr<ConstantPtr> BinaryOp(const E& e) {
  const std::string& op = e.n.op_type;
  const ConstantData *a = e.In(0), *b = e.In(1);
  const Shape& os = e.Out(0).shape;
  const DType t = e.Out(0).dtype;
  const auto ia = BroadcastIndex(a->shape, os), ib = BroadcastIndex(b->shape, os);
  auto out = NewFoldedConstant(t, os);
  const size_t es = ir::DTypeSize(t);
  const bool fp = IsFloat(a->dtype) || (op == "Pow" && IsFloat(b->dtype));
  const bool unsigned_operands = a->dtype == DType::U64;  // compared as uint64
  // Mod's sign rule as the kernels apply it: binary_f32 always takes C's fmod
  // (ONNX requires fmod=1 for floats), binary_typed the attribute's.
  const bool c_mod = e.n.GetInt("fmod", 0) != 0 || a->dtype == DType::F32;
  for (size_t k = 0; k < ia.size(); ++k) {
    uint8_t* p = out->bytes.data() + k * es;
    if (fp) {
      const double x = a->FloatAt(ia[k]), y = b->FloatAt(ib[k]);
      double r = 0;
      if (op == "Add") r = x + y;
      else if (op == "Sub") r = x - y;
      else if (op == "Mul") r = x * y;
      else if (op == "Div") r = x / y;
      else if (op == "Pow") r = std::pow(x, y);
      // Min/Max propagate NaN, as ONNX's reference does.
      else if (op == "Min") r = std::isnan(x) || std::isnan(y) ? x + y : std::min(x, y);
      else if (op == "Max") r = std::isnan(x) || std::isnan(y) ? x + y : std::max(x, y);
      else if (op == "Mod") r = FloatMod(x, y, c_mod);
      if (t == DType::Bool) *p = Compare(op, x < y, x == y, x > y);
      else if (IsFloat(t)) StoreF(t, p, r);
      else StoreI(t, p, FloatToIntBits(r, t));
    } else {
      const int64_t x = a->IntAt(ia[k]), y = b->IntAt(ib[k]);
      const bool less = unsigned_operands ? static_cast<uint64_t>(x) < static_cast<uint64_t>(y)
                                          : x < y;
      const bool greater = unsigned_operands ? static_cast<uint64_t>(x) > static_cast<uint64_t>(y)
                                             : x > y;
      int64_t r = 0;
      if (op == "Min") r = less ? x : y;
      else if (op == "Max") r = greater ? x : y;
      else if (op == "Add") r = WrapAdd(x, y);
      else if (op == "Sub") r = WrapSub(x, y);
      else if (op == "Mul") r = WrapMul(x, y);
      else if (op == "Div") {
        if (y == 0) {
          return absl::InvalidArgumentError(absl::StrCat(
              e.g.source, ": node ", e.n.Describe(), ": integer division by zero in constants"));
        }
        r = (y == -1) ? WrapSub(0, x) : x / y;  // INT64_MIN / -1 wraps
      } else if (op == "Mod") {
        r = IntMod(x, y, unsigned_operands, c_mod);
      } else if (op == "Pow") {
        const DType et = b->dtype;
        r = WrapPow(x, y, !(et == DType::U8 || et == DType::U16 || et == DType::U32 || et == DType::U64));
      }
      if (t == DType::Bool) *p = Compare(op, less, x == y, greater);
      else StoreI(t, p, r);
    }
  }
  return ConstantPtr(out);
}

ConstantPtr UnaryOp(const E& e) {
  const ConstantData* x = e.In(0);
  const std::string& op = e.n.op_type;
  auto out = NewFoldedConstant(x->dtype, x->shape);
  const size_t es = ir::DTypeSize(x->dtype);
  for (int64_t k = 0; k < x->element_count(); ++k) {
    uint8_t* p = out->bytes.data() + k * es;
    if (IsFloat(x->dtype)) {
      const double v = x->FloatAt(k);
      // Round: halves to even (ONNX), which nearbyint gives in the default mode.
      StoreF(x->dtype, p,
             op == "Floor"  ? std::floor(v)
             : op == "Ceil" ? std::ceil(v)
             : op == "Round" ? std::nearbyint(v)
             : op == "Abs"  ? std::fabs(v)
             : op == "Reciprocal" ? 1.0 / v
             : op == "Sqrt" ? std::sqrt(v)
                            : -v);
    } else {
      const int64_t v = x->IntAt(k);
      StoreI(x->dtype, p,
             op == "Neg"   ? WrapSub(0, v)
             : op == "Abs" ? (v < 0 && x->dtype != DType::U64 ? WrapSub(0, v) : v)
             : op == "Not" ? static_cast<int64_t>(v == 0)
             : op == "Sqrt" ? FloatToIntBits(std::sqrt(static_cast<double>(v)), x->dtype)
                            : v);
    }
  }
  return out;
}

ConstantPtr ConstantOfShapeOp(const E& e) {
  const ir::Value& o = e.Out(0);
  auto out = NewFoldedConstant(o.dtype, o.shape);
  auto it = e.n.attributes.find("value");
  if (it != e.n.attributes.end() && it->second.tensor) {
    const auto& v = it->second.tensor->bytes;
    for (size_t k = 0; k + v.size() <= out->bytes.size() && !v.empty(); k += v.size()) {
      if (!v.empty()) std::memcpy(out->bytes.data() + k, v.data(), v.size());
    }
  }
  return out;
}

ConstantPtr RangeOp(const E& e) {
  const ir::Value& o = e.Out(0);
  auto out = NewFoldedConstant(o.dtype, o.shape);
  const size_t es = ir::DTypeSize(o.dtype);
  for (int64_t k = 0; k < o.shape[0]; ++k) {
    uint8_t* p = out->bytes.data() + k * es;
    if (IsFloat(o.dtype)) StoreF(o.dtype, p, e.In(0)->FloatAt(0) + k * e.In(2)->FloatAt(0));
    else StoreI(o.dtype, p, e.In(0)->IntAt(0) + k * e.In(2)->IntAt(0));
  }
  return out;
}

// ReduceSum/Mean/Prod/Max/Min over the axes shape inference resolved
// ("kiln.axes": attribute or input, empty meaning all or none as the opset
// says); ReduceProd also folds before inference, from its attribute.
ConstantPtr ReduceOp(const E& e) {
  const ConstantData* x = e.In(0);
  const ir::Value& o = e.Out(0);
  const std::string& op = e.n.op_type;
  const int64_t r = static_cast<int64_t>(x->shape.size());
  if (x->element_count() == 0 && (op == "ReduceMax" || op == "ReduceMin")) return nullptr;
  std::set<int64_t> red;
  if (e.n.HasAttr("kiln.axes")) {
    for (int64_t a : e.n.GetInts("kiln.axes", {})) red.insert(a);
  } else if (op == "ReduceProd") {
    for (int64_t a : e.n.GetInts("axes", {})) red.insert(a < 0 ? a + r : a);
    if (red.empty()) for (int64_t i = 0; i < r; ++i) red.insert(i);
  } else {
    return nullptr;
  }
  const bool is_float = IsFloat(x->dtype);
  const bool is_sum = op == "ReduceSum" || op == "ReduceMean";
  // Output index of each input element: reduced dims collapse to 0.
  Shape keep_shape = x->shape;
  for (int64_t a : red) keep_shape[a] = 1;
  const Shape kst = Strides(keep_shape);
  const int64_t n_out = ir::ElementCount(keep_shape);
  const double fstart = is_sum ? 0.0 : 1.0;
  std::vector<double> facc(n_out, fstart);
  std::vector<int64_t> iacc(n_out, is_sum ? 0 : 1);
  std::vector<bool> seen(n_out, false);
  Shape pos(r, 0);
  for (int64_t k = 0; k < x->element_count(); ++k) {
    int64_t j = 0;
    for (int64_t d = 0; d < r; ++d) j += (red.count(d) ? 0 : pos[d]) * kst[d];
    const bool first = !seen[j];
    seen[j] = true;
    if (is_float) {
      const double v = x->FloatAt(k);
      double& a = facc[j];
      if (is_sum) a += v;
      else if (op == "ReduceProd") a *= v;
      else if (first || std::isnan(v)) a = v;
      else if (!std::isnan(a)) a = op == "ReduceMax" ? std::max(a, v) : std::min(a, v);
    } else {
      const int64_t v = x->IntAt(k);
      int64_t& a = iacc[j];
      if (is_sum) a = WrapAdd(a, v);
      else if (op == "ReduceProd") a = WrapMul(a, v);
      else if (first) a = v;
      else a = op == "ReduceMax" ? std::max(a, v) : std::min(a, v);
    }
    for (int64_t d = r; d-- > 0;) {
      if (++pos[d] < x->shape[d]) break;
      pos[d] = 0;
    }
  }
  // Elements per output: the mean's divisor.
  const int64_t per_out = n_out > 0 ? x->element_count() / n_out : 0;
  auto out = NewFoldedConstant(o.dtype, o.shape);
  const size_t es = ir::DTypeSize(o.dtype);
  for (int64_t j = 0; j < n_out; ++j) {
    uint8_t* p = out->bytes.data() + j * es;
    if (IsFloat(o.dtype)) {
      StoreF(o.dtype, p, op == "ReduceMean" ? facc[j] / static_cast<double>(per_out) : facc[j]);
    } else {
      // Integer mean truncates, as the kernels' integer division does.
      StoreI(o.dtype, p, op == "ReduceMean" ? (per_out > 0 ? iacc[j] / per_out : 0) : iacc[j]);
    }
  }
  return out;
}

constexpr int64_t kMaxFoldElements = int64_t{1} << 22;

}  // namespace

static absl::StatusOr<std::vector<ConstantPtr>> EvaluateNodeUnchecked(
    const ir::Graph& graph, const ir::Node& node, const std::vector<ConstantPtr>& known);

absl::StatusOr<std::vector<ConstantPtr>> EvaluateNode(const ir::Graph& graph, const ir::Node& node,
                                                      const std::vector<ConstantPtr>& known) {
  // Symbolic dims: only element movers fold, and what they produce from
  // symbolic shape values (or Shape of a symbolic tensor) stays symbolic.
  if (TouchesSymbols(graph, node, &known)) {
    if (IsSymbolicArithmetic(node)) {
      ConstantPtr folded = FoldSymbolicArithmetic(graph, node, known);
      if (!folded) return std::vector<ConstantPtr>{};
      return std::vector<ConstantPtr>{folded};
    }
    if (!FoldsSymbolicValues(node)) return std::vector<ConstantPtr>{};
    // A result of symbolic shape is a run-time tensor, not a shape value.
    for (ir::ValueId out : node.outputs) {
      if (out != ir::kNoValue && HasSymbolicDims(graph.value(out).shape)) {
        return std::vector<ConstantPtr>{};
      }
    }
    absl::StatusOr<std::vector<ConstantPtr>> folded = EvaluateNodeUnchecked(graph, node, known);
    if (!folded.ok()) return folded;
    for (ConstantPtr& c : *folded) {
      if (!c || c->dtype != DType::I64) continue;
      auto marked = std::make_shared<ir::ConstantData>(*c);
      for (int64_t k = 0; k < marked->element_count(); ++k) {
        marked->symbolic = marked->symbolic || graph.dims.Known(marked->data<int64_t>()[k]);
      }
      c = std::move(marked);
    }
    return folded;
  }
  return EvaluateNodeUnchecked(graph, node, known);
}

static absl::StatusOr<std::vector<ConstantPtr>> EvaluateNodeUnchecked(
    const ir::Graph& graph, const ir::Node& node, const std::vector<ConstantPtr>& known) {
  const OpDef* def = FindOpDef(node);  // compiler/ops/: the op's evaluator
  if (def == nullptr || def->fold.fn == nullptr) return std::vector<ConstantPtr>{};
  const FoldContext e{graph, node, known};
  if (def->fold.needs == FoldRule::Needs::kOwnChecks) return def->fold.fn(e);
  if (node.outputs.empty() || node.outputs[0] == ir::kNoValue) return std::vector<ConstantPtr>{};
  const ir::Value& out0 = e.Out(0);
  if (!out0.has_shape || ir::ElementCount(out0.shape) > kMaxFoldElements) {
    return std::vector<ConstantPtr>{};
  }
  if (def->fold.needs == FoldRule::Needs::kShapes) return def->fold.fn(e);
  // A malformed node without the inputs its evaluator reads is refused
  // rather than dereferenced.
  for (size_t k = 0; k < def->fold.required_inputs; ++k) {
    if (k >= node.inputs.size() || node.inputs[k] == ir::kNoValue) {
      return absl::InvalidArgumentError(absl::StrCat(graph.source, ": node ", node.Describe(),
                                                     ": input ", k, " is required"));
    }
  }
  for (size_t k = 0; k < node.inputs.size(); ++k) {
    if (node.inputs[k] != ir::kNoValue && !e.In(k)) return std::vector<ConstantPtr>{};
  }
  if (node.inputs.empty() || !e.In(0)) return std::vector<ConstantPtr>{};
  return def->fold.fn(e);
}

std::shared_ptr<ir::ConstantData> NewFoldedConstant(ir::DType dtype, const Shape& shape) {
  auto c = std::make_shared<ConstantData>();
  c->dtype = dtype;
  c->shape = shape;
  c->bytes.assign(static_cast<size_t>(ir::ElementCount(shape)) * ir::DTypeSize(dtype), 0);
  return c;
}

const ir::ConstantData* FoldContext::In(size_t k) const {
  return k < n.inputs.size() ? KnownValue(g, n.inputs[k], known) : nullptr;
}

namespace {

FoldResult One(ConstantPtr c) { return std::vector<ConstantPtr>{std::move(c)}; }
FoldResult One(absl::StatusOr<ConstantPtr> c) {
  if (!c.ok()) return c.status();
  return std::vector<ConstantPtr>{*std::move(c)};
}

}  // namespace

FoldResult FoldRelabel(const FoldContext& e) { return One(Relabel(e)); }

FoldResult FoldDropout(const FoldContext& e) {
  // Training draws a random mask: left to the dropout kernel.
  if (const ConstantData* t = e.In(2); t && t->element_count() == 1 && t->IntAt(0) != 0) {
    return std::vector<ConstantPtr>{};
  }
  std::vector<ConstantPtr> outs = {Relabel(e)};
  if (e.n.outputs.size() > 1 && e.n.outputs[1] != ir::kNoValue) {
    auto mask = NewFoldedConstant(DType::Bool, e.Out(0).shape);
    std::fill(mask->bytes.begin(), mask->bytes.end(), 1);
    outs.push_back(mask);
  }
  return outs;
}

FoldResult FoldShape(const FoldContext& e) {
  const ir::ValueId in = e.n.inputs.empty() ? ir::kNoValue : e.n.inputs[0];
  if (in == ir::kNoValue || !e.g.value(in).has_shape) return std::vector<ConstantPtr>{};
  return One(ShapeOf(e));
}

FoldResult FoldCast(const FoldContext& e) { return One(CastOp(e)); }
FoldResult FoldGather(const FoldContext& e) { return One(GatherOp(e)); }
FoldResult FoldConcat(const FoldContext& e) { return One(ConcatOp(e)); }
FoldResult FoldSlice(const FoldContext& e) { return One(SliceOp(e)); }
FoldResult FoldTranspose(const FoldContext& e) { return One(TransposeOp(e)); }
FoldResult FoldExpand(const FoldContext& e) { return One(ExpandOp(e)); }
FoldResult FoldWhere(const FoldContext& e) { return One(WhereOp(e)); }
FoldResult FoldBinary(const FoldContext& e) { return One(BinaryOp(e)); }

FoldResult FoldMinMax(const FoldContext& e) {
  if (e.n.inputs.size() != 2) return std::vector<ConstantPtr>{};
  return FoldBinary(e);
}

FoldResult FoldUnary(const FoldContext& e) { return One(UnaryOp(e)); }
FoldResult FoldConstantOfShape(const FoldContext& e) { return One(ConstantOfShapeOp(e)); }
FoldResult FoldRange(const FoldContext& e) { return One(RangeOp(e)); }

FoldResult FoldReduce(const FoldContext& e) {
  ConstantPtr r = ReduceOp(e);
  if (!r) return std::vector<ConstantPtr>{};
  return One(std::move(r));
}

}  // namespace kiln::compiler
