#include "llmsim/strategy/pipeline_schedule.hpp"

#include <algorithm>
#include <numeric>

#include "llmsim/strategy/family.hpp"
#include "llmsim/strategy/pipeline_layout.hpp"
#include "llmsim/util/error.hpp"

namespace llmsim::strategy {

int max_in_flight(const std::vector<PipelineTask>& order, int offloaded_chunk) {
  constexpr int kResidentOffloaded = 2;
  int live = 0, offloaded = 0, peak = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    const auto& t = order[i];
    int& count = t.chunk == offloaded_chunk ? offloaded : live;
    if (t.pass == PipelineTask::Pass::Forward) ++count;
    if (t.pass == PipelineTask::Pass::Backward || t.pass == PipelineTask::Pass::BackwardInput) --count;
    if (i + 1 == order.size() || !order[i + 1].braided) peak = std::max(peak, live + std::min(offloaded, kResidentOffloaded));
  }
  return peak;
}

std::unique_ptr<PipelineSchedule> make_pipeline_schedule(const scenario::Scenario& s) {
  const auto& choice = s.strategies.pipeline_schedule;
  auto schedule = PipelineScheduleRegistry::instance().make(choice, s, "/strategies/pipeline_schedule", "schedule");
  chunk_layers(s, *schedule);  // the layer split must exist
  const int m = s.training.micro_batches_per_pipeline(s.parallelism.dp), least = schedule->min_micro_batches(s.parallelism.pp);
  if (s.kind == "training" && m < least)  // a moe-chiplet run has no pipeline
    throw ScenarioError("/training/global_batch",
                        "the " + choice.name + " schedule needs at least " + std::to_string(least) + " micro-batches per pipeline with pp " +
                            std::to_string(s.parallelism.pp) + ", this scenario has " + std::to_string(m) +
                            " (global_batch / (micro_batch * dp)): raise global_batch or lower micro_batch");
  return schedule;
}

namespace {
/// Megatron-Core's account_for_embedding_in_pipeline_split and account_for_loss_in_pipeline_split: layers + 2
/// split evenly over the chunks, the first chunk's share including the embedding, the last's the loss (a share
/// of 1: the embedding or the loss alone).
std::vector<int> embedding_loss_split(const scenario::Scenario& s, int chunks) {
  const int layers = s.model.layers, share = (layers + 2) / chunks;
  const std::string path = "/parallelism/pipeline_split";
  if ((layers + 2) % chunks != 0) {
    std::string fits;  // the chunk counts that would split: divisors of layers + 2
    for (int d = 1; d <= layers + 2; ++d)
      if ((layers + 2) % d == 0) fits += (fits.empty() ? "" : ", ") + std::to_string(d);
    throw ScenarioError(path, "embedding-loss needs layers + 2 = " + std::to_string(layers + 2) +
                                  " to split into pp*virtual_stages = " + std::to_string(chunks) +
                                  " equal shares (pp*virtual_stages one of " + fits + ")");
  }
  std::vector<int> out(chunks, share);
  out.front() -= 1;
  out.back() -= 1;
  return out;
}

/// parallelism.pipeline_layout's model layers per chunk (its MTP layers, m, only checked: the last chunk's and
/// model.mtp_layers of them), checked against the model and the schedule.
std::vector<int> layout_split(const scenario::Scenario& s, int chunks) {
  const std::string path = "/parallelism/pipeline_layout";
  const auto layout = parse_pipeline_layout(s.parallelism.pipeline_layout, path);
  const auto count = [](auto n) { return std::to_string(n); };
  if (static_cast<int>(layout.size()) != chunks)
    throw ScenarioError(path, count(layout.size()) + " chunks ('|' + 1), where pp * virtual_stages = " +
                                  count(chunks) + " (the schedule's model chunks)");
  if (!layout.front().embedding) throw ScenarioError(path, "must begin with E (the embedding)");
  if (!layout.back().loss) throw ScenarioError(path, "must end with L (the loss), in the last chunk");
  std::vector<int> out;
  int mtp = 0;
  for (size_t j = 0; j < layout.size(); ++j) {
    mtp += layout[j].mtp_layers;
    if (layout[j].mtp_layers > 0 && j + 1 < layout.size())
      throw ScenarioError(path, "m: llmsim runs the multi-token-prediction layers in the last chunk, with the loss "
                                "(chunk " + count(j) + " holds one)");
    if (layout[j].layers == 0 && j > 0 && j + 1 < layout.size())
      throw ScenarioError(path, "chunk " + count(j) + " holds no transformer layer: only the first (E) and the "
                                    "last (L) chunk may hold none");
    out.push_back(layout[j].layers);
  }
  const long total = std::accumulate(out.begin(), out.end(), 0L);
  if (total != s.model.layers)
    throw ScenarioError(path, count(total) + " transformer layers (t), where the model has " +
                                  count(s.model.layers) + " (model.layers)");
  if (mtp != s.model.mtp_layers)
    throw ScenarioError(path, count(mtp) + " multi-token-prediction layers (m), where the model has " +
                                  count(s.model.mtp_layers) + " (model.mtp_layers)");
  return out;
}

/// The model's layers per chunk (without MTP layers) from pipeline_split and last_stage_layers.
std::vector<int> model_layer_split(const scenario::Scenario& s, const PipelineSchedule& schedule) {
  const int pp = s.parallelism.pp, v = schedule.chunks_per_stage(), layers = s.model.layers;
  const std::string n = std::to_string(layers);
  if (s.parallelism.pipeline_split == "embedding-loss") return embedding_loss_split(s, pp * v);
  if (pp * v > layers)
    throw ScenarioError("/strategies/pipeline_schedule/virtual_stages",
                        "pp * virtual_stages = " + std::to_string(pp * v) + " model chunks is more than the " + n +
                            " layers (each chunk holds at least one layer; the embedding and the loss may take "
                            "a chunk each with pipeline_split embedding-loss or a pipeline_layout)");
  if (static_cast<long long>(s.parallelism.last_stage_layers) * pp == layers) {  // the even split (also what "auto" resolves to)
    if (layers % (pp * v) != 0)
      throw ScenarioError("/model/layers", n + " layers do not divide into pp*virtual_stages = " + std::to_string(pp * v) +
                                               " equal chunks (layers must be a multiple of it)");
    return std::vector<int>(pp * v, layers / (pp * v));
  }
  const int last = s.parallelism.last_stage_layers, rest = layers - last;
  // The value "auto" resolves to (layers / pp) names pp, which the user changed, not a field left to its default.
  const bool derived = last == layers / pp;
  const auto fail = [&](const std::string& what) {
    if (!derived) throw ScenarioError("/parallelism/last_stage_layers", what);
    throw ScenarioError("/parallelism/pp", "pp " + std::to_string(pp) + " does not split the " + n + " layers: with " +
                                               "last_stage_layers " + std::to_string(last) + " (auto, layers / pp), " +
                                               what + "; give parallelism.last_stage_layers or another pp");
  };
  if (pp == 1 && last != layers) fail("with pp 1 the only stage holds all " + n + " layers");
  if (pp > 1 && last > layers - (pp - 1) * v)  // each chunk of the first pp-1 stages holds a layer
    fail(std::to_string(last) + " leaves fewer than one layer for each of the " + std::to_string((pp - 1) * v) +
         " chunks of the first pp-1 stages: at most " + std::to_string(layers - (pp - 1) * v) + " of the " + n +
         " layers");
  if (last % v != 0) fail(std::to_string(last) + " is not a multiple of the " + std::to_string(v) + " chunks per stage");
  if (pp > 1 && (rest <= 0 || rest % ((pp - 1) * v) != 0))
    fail("the other " + std::to_string(rest) + " of the " + n + " layers do not split evenly over the " +
         std::to_string((pp - 1) * v) + " chunks of the first pp-1 stages");
  std::vector<int> out(pp * v, pp > 1 ? rest / ((pp - 1) * v) : 0);
  for (int c = 0; c < v; ++c) out[schedule.model_chunk(pp, pp - 1, c)] = last / v;
  return out;
}
}  // namespace

std::vector<int> chunk_layers(const scenario::Scenario& s, const PipelineSchedule& schedule) {
  const long long chunks = static_cast<long long>(s.parallelism.pp) * schedule.chunks_per_stage();
  if (chunks > s.model.layers + 2LL)  // (so pp * v below fits an int)
    throw ScenarioError("/strategies/pipeline_schedule/virtual_stages",
                        "pp * virtual_stages = " + std::to_string(chunks) + " model chunks is more than the " +
                            std::to_string(s.model.layers) + " layers, the embedding and the loss");
  std::vector<int> out = s.parallelism.pipeline_layout.empty() ? model_layer_split(s, schedule)
                                                                 : layout_split(s, static_cast<int>(chunks));
  out.back() += s.model.mtp_layers;  // the MTP layers follow the model's last one, in the last chunk with the head
  return out;
}

LLMSIM_FAMILY(PipelineSchedule, "strategies", "pipeline_schedule", "1f1b", "pipeline schedule", 20,
              {"strategies", "pipeline_schedule", 1}, [](const scenario::Scenario& s) { make_pipeline_schedule(s); });

}  // namespace llmsim::strategy
