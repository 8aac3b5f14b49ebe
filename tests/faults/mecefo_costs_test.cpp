// MeCeFO's neighbour multipliers (strategy/mecefo_costs.hpp) against the closed-form FLOP counts of a LLaMA
// layer on one GPU (T tokens, h hidden, f SwiGLU inner size, s sequence, V vocabulary):
//   attention forward 8 T h^2 + 4 T s h (QKV 6 T h^2, output 2 T h^2, scores and AV 2 T s h each),
//   FFN forward 6 T h f, head 2 T h V; a whole backward is 2x the forward for all of them.
//   normal micro-batch  3 [L (A + F) + H]
//   MeCeFO micro-batch  L (A + 3 F + R) + 3 H,   R = 6 T r (h + f) + 6 r h f  (three FFN matrices)
//   SVD refresh         L 12 h f r / tau per step
//   covering neighbour  2 MeCeFO micro-batches (its own and the failed node's, both without attention backward and
//                       with low-rank FFN weight gradients) + the SVD refresh
#include <gtest/gtest.h>

#include "../support/scenarios.hpp"
#include "llmsim/strategy/mecefo_costs.hpp"

using namespace llmsim;

TEST(MeCeFoCosts, MultipliersEqualTheClosedFormFlopCounts) {
  const auto s = test::shipped("scenarios/faults/mecefo-350m.json");
  const double T = 16 * 256, h = 1024, f = 2736, seq = 256, V = 32000, L = 24, r = 128, tau = 200, m = 1;
  const double A = 8 * T * h * h + 4 * T * seq * h, F = 6 * T * h * f, H = 2 * T * h * V;
  const double R = 6 * T * r * (h + f) + 6 * r * h * f;
  const double normal = m * 3 * (L * (A + F) + H);
  const double covering = 2 * m * (L * (A + 3 * F + R) + 3 * H) + L * 12 * h * f * r / tau;
  const auto c = strategy::mecefo_costs(s, 128, 200);
  EXPECT_NEAR(c.normal_step, normal, 1e-9 * normal);
  EXPECT_NEAR(c.covering_step, covering, 1e-9 * covering);
  EXPECT_NEAR(c.compute_multiplier(), covering / normal, 1e-12);
  // Extra memory: the FFN inputs (T h, bf16) and fp32 projections (d_out r per FFN matrix) of every layer.
  EXPECT_NEAR(c.extra_memory, L * T * h * 2 + L * 4 * r * (f + h + f), 1e-6);
}

TEST(MeCeFoCosts, AMoeLayerUsesItsMoeFfn) {
  // The same LLaMA 350M with every FFN an 8-expert top-2 MoE layer of the same inner size f (ep 1: all 8 experts
  // on every GPU). MoE FFN forward: router 2 T h E + the routed experts on T k token copies 6 T k h f; its
  // low-rank weight gradients R = 6 T k r (h + f) over the routed tokens + E 6 r h f over the experts' matrices;
  // the SVD refresh and the projections cover every expert's matrices.
  const auto s = test::shipped("scenarios/faults/mecefo-350m.json", {R"(model.moe={"experts": 8, "top_k": 2})"});
  const double T = 16 * 256, h = 1024, f = 2736, seq = 256, V = 32000, L = 24, r = 128, tau = 200, E = 8, k = 2;
  const double A = 8 * T * h * h + 4 * T * seq * h, F = 2 * T * h * E + 6 * T * k * h * f, H = 2 * T * h * V;
  const double R = 6 * T * k * r * (h + f) + E * 6 * r * h * f;
  const double normal = 3 * (L * (A + F) + H);
  const double covering = 2 * (L * (A + 3 * F + R) + 3 * H) + L * E * 12 * h * f * r / tau;
  const auto c = strategy::mecefo_costs(s, 128, 200);
  EXPECT_NEAR(c.normal_step, normal, 1e-9 * normal);
  EXPECT_NEAR(c.covering_step, covering, 1e-9 * covering);
  EXPECT_NEAR(c.extra_memory, L * T * h * 2 + L * E * 4 * r * (f + h + f), 1e-6);
}
