#include "llmsim/model/optimizer.hpp"

#include "llmsim/model/transformer.hpp"

namespace llmsim::model {

namespace {
bool has_master(Precision p) { return bytes_per_element(p) < 4; }
bool is_adam(const std::string& optimizer) { return optimizer == "adam"; }
Precision training_precision(const scenario::Scenario& s) { return LayerShape::from(s).precision; }
Precision state_precision(const scenario::Scenario& s) {
  return precision_from_name(s.training.optimizer_state_precision, "/training/optimizer_state_precision");
}
}  // namespace

const std::vector<std::string>& optimizer_names() {
  static const std::vector<std::string> names = {"adam", "sgd"};
  return names;
}

double optimizer_state_bytes(const std::string& optimizer, Precision training, Precision state) {
  const double s = bytes_per_element(state);
  return (is_adam(optimizer) ? 2 * s : 0) + (has_master(training) ? s : 0);
}

double optimizer_step_bytes(const std::string& optimizer, Precision training, Precision state) {
  const double s = bytes_per_element(state);
  const double e = bytes_per_element(training);
  const double weights = has_master(training) ? 2 * s + e : 2 * e;  // without a master: the fp32 weights in place
  return 4 + weights + (is_adam(optimizer) ? 4 * s : 0);
}

double optimizer_state_bytes(const scenario::Scenario& s) {
  return optimizer_state_bytes(s.training.optimizer, training_precision(s), state_precision(s));
}

double optimizer_step_bytes(const scenario::Scenario& s) {
  return optimizer_step_bytes(s.training.optimizer, training_precision(s), state_precision(s));
}

}  // namespace llmsim::model
