#include "llmsim/model/optimizer.hpp"

namespace llmsim::model {

namespace {
bool has_master(Precision p) { return bytes_per_element(p) < 4; }
bool is_adam(const std::string& optimizer) { return optimizer == "adam"; }
}  // namespace

const std::vector<std::string>& optimizer_names() {
  static const std::vector<std::string> names = {"adam", "sgd"};
  return names;
}

double optimizer_state_bytes(const std::string& optimizer, Precision training) {
  return (is_adam(optimizer) ? 8 : 0) + (has_master(training) ? 4 : 0);
}

double optimizer_step_bytes(const std::string& optimizer, Precision training) {
  return 4 + 8 + (is_adam(optimizer) ? 16 : 0) + (has_master(training) ? bytes_per_element(training) : 0);
}

}  // namespace llmsim::model
