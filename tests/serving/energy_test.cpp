// Serving energy (serving/step_model.hpp StepModel::step, report/serving_report.cpp): a step's energy above idle is
// tp times one GPU's kernels' (layers x (token kernels + attention) + embedding + head), and a run's energy is
// idle power over the span plus its steps'.
#include <gtest/gtest.h>

#include "../support/scenarios.hpp"
#include "llmsim/hardware/power_model.hpp"
#include "llmsim/serving/step_model.hpp"

using namespace llmsim;

TEST(ServingEnergy, AStepIsTpTimesOneGpusKernels) {
  const auto s = test::shipped("scenarios/serving/llama3.1-8b-h100-offline.json", {"parallelism.tp=2", "cluster.gpus_per_node=2", "cluster.nics_per_node=2"});
  const serving::StepModel model(s);
  const hardware::ComputeModel cm(serving::serving_hardware(s));
  const auto x = serving::serving_shape(s);
  auto edge = x;
  edge.precision = serving::edge_precision(x.precision);
  model::InferenceStep st;  // 64 sequences decoding at 1,000 tokens of context each
  st.decode_seqs = 64, st.decode_context = 64 * 1000.0, st.sampled = 64;
  const double one_gpu = s.model.layers * (hardware::dynamic_energy(cm, model::inference_token_kernels(x, 64, {})) +
                                           hardware::dynamic_energy(cm, model::inference_attention(x, st))) +
                         hardware::dynamic_energy(cm, model::inference_embedding(edge, st)) +
                         hardware::dynamic_energy(cm, model::inference_head(edge, st));
  const auto cost = model.step(st, 64);
  EXPECT_NEAR(cost.energy, 2 * one_gpu, 1e-9 * one_gpu);
  EXPECT_EQ(cost.time, model.step_time(st, 64));
  // Decode at batch 64 is memory-bound: the GPUs draw between idle and the memory-bound power over the step.
  const double mean_power = 75 + cost.energy / (2 * cost.time);
  EXPECT_GT(mean_power, 75);
  EXPECT_LT(mean_power, 380 * 1.05);
}
