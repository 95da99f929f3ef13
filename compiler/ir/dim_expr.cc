#include "compiler/ir/dim_expr.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kiln::ir {
namespace {

// Coefficients past this are refused: no real shape comes near, and it keeps
// every product of two of them inside int64.
constexpr int64_t kMaxCoeff = int64_t{1} << 50;

std::string Key(const DimPool::Poly& p) {
  std::string key;
  for (const DimPool::Term& t : p) {
    absl::StrAppend(&key, t.coeff, ":", absl::StrJoin(t.atoms, ","), ";");
  }
  return key;
}

// Whether `sub` (sorted) is contained in `atoms` (sorted) as a multiset; if
// so, `rest` gets the difference.
bool Contains(const std::vector<int32_t>& atoms, const std::vector<int32_t>& sub,
              std::vector<int32_t>* rest) {
  rest->clear();
  size_t j = 0;
  for (int32_t a : atoms) {
    if (j < sub.size() && sub[j] == a) {
      ++j;
    } else {
      rest->push_back(a);
    }
  }
  return j == sub.size();
}

}  // namespace

int64_t DimPool::Symbol(const std::string& name) {
  int32_t index = -1;
  for (size_t k = 0; k < symbols_.size(); ++k) {
    if (symbols_[k] == name) index = static_cast<int32_t>(k);
  }
  if (index < 0) {
    index = static_cast<int32_t>(symbols_.size());
    symbols_.push_back(name);
  }
  Atom atom;
  atom.kind = AtomKind::kSymbol;
  atom.symbol = index;
  return AtomDim(atom);
}

int64_t DimPool::Data(const std::string& name, int64_t bound, int32_t count_value,
                      const std::string& scope, int32_t count_element) {
  size_t index = 0;
  while (index < data_.size() && data_[index].name != name) ++index;
  if (index == data_.size()) data_.push_back({name, bound, count_value, -1, scope, 0});
  data_[index].bound = bound;
  data_[index].count_value = count_value;
  data_[index].scope = scope;
  data_[index].count_element = count_element;
  Atom atom;
  atom.kind = AtomKind::kData;
  atom.symbol = static_cast<int32_t>(index);
  const int64_t dim = AtomDim(atom);
  if (Known(dim)) data_[index].atom = PolyOf(dim)[0].atoms[0];
  return dim;
}

bool DimPool::HasData(int64_t dim) const {
  if (!Known(dim)) return false;
  for (const Term& t : PolyOf(dim)) {
    for (int32_t id : t.atoms) {
      const Atom& atom = atoms_[id];
      if (atom.kind == AtomKind::kData) return true;
      if (atom.kind != AtomKind::kSymbol && (HasData(atom.a) || HasData(atom.b))) return true;
    }
  }
  return false;
}

bool DimPool::HasUnbounded(int64_t dim) const {
  std::set<int32_t> data;
  DataSymbolsIn(dim, &data);
  for (int32_t k : data) {
    if (data_[k].bound == kNoBound) return true;
  }
  return false;
}

void DimPool::DataSymbolsIn(int64_t dim, std::set<int32_t>* out) const {
  if (!Known(dim)) return;
  for (const Term& t : PolyOf(dim)) {
    for (int32_t id : t.atoms) {
      const Atom& atom = atoms_[id];
      if (atom.kind == AtomKind::kData) {
        out->insert(atom.symbol);
      } else if (atom.kind != AtomKind::kSymbol) {
        DataSymbolsIn(atom.a, out);
        DataSymbolsIn(atom.b, out);
      }
    }
  }
}

int32_t DimPool::BareData(int64_t dim) const {
  if (!Known(dim)) return -1;
  const Poly& p = PolyOf(dim);
  if (p.size() != 1 || p[0].coeff != 1 || p[0].atoms.size() != 1) return -1;
  const Atom& atom = atoms_[p[0].atoms[0]];
  return atom.kind == AtomKind::kData ? atom.symbol : -1;
}

namespace {

// Interval arithmetic for UpperBound over the integers extended by
// kNegInf and kInf (a symbol has no upper bound, a data symbol may have
// none): sums and products saturate to them, which only widens an interval.
constexpr int64_t kInf = std::numeric_limits<int64_t>::max();
constexpr int64_t kNegInf = std::numeric_limits<int64_t>::min();

bool Infinite(int64_t x) { return x == kInf || x == kNegInf; }

int64_t SatAdd(int64_t a, int64_t b) {
  if (a == kInf || b == kInf) return (a == kNegInf || b == kNegInf) ? kNegInf : kInf;
  if (a == kNegInf || b == kNegInf) return kNegInf;
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return a > 0 ? kInf : kNegInf;
  return r;
}

// An endpoint product; 0 times an unbounded endpoint is 0 (every value is finite).
int64_t SatMul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  const bool negative = (a < 0) != (b < 0);
  if (Infinite(a) || Infinite(b)) return negative ? kNegInf : kInf;
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return negative ? kNegInf : kInf;
  return r;
}

void MulInterval(int64_t alo, int64_t ahi, int64_t blo, int64_t bhi, int64_t* lo, int64_t* hi) {
  const int64_t p[4] = {SatMul(alo, blo), SatMul(alo, bhi), SatMul(ahi, blo), SatMul(ahi, bhi)};
  *lo = *std::min_element(p, p + 4);
  *hi = *std::max_element(p, p + 4);
}

int64_t FloorDivide(int64_t n, int64_t d) { return n / d - ((n % d != 0 && n < 0) ? 1 : 0); }

// floor(n / d) for d >= 1, either possibly unbounded.
int64_t SatFloorDiv(int64_t n, int64_t d) {
  if (Infinite(n)) return n;  // also for d unbounded: only widens
  if (d == kInf) return n >= 0 ? 0 : -1;
  return FloorDivide(n, d);
}

}  // namespace

bool DimPool::AtomInterval(int32_t id, Interval* out) const {
  const Atom& atom = atoms_[id];
  if (atom.kind == AtomKind::kSymbol) {  // any size the caller gives
    *out = {1, kInf};
    return true;
  }
  if (atom.kind == AtomKind::kData) {
    *out = {0, data_[atom.symbol].bound};  // kNoBound is kInf
    return true;
  }
  Interval a, b;
  if (!IntervalOf(atom.a, &a) || !IntervalOf(atom.b, &b)) return false;
  switch (atom.kind) {
    case AtomKind::kFloorDiv: {
      // Divisors are positive at run time (IDIV fails the run otherwise);
      // floor(n / d) is monotonic in n, and in d for n of one sign.
      const int64_t dlo = std::max<int64_t>(b.lo, 1), dhi = std::max<int64_t>(b.hi, 1);
      const int64_t c[4] = {SatFloorDiv(a.lo, dlo), SatFloorDiv(a.lo, dhi),
                            SatFloorDiv(a.hi, dlo), SatFloorDiv(a.hi, dhi)};
      *out = {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
      return true;
    }
    case AtomKind::kMin: *out = {std::min(a.lo, b.lo), std::min(a.hi, b.hi)}; return true;
    case AtomKind::kMax: *out = {std::max(a.lo, b.lo), std::max(a.hi, b.hi)}; return true;
    case AtomKind::kMod: {
      // In 0..d-1 for a divisor d >= 1 (IDIV fails the run otherwise).
      const int64_t dhi = std::max<int64_t>(b.hi, 1);
      *out = {0, Infinite(dhi) ? dhi : dhi - 1};
      if (a.lo >= 0 && a.hi < out->hi) out->hi = a.hi;
      return true;
    }
    default: return false;
  }
}

bool DimPool::IntervalOf(int64_t dim, Interval* out) const {
  if (!IsSymbolic(dim)) {
    *out = {dim, dim};
    return true;
  }
  if (!Known(dim)) return false;
  Interval sum{0, 0};
  for (const Term& t : PolyOf(dim)) {
    int64_t lo = t.coeff, hi = t.coeff;
    for (int32_t id : t.atoms) {
      Interval a;
      if (!AtomInterval(id, &a)) return false;
      MulInterval(lo, hi, a.lo, a.hi, &lo, &hi);
    }
    sum.lo = SatAdd(sum.lo, lo);
    sum.hi = SatAdd(sum.hi, hi);
  }
  *out = sum;
  return true;
}

bool DimPool::UpperBound(int64_t dim, int64_t* bound) const {
  Interval i;
  if (!IntervalOf(dim, &i) || i.hi == kInf) return false;
  *bound = i.hi;
  return true;
}

bool DimPool::DataAtBound(int64_t dim, int64_t* bound) {
  if (!HasData(dim)) {
    *bound = dim;
    return true;
  }
  if (HasUnbounded(dim)) return false;
  Poly out;
  for (const Term& t : PolyOf(dim)) {
    bool data = false, plain = true;  // plain: only symbols besides
    for (int32_t id : t.atoms) {
      data = data || atoms_[id].kind == AtomKind::kData;
      plain = plain && (atoms_[id].kind == AtomKind::kData || atoms_[id].kind == AtomKind::kSymbol);
    }
    if (!data) {
      out.push_back(t);
      continue;
    }
    if (!plain || t.coeff <= 0) return false;
    Term b{{}, t.coeff};
    for (int32_t id : t.atoms) {
      const Atom& atom = atoms_[id];
      if (atom.kind == AtomKind::kSymbol) {
        b.atoms.push_back(id);
      } else if (__builtin_mul_overflow(b.coeff, data_[atom.symbol].bound, &b.coeff)) {
        return false;
      }
    }
    out.push_back(std::move(b));
  }
  *bound = Intern(std::move(out));
  return ok_;
}

DimPool::Poly DimPool::ToPoly(int64_t dim) const {
  if (IsSymbolic(dim)) {
    if (Known(dim)) return polys_[kSymbolicBase - dim];
    ok_ = false;  // a number in the encoded range, not an expression
    return {};
  }
  if (dim == 0) return {};
  return {Term{{}, dim}};
}

int64_t DimPool::Intern(Poly p) {
  std::sort(p.begin(), p.end(), [](const Term& x, const Term& y) { return x.atoms < y.atoms; });
  Poly merged;
  for (Term& t : p) {
    if (!merged.empty() && merged.back().atoms == t.atoms) {
      if (__builtin_add_overflow(merged.back().coeff, t.coeff, &merged.back().coeff)) ok_ = false;
    } else {
      merged.push_back(std::move(t));
    }
  }
  merged.erase(std::remove_if(merged.begin(), merged.end(), [](const Term& t) { return t.coeff == 0; }),
               merged.end());
  for (const Term& t : merged) {
    if (t.coeff > kMaxCoeff || t.coeff < -kMaxCoeff) ok_ = false;
  }
  if (!ok_) return 0;
  if (merged.empty()) return 0;
  if (merged.size() == 1 && merged[0].atoms.empty()) return merged[0].coeff;
  const std::string key = Key(merged);
  auto it = poly_ids_.find(key);
  if (it != poly_ids_.end()) return it->second;
  const int64_t dim = kSymbolicBase - static_cast<int64_t>(polys_.size());
  polys_.push_back(std::move(merged));
  poly_ids_[key] = dim;
  return dim;
}

int64_t DimPool::AtomDim(const Atom& atom) {
  const std::string key = absl::StrCat(static_cast<int>(atom.kind), ":", atom.symbol, ":", atom.a,
                                       ":", atom.b);
  auto it = atom_ids_.find(key);
  int32_t id;
  if (it != atom_ids_.end()) {
    id = it->second;
  } else {
    id = static_cast<int32_t>(atoms_.size());
    atoms_.push_back(atom);
    atom_ids_[key] = id;
  }
  return Intern({Term{{id}, 1}});
}

int64_t DimPool::Add(int64_t a, int64_t b) {
  if (!IsSymbolic(a) && !IsSymbolic(b)) {
    int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r)) ok_ = false;
    return r;
  }
  Poly p = ToPoly(a);
  Poly q = ToPoly(b);
  p.insert(p.end(), q.begin(), q.end());
  return Intern(std::move(p));
}

int64_t DimPool::Sub(int64_t a, int64_t b) {
  if (!IsSymbolic(a) && !IsSymbolic(b)) {
    int64_t r = 0;
    if (__builtin_sub_overflow(a, b, &r)) ok_ = false;
    return r;
  }
  Poly p = ToPoly(a);
  for (Term t : ToPoly(b)) {
    t.coeff = -t.coeff;
    p.push_back(std::move(t));
  }
  return Intern(std::move(p));
}

int64_t DimPool::Mul(int64_t a, int64_t b) {
  if (!IsSymbolic(a) && !IsSymbolic(b)) {
    int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r)) ok_ = false;
    return r;
  }
  Poly out;
  for (const Term& x : ToPoly(a)) {
    for (const Term& y : ToPoly(b)) {
      Term t;
      if (__builtin_mul_overflow(x.coeff, y.coeff, &t.coeff)) ok_ = false;
      t.atoms = x.atoms;
      t.atoms.insert(t.atoms.end(), y.atoms.begin(), y.atoms.end());
      std::sort(t.atoms.begin(), t.atoms.end());
      out.push_back(std::move(t));
    }
  }
  return Intern(std::move(out));
}

int64_t DimPool::Product(const std::vector<int64_t>& dims) {
  int64_t p = 1;
  for (int64_t d : dims) p = Mul(p, d);
  return p;
}

int64_t DimPool::FloorDiv(int64_t a, int64_t b) {
  if (!IsSymbolic(b) && b <= 0) {
    ok_ = false;
    return 0;
  }
  if (!IsSymbolic(a) && !IsSymbolic(b)) return a / b - ((a % b != 0 && a < 0) ? 1 : 0);
  if (b == 1) return a;
  // Exact division of every term by a constant or by a single term c*m.
  Poly divisor = ToPoly(b);
  if (divisor.size() == 1 && divisor[0].coeff > 0) {
    const Term& d = divisor[0];
    Poly quotient;
    bool exact = true;
    for (const Term& t : ToPoly(a)) {
      Term q;
      if (t.coeff % d.coeff != 0 || !Contains(t.atoms, d.atoms, &q.atoms)) {
        exact = false;
        break;
      }
      q.coeff = t.coeff / d.coeff;
      quotient.push_back(std::move(q));
    }
    if (exact) return Intern(std::move(quotient));
  }
  // A multiple of a sum by one term (15*h*w / (h*w) with h = floor(..) + 1):
  // each term of `a` over each of `b` proposes the quotient; it stands if
  // it multiplies back to `a`.
  if (divisor.size() > 1) {
    const Poly dividend = ToPoly(a);
    for (const Term& ta : dividend) {
      for (const Term& tb : divisor) {
        Term q;
        if (tb.coeff == 0 || ta.coeff % tb.coeff != 0 || !Contains(ta.atoms, tb.atoms, &q.atoms)) {
          continue;
        }
        q.coeff = ta.coeff / tb.coeff;
        const int64_t candidate = Intern({q});
        if (Mul(candidate, b) == a) return candidate;
      }
      break;  // the quotient's one term must divide the first term of `a` by some term of `b`
    }
  }
  Atom atom;
  atom.kind = AtomKind::kFloorDiv;
  atom.a = a;
  atom.b = b;
  return AtomDim(atom);
}

int64_t DimPool::Mod(int64_t a, int64_t b) {
  if (!IsSymbolic(b) && b <= 0) {
    ok_ = false;
    return 0;
  }
  if (!IsSymbolic(a) && !IsSymbolic(b)) return a - b * FloorDivide(a, b);
  if (b == 1) return 0;
  // a already in 0..b-1, or a multiple of b.
  Interval ia;
  if (!IsSymbolic(b) && IntervalOf(a, &ia) && ia.lo >= 0 && ia.hi < b) return a;
  const int64_t quotient = FloorDiv(a, b);
  if (Mul(quotient, b) == a) return 0;
  Atom atom;
  atom.kind = AtomKind::kMod;
  atom.a = a;
  atom.b = b;
  return AtomDim(atom);
}

int64_t DimPool::Min(int64_t a, int64_t b) {
  if (!IsSymbolic(a) && !IsSymbolic(b)) return std::min(a, b);
  if (a == b) return a;
  // min(0, d) of a dim never negative is 0 (Slice clamps static bounds so).
  if ((a == 0 && KnownNonNegative(b)) || (b == 0 && KnownNonNegative(a))) return 0;
  Atom atom;
  atom.kind = AtomKind::kMin;
  atom.a = std::min(a, b);  // commutative: one order
  atom.b = std::max(a, b);
  return AtomDim(atom);
}

int64_t DimPool::Max(int64_t a, int64_t b) {
  if (!IsSymbolic(a) && !IsSymbolic(b)) return std::max(a, b);
  if (a == b) return a;
  if (a == 0 && KnownNonNegative(b)) return b;  // max(0, d) of a dim never negative
  if (b == 0 && KnownNonNegative(a)) return a;
  Atom atom;
  atom.kind = AtomKind::kMax;
  atom.a = std::min(a, b);
  atom.b = std::max(a, b);
  return AtomDim(atom);
}

bool DimPool::SplitMonomial(int64_t dim, int64_t* coeff, int64_t* monomial) {
  if (!Known(dim)) return false;
  const Poly p = PolyOf(dim);  // a copy: Intern may grow polys_
  if (p.size() != 1 || p[0].atoms.empty() || p[0].coeff <= 0) return false;
  *coeff = p[0].coeff;
  *monomial = Intern({Term{p[0].atoms, 1}});
  return true;
}

int64_t DimPool::AssumeEqual(int64_t a, int64_t b) {
  if (a == b) return a;
  bool recorded = false;  // here: an If inlined into its caller asks again
  for (const Assumption& x : assumptions_) {
    const bool pair = (x.a == a && x.b == b) || (x.a == b && x.b == a);
    recorded = recorded || (pair && x.scope == scope_);
  }
  if (!recorded) assumptions_.push_back({a, b, scope_});
  // Prefer a static dim, else the simpler expression (S over min(S, 64)).
  if (!IsSymbolic(a) || !IsSymbolic(b)) return IsSymbolic(a) ? b : a;
  return ToString(b).size() < ToString(a).size() ? b : a;
}

// Equal through a chain of assumptions too (Concat of A, B, C assumes
// A == B, then the survivor == C).
bool DimPool::SameDim(int64_t a, int64_t b) const {
  if (a == b) return true;
  std::set<int64_t> reached = {a};
  std::vector<int64_t> todo = {a};
  while (!todo.empty()) {
    const int64_t d = todo.back();
    todo.pop_back();
    for (const Assumption& x : assumptions_) {
      const int64_t other = x.a == d ? x.b : x.b == d ? x.a : d;
      if (other == d || !reached.insert(other).second) continue;
      if (other == b) return true;
      todo.push_back(other);
    }
  }
  return false;
}

bool DimPool::KnownNonNegative(int64_t dim) const {
  int64_t lo = 0;
  return LowerBound(dim, &lo) && lo >= 0;
}

// Symbols are >= 1 and data symbols >= 0; a floor-division, minimum or
// maximum is bounded by its operands' bounds. A polynomial whose non-constant
// terms all have positive coefficients over atoms bounded below by >= 0 is at
// least its constant plus each term's coefficient times its atoms' bounds.
bool DimPool::LowerBound(int64_t dim, int64_t* lo) const {
  if (!IsSymbolic(dim)) {
    *lo = dim;
    return true;
  }
  if (!Known(dim)) return false;
  int64_t sum = 0;
  for (const Term& t : PolyOf(dim)) {
    int64_t term = t.coeff;
    if (!t.atoms.empty()) {
      if (t.coeff < 0) return false;
      // A lone atom may be bounded below by a negative number (floor((d - 1) / 2)
      // of a length d >= 0 is at least -1); a product needs factors >= 0.
      for (int32_t id : t.atoms) {
        int64_t a = 0;
        if (!AtomLowerBound(id, &a) || (a < 0 && t.atoms.size() > 1) ||
            __builtin_mul_overflow(term, a, &term)) {
          return false;
        }
      }
    }
    if (__builtin_add_overflow(sum, term, &sum)) return false;
  }
  *lo = sum;
  return true;
}

bool DimPool::AtomLowerBound(int32_t id, int64_t* lo) const {
  const Atom& atom = atoms_[id];
  if (atom.kind == AtomKind::kSymbol) {
    *lo = 1;
    return true;
  }
  if (atom.kind == AtomKind::kData) {
    *lo = 0;
    return true;
  }
  int64_t a = 0, b = 0;
  const bool has_a = LowerBound(atom.a, &a), has_b = LowerBound(atom.b, &b);
  switch (atom.kind) {
    case AtomKind::kFloorDiv:
      // floor(n / d) >= 0 for n >= 0 and d > 0; a static d > 0 gives
      // floor(lo / d), also for lo < 0 (a window's floor((d - k) / s)).
      if (!has_a) return false;
      if (!IsSymbolic(atom.b) && atom.b > 0) {
        *lo = FloorDivide(a, atom.b);
        return true;
      }
      if (a < 0) return false;
      *lo = 0;
      return true;
    case AtomKind::kMin:
      if (!has_a || !has_b) return false;
      *lo = std::min(a, b);
      return true;
    case AtomKind::kMax:
      if (!has_a && !has_b) return false;
      *lo = has_a && has_b ? std::max(a, b) : (has_a ? a : b);
      return true;
    case AtomKind::kMod: *lo = 0; return true;  // divisors are positive
    default: return false;
  }
}

std::string DimPool::AtomString(int32_t id) const {
  const Atom& atom = atoms_[id];
  switch (atom.kind) {
    case AtomKind::kSymbol: return symbols_[atom.symbol];
    case AtomKind::kData: return data_[atom.symbol].name;
    case AtomKind::kFloorDiv: return absl::StrCat("floor((", ToString(atom.a), ") / (", ToString(atom.b), "))");
    case AtomKind::kMin: return absl::StrCat("min(", ToString(atom.a), ", ", ToString(atom.b), ")");
    case AtomKind::kMax: return absl::StrCat("max(", ToString(atom.a), ", ", ToString(atom.b), ")");
    case AtomKind::kMod: return absl::StrCat("((", ToString(atom.a), ") mod (", ToString(atom.b), "))");
  }
  return "?";
}

std::string DimPool::ToString(int64_t dim) const {
  if (!Known(dim)) return absl::StrCat(dim);
  std::vector<std::string> terms;
  // Highest-degree terms first reads naturally ("3*N + 1").
  const Poly& p = PolyOf(dim);
  for (auto it = p.rbegin(); it != p.rend(); ++it) {
    std::vector<std::string> parts;
    if (it->coeff != 1 || it->atoms.empty()) parts.push_back(absl::StrCat(it->coeff));
    for (int32_t a : it->atoms) parts.push_back(AtomString(a));
    terms.push_back(absl::StrJoin(parts, "*"));
  }
  return absl::StrJoin(terms, " + ");
}

int64_t DimPool::Evaluate(int64_t dim, const std::vector<int64_t>& values) const {
  if (!Known(dim)) return dim;
  int64_t sum = 0;
  for (const Term& t : PolyOf(dim)) {
    int64_t v = t.coeff;
    for (int32_t id : t.atoms) {
      const Atom& atom = atoms_[id];
      int64_t x = 0;
      switch (atom.kind) {
        case AtomKind::kSymbol: x = values[atom.symbol]; break;
        case AtomKind::kData: {
          const size_t k = symbols_.size() + static_cast<size_t>(atom.symbol);
          x = k < values.size() ? values[k] : 0;
          break;
        }
        case AtomKind::kFloorDiv: {
          const int64_t n = Evaluate(atom.a, values), d = Evaluate(atom.b, values);
          x = d > 0 ? n / d - ((n % d != 0 && n < 0) ? 1 : 0) : 0;
          break;
        }
        case AtomKind::kMin: x = std::min(Evaluate(atom.a, values), Evaluate(atom.b, values)); break;
        case AtomKind::kMax: x = std::max(Evaluate(atom.a, values), Evaluate(atom.b, values)); break;
        case AtomKind::kMod: {
          const int64_t n = Evaluate(atom.a, values), d = Evaluate(atom.b, values);
          x = d > 0 ? n - d * FloorDivide(n, d) : 0;
          break;
        }
      }
      v *= x;
    }
    sum += v;
  }
  return sum;
}

}  // namespace kiln::ir
