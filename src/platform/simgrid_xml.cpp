// `simgrid-xml`: any SimGrid platform file. Its hosts, sorted by name in natural order ("h2" before "h10"),
// are the GPUs in rank order, gpus_per_node consecutive hosts forming a node. There is no lane aggregation
// (one host per GPU; the engine sends one flow per GPU) and no NVSwitch endpoint. The bisection bandwidth is
// not derived for an arbitrary graph (reported as 0). No link statistics (see ClusterPlatform).
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "llmsim/platform/node.hpp"
#include "llmsim/platform/topology.hpp"
#include "llmsim/util/error.hpp"

namespace sg4 = simgrid::s4u;

namespace llmsim::platform {
namespace {

/// "h2" < "h10": digit runs compare as numbers.
bool natural_less(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
      size_t i2 = i, j2 = j;
      while (i2 < a.size() && std::isdigit(static_cast<unsigned char>(a[i2]))) ++i2;
      while (j2 < b.size() && std::isdigit(static_cast<unsigned char>(b[j2]))) ++j2;
      const auto x = std::stoull(a.substr(i, i2 - i)), y = std::stoull(b.substr(j, j2 - j));
      if (x != y) return x < y;
      i = i2;
      j = j2;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

class SimgridXml final : public Topology {
 public:
  explicit SimgridXml(std::string file) : file_(std::move(file)) {}

  ClusterPlatform build(const scenario::Cluster& c, const scenario::Hardware&, int) const override {
    auto* engine = sg4::Engine::get_instance();
    try {
      engine->load_platform(file_);
    } catch (const std::exception& e) {
      throw ScenarioError("/cluster/topology/file", "cannot load the SimGrid platform " + file_ + ": " + e.what());
    }
    auto hosts = engine->get_all_hosts();
    std::sort(hosts.begin(), hosts.end(), [](const sg4::Host* a, const sg4::Host* b) { return natural_less(a->get_name(), b->get_name()); });
    const size_t need = static_cast<size_t>(c.nodes) * c.gpus_per_node;
    if (hosts.size() < need)
      throw ScenarioError("/cluster/nodes", std::to_string(c.nodes) + " nodes x " + std::to_string(c.gpus_per_node) +
                                                " GPUs need " + std::to_string(need) + " hosts but " + file_ + " has " +
                                                std::to_string(hosts.size()));
    ClusterPlatform out = empty_platform(c, 1);
    out.hosts.assign(hosts.begin(), hosts.begin() + need);
    out.switches.assign(c.nodes, nullptr);
    out.link_statistics = false;
    return out;
  }

  double bisection_bandwidth(const scenario::Cluster&, const scenario::Hardware&) const override { return 0; }

 private:
  std::string file_;
};

const scenario::FieldList kParams = {
    scenario::Field::string("file", "SimGrid platform file (XML or a platform library); relative to the scenario file"),
};

LLMSIM_REGISTER(Topology, "simgrid-xml", "any SimGrid platform file; its hosts in natural name order are the GPUs", kParams,
                [](const nlohmann::json& p, const scenario::Scenario& s) -> std::unique_ptr<Topology> {
                  namespace fs = std::filesystem;
                  fs::path file = p.at("file").get<std::string>();
                  if (file.is_relative() && !s.source_dir.empty()) file = fs::path(s.source_dir) / file;
                  std::error_code ec;
                  if (!fs::is_regular_file(file, ec))
                    throw ScenarioError("/cluster/topology/file", "no platform file at " + file.string());
                  return std::make_unique<SimgridXml>(file.string());
                });

}  // namespace
}  // namespace llmsim::platform
