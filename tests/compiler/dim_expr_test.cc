// Symbolic dims: canonical forms make equal expressions equal ints, the
// arithmetic folds what it can, and Evaluate agrees with plain arithmetic on
// the same symbol values.
#include "compiler/ir/dim_expr.h"

#include "gtest/gtest.h"

namespace kiln::ir {
namespace {

TEST(DimPool, StaticArithmeticStaysStatic) {
  DimPool p;
  EXPECT_EQ(p.Add(3, 4), 7);
  EXPECT_EQ(p.Mul(6, 7), 42);
  EXPECT_EQ(p.FloorDiv(-7, 2), -4);
  EXPECT_EQ(p.Min(3, 9), 3);
  EXPECT_TRUE(p.ok());
  EXPECT_TRUE(p.empty());
}

TEST(DimPool, CanonicalFormsCompareEqual) {
  DimPool p;
  const int64_t n = p.Symbol("N"), s = p.Symbol("S");
  EXPECT_TRUE(IsSymbolic(n));
  EXPECT_EQ(p.Symbol("N"), n);
  EXPECT_EQ(p.Mul(n, 64), p.Mul(64, n));
  EXPECT_EQ(p.Mul(p.Mul(n, s), 3), p.Mul(s, p.Mul(3, n)));
  EXPECT_EQ(p.Add(p.Mul(n, 2), p.Mul(n, 3)), p.Mul(n, 5));
  EXPECT_EQ(p.Sub(p.Add(n, s), s), n);
  EXPECT_EQ(p.Sub(n, n), 0);  // folds back to a static dim
  EXPECT_NE(p.Mul(n, 2), p.Mul(s, 2));
  EXPECT_EQ(p.ToString(p.Add(p.Mul(n, 3), 1)), "3*N + 1");
}

TEST(DimPool, ExactDivisionCancels) {
  DimPool p;
  const int64_t n = p.Symbol("N"), s = p.Symbol("S");
  const int64_t bytes = p.Mul(p.Mul(n, s), 512);
  EXPECT_EQ(p.FloorDiv(bytes, 512), p.Mul(n, s));
  EXPECT_EQ(p.FloorDiv(bytes, p.Mul(s, 128)), p.Mul(n, 4));
  // Not exact: stays an opaque floor division, evaluated at run time.
  const int64_t half = p.FloorDiv(p.Add(s, 1), 2);
  EXPECT_TRUE(IsSymbolic(half));
  EXPECT_EQ(p.Evaluate(half, {1, 6}), 3);
  EXPECT_EQ(p.Evaluate(half, {1, 7}), 4);
}

TEST(DimPool, EvaluateMatchesPlainArithmetic) {
  DimPool p;
  const int64_t n = p.Symbol("N"), s = p.Symbol("S");
  // (N*S + 7) * 3 - max(S, 5) + min(N, 2) + ceil(S / 4)
  const int64_t e = p.Add(p.Add(p.Sub(p.Mul(p.Add(p.Mul(n, s), 7), 3), p.Max(s, 5)), p.Min(n, 2)),
                          p.CeilDiv(s, 4));
  for (int64_t nv : {1, 2, 9}) {
    for (int64_t sv : {1, 4, 5, 13}) {
      const int64_t want = (nv * sv + 7) * 3 - std::max<int64_t>(sv, 5) + std::min<int64_t>(nv, 2) +
                           (sv + 3) / 4;
      EXPECT_EQ(p.Evaluate(e, {nv, sv}), want) << "N=" << nv << " S=" << sv;
    }
  }
}

// Mod by a positive divisor, a - b * floor(a / b) (ONNX Mod, fmod 0): static
// values fold, a value already in 0..b-1 or a multiple of b simplifies, and
// the rest is an atom in 0..b-1 that evaluates as Python's %.
TEST(DimPool, ModIsTheRemainderWithTheDivisorsSign) {
  DimPool p;
  EXPECT_EQ(p.Mod(7, 3), 1);
  EXPECT_EQ(p.Mod(-7, 3), 2);
  const int64_t w = p.Symbol("W"), n = p.Symbol("N");
  EXPECT_EQ(p.Mod(p.Mul(w, 7), 7), 0);
  EXPECT_EQ(p.Mod(w, 1), 0);
  const int64_t rem = p.Mod(w, 7);
  EXPECT_TRUE(IsSymbolic(rem));
  EXPECT_EQ(p.Mod(rem, 7), rem);  // already in 0..6
  // A window's padding: (7 - W % 7) % 7, in 0..6, so W plus it is >= W.
  const int64_t pad = p.Mod(p.Sub(7, rem), 7);
  int64_t lo = -1;
  ASSERT_TRUE(p.LowerBound(pad, &lo));
  EXPECT_EQ(lo, 0);
  const int64_t by_n = p.Mod(p.Add(w, 3), n);
  for (int64_t wv : {1, 6, 7, 8, 13, 14, 100}) {
    const int64_t want_pad = (7 - wv % 7) % 7;
    EXPECT_EQ(p.Evaluate(pad, {wv, 1}), want_pad) << "W=" << wv;
    EXPECT_EQ(p.Evaluate(p.Add(w, pad), {wv, 1}) % 7, 0) << "W=" << wv;
    for (int64_t nv : {1, 2, 5}) {
      EXPECT_EQ(p.Evaluate(by_n, {wv, nv}), (wv + 3) % nv) << "W=" << wv << " N=" << nv;
    }
  }
  EXPECT_EQ(p.ToString(rem), "((W) mod (7))");
  EXPECT_TRUE(p.ok());
  p.Mod(w, 0);  // dims divide only by positive divisors
  EXPECT_FALSE(p.ok());
}

TEST(DimPool, SplitsMonomials) {
  DimPool p;
  const int64_t n = p.Symbol("N"), s = p.Symbol("S");
  int64_t coeff = 0, monomial = 0;
  ASSERT_TRUE(p.SplitMonomial(p.Mul(p.Mul(n, s), 48), &coeff, &monomial));
  EXPECT_EQ(coeff, 48);
  EXPECT_EQ(monomial, p.Mul(n, s));
  EXPECT_FALSE(p.SplitMonomial(p.Add(n, 1), &coeff, &monomial));
  EXPECT_FALSE(p.SplitMonomial(64, &coeff, &monomial));
}

TEST(DimPool, LowerBoundsTakeSymbolsAsAtLeastOne) {
  DimPool p;
  const int64_t h = p.Symbol("H"), w = p.Symbol("W");
  int64_t lo = 0;
  // A stride-2 window's output, floor((H - 1) / 2) + 1, is at least 1.
  const int64_t out = p.Add(p.FloorDiv(p.Sub(h, 1), 2), 1);
  ASSERT_TRUE(p.LowerBound(out, &lo));
  EXPECT_EQ(lo, 1);
  EXPECT_TRUE(p.KnownNonNegative(p.Sub(h, 1)));
  EXPECT_TRUE(p.LowerBound(p.Add(p.Mul(h, w), p.Mul(h, 3)), &lo));
  EXPECT_EQ(lo, 4);
  EXPECT_TRUE(p.LowerBound(p.Min(p.Add(h, 5), p.Add(w, 2)), &lo));
  EXPECT_EQ(lo, 3);
  // H - 4 may be negative (-3 at H = 1); 4 - H has no lower bound.
  ASSERT_TRUE(p.LowerBound(p.Sub(h, 4), &lo));
  EXPECT_EQ(lo, -3);
  EXPECT_FALSE(p.LowerBound(p.Sub(4, h), &lo));
  EXPECT_FALSE(p.KnownNonNegative(p.Sub(h, 2)));
  // Each bound holds at the smallest symbol values it assumes.
  for (int64_t hv : {1, 2, 7}) {
    for (int64_t wv : {1, 3}) {
      EXPECT_GE(p.Evaluate(out, {hv, wv}), 1);
    }
  }
}

TEST(DimPool, OverflowIsReportedNotWrapped) {
  DimPool p;
  const int64_t n = p.Symbol("N");
  p.Mul(n, int64_t{1} << 51);  // coefficient beyond 2^50
  EXPECT_FALSE(p.ok());
  p.ClearError();
  p.Mul(int64_t{1} << 62, 4);
  EXPECT_FALSE(p.ok());
}

// A detector's anchor count over a resized image's length d (found during
// the run, no bound): each stride-2 window's count floor((d + 1) / 2) is at
// least 0, so products of them are too, and a multiple of such a product
// divides by it exactly.
TEST(DimPool, WindowCountsOverALengthWithoutABound) {
  DimPool p;
  const int64_t d = p.Data("d", kNoBound, 0, "", 0), e = p.Data("e", kNoBound, 0, "", 1);
  const int64_t h = p.FloorDiv(p.Add(d, 1), 2), w = p.FloorDiv(p.Add(e, 1), 2);
  int64_t lo = -1;
  ASSERT_TRUE(p.LowerBound(p.Mul(p.Mul(h, w), 15), &lo));
  EXPECT_EQ(lo, 0);
  // floor((d - 1) / 2) + 1, the same count written the other way, is >= 0.
  ASSERT_TRUE(p.LowerBound(p.Add(p.FloorDiv(p.Sub(d, 1), 2), 1), &lo));
  EXPECT_EQ(lo, 0);
  EXPECT_EQ(p.Max(p.Add(p.FloorDiv(p.Sub(d, 1), 2), 1), 0), p.Add(p.FloorDiv(p.Sub(d, 1), 2), 1));
  // (h + 1) * (w + 1) is a sum of four terms; 15 times it divides back.
  const int64_t area = p.Mul(p.Add(h, 1), p.Add(w, 1));
  EXPECT_EQ(p.FloorDiv(p.Mul(area, 15), area), 15);
  EXPECT_EQ(p.FloorDiv(p.Mul(area, h), area), h);
  for (int64_t dv : {0, 1, 7, 640}) {
    for (int64_t ev : {0, 3}) {
      const std::vector<int64_t> at = {dv, ev};
      EXPECT_EQ(p.Evaluate(p.Mul(area, 15), at), 15 * ((dv + 1) / 2 + 1) * ((ev + 1) / 2 + 1));
      EXPECT_GE(p.Evaluate(p.Add(p.FloorDiv(p.Sub(d, 1), 2), 1), at), 0);
    }
  }
  EXPECT_TRUE(p.ok());
}

// min(n, 150) is at most 150 whatever n is: a symbol, or a length without a
// bound; a sum of such minima is bounded by the sum of the caps.
TEST(DimPool, AMinimumWithAConstantBoundsAnUnboundedLength) {
  DimPool p;
  const int64_t s = p.Symbol("S");
  const int64_t n = p.Data("n", kNoBound, 0, "", 0);
  int64_t hi = 0;
  ASSERT_TRUE(p.UpperBound(p.Min(n, 150), &hi));
  EXPECT_EQ(hi, 150);
  ASSERT_TRUE(p.UpperBound(p.Add(p.Min(p.Mul(n, 15), 150), p.Min(s, 150)), &hi));
  EXPECT_EQ(hi, 300);
  EXPECT_FALSE(p.UpperBound(p.Add(n, 1), &hi));
  EXPECT_FALSE(p.UpperBound(p.Mul(s, 2), &hi));
  EXPECT_FALSE(p.UpperBound(p.Max(n, 150), &hi));
}

}  // namespace
}  // namespace kiln::ir
