// Symbolic dimensions: sizes known only at run time (a batch N, a sequence
// length S), written as expressions of the model's symbols.
//
// A dim stays an int64 everywhere in the IR: a value >= 0 is static; a value
// <= kSymbolicBase encodes an expression of this pool (kSymbolicBase - id).
// Expressions are interned in a canonical form — a polynomial with integer
// coefficients over atoms (the symbols, and floor-divisions, minima and
// maxima the polynomial form cannot express) — so two dims are equal exactly
// when their ints are equal, and the arithmetic below folds everything it can
// (N*512/512 is N again). Symbols are positive at run time.
//
// Data symbols are lengths a kernel computes during the run (the count of a
// NonZero, of Unique's distinct values): in 0..a static bound, known only
// after their producer ran. Tensors sized by them are planned at that bound.
// A data symbol may have no bound (kNoBound: a ConstantOfShape's dims read
// from data): tensors sized by it go to the workspace's tail, placed once
// the length is known (compiler/passes/memory_planning.h).
//
// Only the shape rules and lowerings that opt in see encoded dims
// (compiler/passes/symbolic_support.h); everything else refuses them.
#ifndef KILN_COMPILER_IR_DIM_EXPR_H_
#define KILN_COMPILER_IR_DIM_EXPR_H_

#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace kiln::ir {

constexpr int64_t kSymbolicBase = -(int64_t{1} << 62);
// The bound of a data symbol no static bound holds.
constexpr int64_t kNoBound = std::numeric_limits<int64_t>::max();
inline bool IsSymbolic(int64_t dim) { return dim <= kSymbolicBase; }

class DimPool {
 public:
  // Whether `dim` encodes an expression of this pool. Values from constants
  // (a Slice bound of INT64_MIN, say) may fall in the encoded range without
  // being one: code reading such values asks Known, not IsSymbolic.
  bool Known(int64_t dim) const {
    return IsSymbolic(dim) && static_cast<uint64_t>(kSymbolicBase - dim) < polys_.size();
  }

  // The dim for symbol `name` (created on first use).
  int64_t Symbol(const std::string& name);
  const std::vector<std::string>& symbols() const { return symbols_; }
  // No symbols of either kind: every dim is a number.
  bool empty() const { return symbols_.empty() && data_.empty(); }

  // The dim for data symbol `name` (created on first use, bound and count
  // value updated on later ones): a length in 0..bound that the kernel
  // writing value `count_value` (an int64) of the graph nested at `scope`
  // (ir::Graph::scope; "" for the entry graph) reports during the run.
  struct DataSymbol {
    std::string name;
    int64_t bound = 0;
    int32_t count_value = -1;
    int32_t atom = -1;
    std::string scope;
    // The int64 element of count_value that holds it (kernels that report
    // several dims write them to one [k] tensor).
    int32_t count_element = 0;
  };
  int64_t Data(const std::string& name, int64_t bound, int32_t count_value,
               const std::string& scope, int32_t count_element = 0);
  const std::vector<DataSymbol>& data_symbols() const { return data_; }
  // Whether `dim` involves a data symbol (directly or inside an atom).
  bool HasData(int64_t dim) const;
  // Whether `dim` involves a data symbol without a bound (kNoBound).
  bool HasUnbounded(int64_t dim) const;
  // Adds the data symbols `dim` involves (indexes of data_symbols()) to *out.
  void DataSymbolsIn(int64_t dim, std::set<int32_t>* out) const;
  // The data symbol that `dim` is, bare, or -1.
  int32_t BareData(int64_t dim) const;
  // The largest value `dim` takes with every data symbol in 0..its bound;
  // false when that is unbounded (it involves the model's symbols) or
  // overflows.
  bool UpperBound(int64_t dim, int64_t* bound) const;
  // `dim` with each data symbol at its bound, which bounds it from above
  // when every term holding a data symbol has a positive coefficient and
  // only symbols besides (e.g. N*n*4 with n <= 5 gives 20*N); false else.
  bool DataAtBound(int64_t dim, int64_t* bound);

  int64_t Add(int64_t a, int64_t b);
  int64_t Sub(int64_t a, int64_t b);
  int64_t Mul(int64_t a, int64_t b);
  // Floor division by a positive divisor (dims only divide by those).
  int64_t FloorDiv(int64_t a, int64_t b);
  int64_t CeilDiv(int64_t a, int64_t b) { return FloorDiv(Add(a, Sub(b, 1)), b); }
  // a - b * floor(a / b) by a positive divisor: in 0..b-1 (ONNX Mod with
  // fmod 0; a window's padding (7 - W % 7) % 7).
  int64_t Mod(int64_t a, int64_t b);
  int64_t Min(int64_t a, int64_t b);
  int64_t Max(int64_t a, int64_t b);
  int64_t Product(const std::vector<int64_t>& dims);

  // Broadcasting two different dims neither of which is 1 (S against
  // min(S, 64), N against 8): ONNX requires them equal at run time, so the
  // result is `a` (or the static one) and the pair is recorded; the emitter
  // turns each recorded pair into a run-time check (IASSERT_EQ).
  // Each pair is recorded with the scope (ir::Graph::scope) whose shape
  // rules made it, and checked there: a requirement of one If branch holds
  // only when that branch runs.
  struct Assumption {
    int64_t a = 0, b = 0;
    std::string scope;
  };
  int64_t AssumeEqual(int64_t a, int64_t b);
  bool SameDim(int64_t a, int64_t b) const;
  const std::vector<Assumption>& assumptions() const { return assumptions_; }
  // The graph whose shapes are being inferred (set by shape propagation).
  void set_scope(const std::string& scope) { scope_ = scope; }

  // Whether `dim` is >= 0 for every symbol value (symbols are >= 1): a
  // polynomial with non-negative coefficients over such atoms.
  bool KnownNonNegative(int64_t dim) const;
  // A value `dim` is never below, for every symbol value (symbols >= 1,
  // data symbols >= 0); false when none is found (a negative coefficient).
  bool LowerBound(int64_t dim, int64_t* lo) const;

  // False once any arithmetic overflowed (coefficients beyond 2^50, or a
  // static result beyond int64); the caller reports the node.
  bool ok() const { return ok_; }
  void ClearError() { ok_ = true; }

  // "N", "3*N + 1", "floor(S / 2)"; static dims print as numbers.
  std::string ToString(int64_t dim) const;
  // The value with symbol k = values[k] and data symbol k =
  // values[symbols().size() + k] (0 when absent), for tests and the memory
  // formula check.
  int64_t Evaluate(int64_t dim, const std::vector<int64_t>& values) const;

  // The canonical form, for the emitter that turns expressions into integer
  // bytecode. An atom is a symbol or an opaque operation on two dims.
  enum class AtomKind { kSymbol, kFloorDiv, kMin, kMax, kData, kMod };
  struct Atom {
    AtomKind kind = AtomKind::kSymbol;
    int32_t symbol = 0;   // kSymbol; kData: the data symbol's index
    int64_t a = 0, b = 0; // operands of the others (encoded dims)
  };
  struct Term {
    std::vector<int32_t> atoms;  // sorted, repeated for powers; empty = constant
    int64_t coeff = 0;
  };
  // Terms sorted by atoms, no zero coefficients; the constant term (if any) first.
  using Poly = std::vector<Term>;
  // Requires Known(dim).
  const Poly& PolyOf(int64_t dim) const { return polys_[kSymbolicBase - dim]; }
  const Atom& AtomAt(int32_t id) const { return atoms_[id]; }
  // A single term c*m with c > 0 (m not empty): how the memory planner groups
  // tensors whose sizes scale together. Returns false for anything else.
  bool SplitMonomial(int64_t dim, int64_t* coeff, int64_t* monomial);

 private:
  Poly ToPoly(int64_t dim) const;
  int64_t Intern(Poly p);
  int64_t AtomDim(const Atom& atom);
  std::string AtomString(int32_t id) const;

  struct Interval {
    int64_t lo = 0, hi = 0;
  };
  bool IntervalOf(int64_t dim, Interval* out) const;
  bool AtomInterval(int32_t id, Interval* out) const;
  bool AtomLowerBound(int32_t id, int64_t* lo) const;

  std::vector<std::string> symbols_;
  std::vector<DataSymbol> data_;
  std::vector<Atom> atoms_;
  std::map<std::string, int32_t> atom_ids_;
  std::vector<Poly> polys_;
  std::map<std::string, int64_t> poly_ids_;
  std::vector<Assumption> assumptions_;
  std::string scope_;
  mutable bool ok_ = true;  // ToPoly of an unknown encoded dim clears it
};

}  // namespace kiln::ir

#endif  // KILN_COMPILER_IR_DIM_EXPR_H_
