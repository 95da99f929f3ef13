// recurrent_f32 and recurrent_pb_f32 (rnn.c) against a float64 reference of
// the ONNX RNN, GRU and LSTM equations written here from the operator
// specification: every cell, direction and layout, biases, initial states,
// peepholes, clip, linear_before_reset, input_forget, sequence lengths, other
// activations; hidden sizes around the 16-column panels; a sequence longer
// than one input-projection chunk; results independent of the thread split.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kiln/kernels.h"
#include "partition_test_util.h"

namespace {

using kiln::testing::Random;

struct Spec {
  std::string name;
  int64_t cell = 2, seq = 3, batch = 1, input = 4, hidden = 5, direction = 0, layout = 0;
  bool bias = true, h0 = false, c0 = false, peep = false, lbr = false, input_forget = false;
  float clip = 0.0f;  // 0: none
  std::vector<int64_t> lens;  // empty: all seq
  bool lens_at_run_time = false;
  int64_t acts[3] = {-1, -1, -1};  // -1: the cell's default
  float alpha = 0.0f, beta = 0.0f;  // for every activation
};

int64_t Gates(int64_t cell) { return cell == 2 ? 4 : cell == 1 ? 3 : 1; }
int64_t Dirs(const Spec& s) { return s.direction == 2 ? 2 : 1; }

double Act(int64_t kind, double a, double b, double x) {
  switch (kind) {
    case 0: return 1.0 / (1.0 + std::exp(-x));
    case 1: return std::tanh(x);
    case 2: return x > 0.0 ? x : 0.0;
    case 3: return a * x + b;
    case 4: return x >= 0.0 ? x : a * x;
    case 5: return x > a ? x : 0.0;
    case 6: return a * std::tanh(b * x);
    case 7: return std::fmin(1.0, std::fmax(0.0, a * x + b));
    case 8: return x >= 0.0 ? x : a * (std::exp(x) - 1.0);
    case 9: return x / (1.0 + std::fabs(x));
    default: return std::log1p(std::exp(x));
  }
}

struct Tensors {
  std::vector<float> x, w, r, b, h0, c0, p, y, yh, yc;
  std::vector<int32_t> lens;
};

Tensors MakeInputs(const Spec& s, uint32_t seed) {
  const int64_t D = Dirs(s), G = Gates(s.cell), H = s.hidden;
  Tensors t;
  t.x = Random(static_cast<size_t>(s.seq * s.batch * s.input), seed);
  for (float& v : t.x) v *= 4.0f;  // inputs of a few units: gates leave the linear range
  t.w = Random(static_cast<size_t>(D * G * H * s.input), seed + 1);
  t.r = Random(static_cast<size_t>(D * G * H * H), seed + 2);
  // Weights of PyTorch's scale, U(-1/sqrt(H), 1/sqrt(H)): larger ones make a
  // long recurrence chaotic, amplifying rounding beyond any tolerance.
  const float scale = 2.0f / std::sqrt(static_cast<float>(H));
  for (float& v : t.w) v *= scale;
  for (float& v : t.r) v *= scale;
  t.b = Random(static_cast<size_t>(D * 2 * G * H), seed + 3);
  t.h0 = Random(static_cast<size_t>(D * s.batch * H), seed + 4);
  t.c0 = Random(static_cast<size_t>(D * s.batch * H), seed + 5);
  t.p = Random(static_cast<size_t>(D * 3 * H), seed + 6);
  for (int64_t l : s.lens) t.lens.push_back(static_cast<int32_t>(l));
  return t;
}

// The ONNX equations in double; fills y, yh, yc (layouts as ONNX defines them).
void Reference(const Spec& s, const Tensors& in, std::vector<double>* y, std::vector<double>* yh,
               std::vector<double>* yc) {
  const int64_t S = s.seq, B = s.batch, I = s.input, H = s.hidden, D = Dirs(s), G = Gates(s.cell);
  y->assign(static_cast<size_t>(S * D * B * H), 0.0);
  yh->assign(static_cast<size_t>(D * B * H), 0.0);
  yc->assign(static_cast<size_t>(D * B * H), 0.0);
  const int64_t defaults[3][3] = {{1, 1, 1}, {0, 1, 1}, {0, 1, 1}};
  auto f = [&](int k, double v) {
    if (s.clip > 0.0f) v = std::fmin(s.clip, std::fmax(-s.clip, v));
    const int64_t kind = s.acts[k] >= 0 ? s.acts[k] : defaults[s.cell][k];
    return Act(kind, s.alpha, s.beta, v);
  };
  for (int64_t d = 0; d < D; ++d) {
    const bool reverse = s.direction == 1 || (s.direction == 2 && d == 1);
    const float* W = in.w.data() + d * G * H * I;
    const float* R = in.r.data() + d * G * H * H;
    const float* Wb = s.bias ? in.b.data() + d * 2 * G * H : nullptr;
    const float* Rb = s.bias ? Wb + G * H : nullptr;
    for (int64_t b = 0; b < B; ++b) {
      const int64_t len = s.lens.empty() ? S : s.lens[b];
      const int64_t st = s.layout ? (b * D + d) * H : (d * B + b) * H;
      std::vector<double> h(H, 0.0), c(H, 0.0);
      for (int64_t j = 0; j < H; ++j) {
        if (s.h0) h[j] = in.h0[st + j];
        if (s.c0) c[j] = in.c0[st + j];
      }
      for (int64_t step = 0; step < len; ++step) {
        const int64_t t = reverse ? len - 1 - step : step;
        const float* x = in.x.data() + (s.layout ? (b * S + t) * I : (t * B + b) * I);
        // xw[g][j] = x W_g^T + Wb_g; hr[g][j] = h R_g^T + Rb_g.
        std::vector<double> xw(G * H), hr(G * H);
        for (int64_t g = 0; g < G * H; ++g) {
          double a = Wb ? Wb[g] : 0.0, e = Rb ? Rb[g] : 0.0;
          for (int64_t k = 0; k < I; ++k) a += static_cast<double>(x[k]) * W[g * I + k];
          for (int64_t k = 0; k < H; ++k) e += h[k] * R[g * H + k];
          xw[g] = a, hr[g] = e;
        }
        std::vector<double> nh(H);
        if (s.cell == 0) {
          for (int64_t j = 0; j < H; ++j) nh[j] = f(0, xw[j] + hr[j]);
        } else if (s.cell == 1) {
          std::vector<double> z(H), rg(H);
          for (int64_t j = 0; j < H; ++j) {
            z[j] = f(0, xw[j] + hr[j]);
            rg[j] = f(0, xw[H + j] + hr[H + j]);
          }
          for (int64_t j = 0; j < H; ++j) {
            double cand;
            if (s.lbr) {
              cand = xw[2 * H + j] + rg[j] * hr[2 * H + j];
            } else {
              double a = Rb ? Rb[2 * H + j] : 0.0;
              for (int64_t k = 0; k < H; ++k) a += rg[k] * h[k] * R[(2 * H + j) * H + k];
              cand = xw[2 * H + j] + a;
            }
            nh[j] = (1.0 - z[j]) * f(1, cand) + z[j] * h[j];
          }
        } else {
          const float* P = s.peep ? in.p.data() + d * 3 * H : nullptr;
          for (int64_t j = 0; j < H; ++j) {
            const double ig = f(0, xw[j] + hr[j] + (P ? P[j] * c[j] : 0.0));
            const double fg = s.input_forget
                                  ? 1.0 - ig
                                  : f(0, xw[2 * H + j] + hr[2 * H + j] + (P ? P[2 * H + j] * c[j] : 0.0));
            const double cg = f(1, xw[3 * H + j] + hr[3 * H + j]);
            c[j] = fg * c[j] + ig * cg;
            const double og = f(0, xw[H + j] + hr[H + j] + (P ? P[H + j] * c[j] : 0.0));
            nh[j] = og * f(2, c[j]);
          }
        }
        h = nh;
        double* yt = y->data() + (s.layout ? ((b * S + t) * D + d) * H : ((t * D + d) * B + b) * H);
        for (int64_t j = 0; j < H; ++j) yt[j] = h[j];
      }
      for (int64_t j = 0; j < H; ++j) (*yh)[st + j] = h[j], (*yc)[st + j] = c[j];
    }
  }
}

std::vector<int64_t> IParams(const Spec& s) {
  const int64_t D = Dirs(s);
  std::vector<int64_t> ip = {s.cell, s.seq, s.batch, s.input, s.hidden, D, s.direction, s.layout,
                             s.bias, s.h0, s.cell == 2 && s.c0, s.cell == 2 && s.peep, 1, 1,
                             s.cell == 2, s.lbr, s.input_forget, s.clip > 0.0f,
                             s.lens_at_run_time};
  const int64_t defaults[3][3] = {{1, 1, 1}, {0, 1, 1}, {0, 1, 1}};
  for (int64_t d = 0; d < 2; ++d)
    for (int k = 0; k < 3; ++k) ip.push_back(s.acts[k] >= 0 ? s.acts[k] : defaults[s.cell][k]);
  for (int64_t b = 0; b < s.batch; ++b)
    ip.push_back(s.lens.empty() || s.lens_at_run_time ? s.seq : s.lens[b]);
  return ip;
}

std::vector<float> FParams(const Spec& s) {
  std::vector<float> fp(13, 0.0f);
  fp[0] = s.clip;
  for (int k = 0; k < 6; ++k) fp[1 + k] = s.alpha, fp[7 + k] = s.beta;
  return fp;
}

// The layout kiln/kernels.h documents for recurrent_pb_f32's W and R.
std::vector<float> PackGates(const std::vector<float>& m, int64_t D, int64_t G, int64_t H,
                             int64_t K) {
  const int64_t panels = (H + 15) / 16;
  std::vector<float> out(static_cast<size_t>(D * G * panels * K * 16), 0.0f);
  for (int64_t d = 0; d < D; ++d)
    for (int64_t g = 0; g < G; ++g)
      for (int64_t j = 0; j < H; ++j)
        for (int64_t k = 0; k < K; ++k)
          out[(((d * G + g) * panels + j / 16) * K + k) * 16 + j % 16] =
              m[((d * G + g) * H + j) * K + k];
  return out;
}

struct Outputs {
  std::vector<float> y, yh, yc;
};

// Runs one kernel on exactly sized buffers after its checker accepts them.
Outputs Run(const Spec& s, const Tensors& in, bool packed, const kiln_host* host) {
  const int64_t D = Dirs(s), G = Gates(s.cell), H = s.hidden;
  const std::vector<int64_t> ip = IParams(s);
  const std::vector<float> fp = FParams(s);
  const std::vector<float> w = packed ? PackGates(in.w, D, G, H, s.input) : in.w;
  const std::vector<float> r = packed ? PackGates(in.r, D, G, H, H) : in.r;
  const int64_t scratch_floats =
      kiln_recurrent_scratch_floats(s.cell, s.seq, s.input, H, D, packed);
  EXPECT_GE(scratch_floats, 0);
  std::vector<float> scratch(static_cast<size_t>(scratch_floats) + 1, 0.0f);
  Outputs o;
  o.y.assign(static_cast<size_t>(s.seq * D * s.batch * H), -7.0f);
  o.yh.assign(static_cast<size_t>(D * s.batch * H), -7.0f);
  o.yc.assign(static_cast<size_t>(D * s.batch * H), -7.0f);
  const bool lstm = s.cell == 2;
  void* b[12] = {const_cast<float*>(in.x.data()), const_cast<float*>(w.data()),
                 const_cast<float*>(r.data()), const_cast<float*>(in.b.data()),
                 const_cast<float*>(in.h0.data()), const_cast<float*>(in.c0.data()),
                 const_cast<float*>(in.p.data()), o.y.data(), o.yh.data(),
                 lstm ? o.yc.data() : nullptr, scratch.data(),
                 const_cast<int32_t*>(in.lens.data())};
  const uint64_t bytes[12] = {in.x.size() * 4, w.size() * 4, r.size() * 4,
                              s.bias ? in.b.size() * 4 : 0, s.h0 ? in.h0.size() * 4 : 0,
                              lstm && s.c0 ? in.c0.size() * 4 : 0,
                              lstm && s.peep ? in.p.size() * 4 : 0, o.y.size() * 4,
                              o.yh.size() * 4, lstm ? o.yc.size() * 4 : 0,
                              static_cast<uint64_t>(scratch_floats) * 4,
                              s.lens_at_run_time ? in.lens.size() * 4 : 0};
  const auto check = packed ? kiln_recurrent_pb_f32_check : kiln_recurrent_f32_check;
  const auto run = packed ? kiln_recurrent_pb_f32 : kiln_recurrent_f32;
  EXPECT_EQ(check(ip.data(), static_cast<uint32_t>(ip.size()), fp.data(), 13, bytes), KILN_OK);
  EXPECT_EQ(run(ip.data(), fp.data(), b, host), KILN_OK);
  EXPECT_EQ(scratch.back(), 0.0f) << "wrote past the scratch";
  return o;
}

void ExpectNear(const std::string& what, const std::vector<float>& got,
                const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  int reported = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double tol = 2e-5 + 1e-4 * std::fabs(want[i]);
    if (!(std::fabs(got[i] - want[i]) <= tol) && reported++ < 5)
      ADD_FAILURE() << what << "[" << i << "]: got " << got[i] << ", want " << want[i];
  }
}

void ExpectMatchesReference(const Spec& s) {
  SCOPED_TRACE(s.name);
  const Tensors in = MakeInputs(s, 17u + static_cast<uint32_t>(s.hidden));
  std::vector<double> y, yh, yc;
  Reference(s, in, &y, &yh, &yc);
  for (bool packed : {false, true}) {
    const Outputs o = Run(s, in, packed, nullptr);
    const std::string k = packed ? "recurrent_pb_f32 " : "recurrent_f32 ";
    ExpectNear(k + "Y", o.y, y);
    ExpectNear(k + "Y_h", o.yh, yh);
    if (s.cell == 2) ExpectNear(k + "Y_c", o.yc, yc);
    // Split over threads (uneven chunks, reverse order): the same bits.
    const Outputs t = Run(s, in, packed, &kiln::testing::kReverseHost);
    EXPECT_EQ(t.y, o.y) << k << "depends on the thread split";
    EXPECT_EQ(t.yh, o.yh) << k << "depends on the thread split";
  }
}

std::vector<Spec> Specs() {
  std::vector<Spec> v;
  for (int64_t cell : {0, 1, 2}) {
    for (int64_t hidden : {1, 5, 16, 17, 40}) {
      Spec s;
      s.cell = cell, s.hidden = hidden, s.seq = 4, s.batch = 2, s.input = 7;
      s.name = "cell" + std::to_string(cell) + "_h" + std::to_string(hidden);
      v.push_back(s);
    }
    Spec s;
    s.cell = cell, s.hidden = 20, s.seq = 5, s.batch = 3, s.input = 6;
    s.name = "cell" + std::to_string(cell) + "_bidirectional_layout1_states";
    s.direction = 2, s.layout = 1, s.h0 = true, s.c0 = true, s.peep = true;
    v.push_back(s);
    s.name = "cell" + std::to_string(cell) + "_reverse_lens_clip";
    s.direction = 1, s.layout = 0, s.lens = {5, 2, 0}, s.clip = 0.8f;
    v.push_back(s);
    s.name = "cell" + std::to_string(cell) + "_bidirectional_run_time_lens";
    s.direction = 2, s.lens = {3, 5, 1}, s.lens_at_run_time = true, s.clip = 0.0f;
    v.push_back(s);
    s = Spec();
    s.cell = cell, s.hidden = 9, s.seq = 3, s.batch = 2, s.input = 0, s.bias = false;
    s.name = "cell" + std::to_string(cell) + "_no_input_no_bias";
    v.push_back(s);
  }
  Spec s;
  s.cell = 1, s.hidden = 24, s.seq = 4, s.batch = 2, s.input = 5, s.lbr = true, s.h0 = true;
  s.name = "gru_linear_before_reset";
  v.push_back(s);
  s = Spec();
  s.cell = 2, s.hidden = 12, s.seq = 4, s.input = 3, s.input_forget = true, s.peep = true;
  s.c0 = true, s.name = "lstm_input_forget";
  v.push_back(s);
  // Every other activation once, with alpha and beta.
  for (int64_t kind = 2; kind <= 10; ++kind) {
    s = Spec();
    s.cell = 2, s.hidden = 18, s.seq = 3, s.input = 4;
    s.acts[0] = 0, s.acts[1] = kind, s.acts[2] = kind, s.alpha = 0.7f, s.beta = 0.3f;
    s.name = "lstm_act" + std::to_string(kind);
    v.push_back(s);
  }
  // Longer than one input-projection chunk (kiln_recurrent_chunk < seq).
  s = Spec();
  s.cell = 2, s.hidden = 256, s.seq = 70, s.input = 8, s.direction = 2;
  s.name = "lstm_two_chunks";
  v.push_back(s);
  return v;
}

TEST(RecurrentKernels, MatchFloat64Reference) {
  for (const Spec& s : Specs()) ExpectMatchesReference(s);
}

TEST(RecurrentKernels, ChunkBoundIsExercised) {
  EXPECT_LT(kiln_recurrent_chunk(70, 4 * 256), 70);
  EXPECT_EQ(kiln_recurrent_chunk(4, 64), 4);
  EXPECT_EQ(kiln_recurrent_chunk(3, int64_t{1} << 20), 1);
  EXPECT_EQ(kiln_recurrent_chunk(0, 64), 0);
}

TEST(RecurrentKernels, PackedCheckerWantsPackedSizes) {
  Spec s;
  s.cell = 1, s.hidden = 17, s.seq = 2, s.input = 3;
  const std::vector<int64_t> ip = IParams(s);
  const std::vector<float> fp = FParams(s);
  const int64_t panels_cols = 3 * 32;  // 17 hidden units pad to 2 panels per gate
  const uint64_t scratch = kiln_recurrent_scratch_floats(1, 2, 3, 17, 1, 1) * 4;
  uint64_t bytes[12] = {2 * 3 * 4, panels_cols * 3 * 4, panels_cols * 17 * 4, 2 * 51 * 4, 0, 0,
                        0, 2 * 17 * 4, 17 * 4, 0, scratch, 0};
  ASSERT_EQ(kiln_recurrent_pb_f32_check(ip.data(), static_cast<uint32_t>(ip.size()), fp.data(),
                                        13, bytes),
            KILN_OK);
  for (int k : {1, 2, 10}) {
    bytes[k] -= 4;
    EXPECT_EQ(kiln_recurrent_pb_f32_check(ip.data(), static_cast<uint32_t>(ip.size()), fp.data(),
                                          13, bytes),
              KILN_ERR_OUT_OF_RANGE)
        << "binding " << k;
    bytes[k] += 4;
  }
  // The unpacked kernel wants the unpacked scratch, which is larger.
  EXPECT_GT(kiln_recurrent_scratch_floats(1, 2, 3, 17, 1, 0),
            kiln_recurrent_scratch_floats(1, 2, 3, 17, 1, 1));
  EXPECT_EQ(kiln_recurrent_scratch_floats(1, 2, 3, int64_t{1} << 41, 1, 0), -1);
}

}  // namespace
