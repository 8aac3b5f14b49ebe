// `simgrid-xml`: any SimGrid platform file. Its hosts, sorted by name in natural order ("h2" before "h10"),
// are the GPUs in rank order, gpus_per_node consecutive hosts forming a node. There is no lane aggregation
// (one host per GPU; the engine sends one flow per GPU) and no NVSwitch endpoint. The bisection bandwidth is
// not derived for an arbitrary graph (reported as 0). No link statistics (see ClusterPlatform).
#include <simgrid/s4u.hpp>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "llmsim/platform/node.hpp"
#include "llmsim/platform/topology.hpp"
#include "llmsim/util/error.hpp"
#include "llmsim/util/input_file.hpp"
#include "llmsim/util/limits.hpp"
#include "llmsim/util/process.hpp"

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

/// True if SimGrid finds a route of at least one link between every pair of `hosts` (up to 256 hosts; beyond, each
/// host to its successor and to host 0). SimGrid 3.32 crashes (segfault) or aborts on a missing route, so the
/// queries run in a forked child and a crash there only means "incomplete"; a "Full" zone answers a missing route
/// with an empty one instead, and aborts only when a transfer takes it.
/// Calls `f(i, j)` for the ordered pairs of `n` hosts a route check visits (all of them up to 256 hosts; beyond,
/// each host to its successor and to host 0); stops at the first pair for which `f` returns false.
template <class F>
bool all_checked_pairs(size_t n, F f) {
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      if (i != j && (n <= 256 || j == (i + 1) % n || j == 0) && !f(i, j)) return false;
  return true;
}

/// The links of the route from `a` to `b`.
std::vector<sg4::Link*> route(sg4::Host* a, sg4::Host* b) {
  std::vector<sg4::Link*> links;
  double latency = 0;
  a->route_to(b, links, &latency);
  return links;
}

bool routes_complete(const std::vector<sg4::Host*>& hosts) {
  const pid_t pid = util::fork_child([&] {
    const int devnull = open("/dev/null", O_WRONLY);  // SimGrid's crash report belongs to this probe only
    if (devnull >= 0) dup2(devnull, STDERR_FILENO);
    return all_checked_pairs(hosts.size(), [&](size_t i, size_t j) { return !route(hosts[i], hosts[j]).empty(); }) ? 0 : 1;
  });
  if (pid < 0) return true;  // cannot check: let the simulation report it
  const int status = util::wait_for(pid);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/// Hosts `text` (a platform file) declares: one per <host> element, and the sizes of every <cluster>'s radical
/// ("0-999999,1024": 1,000,001), counted before SimGrid builds them: a few bytes can declare millions of hosts,
/// which took SimGrid 20 s and 2.9 GB to load for a 4-GPU run. Unparsable radicals count 0 (SimGrid reports them).
double declared_hosts(const std::string& text) {
  double hosts = 0;
  for (size_t at = text.find("<host "); at != std::string::npos; at = text.find("<host ", at + 1)) ++hosts;
  const std::string key = "radical=\"";
  for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + 1)) {
    const size_t begin = at + key.size(), end = text.find('"', begin);
    std::stringstream items(text.substr(begin, end == std::string::npos ? 0 : end - begin));
    for (std::string item; std::getline(items, item, ',');) {
      const size_t dash = item.find('-');
      const auto number = [](const std::string& d) {
        return !d.empty() && d.size() <= 15 && d.find_first_not_of("0123456789") == std::string::npos ? std::stod(d) : -1;
      };
      const double a = number(item.substr(0, dash)), b = dash == std::string::npos ? a : number(item.substr(dash + 1));
      if (a >= 0 && b >= a) hosts += b - a + 1;
    }
  }
  return hosts;
}

class SimgridXml final : public Topology {
 public:
  /// `one_link_routes`: the ns-3 model of SimGrid 3.32 runs one-link routes only (docs/topologies.md); other
  /// routes gave nonsense times (a 1 KiB all-reduce took 3 s on a two-cabinet platform).
  SimgridXml(std::string file, bool one_link_routes) : file_(std::move(file)), one_link_routes_(one_link_routes) {}

  ClusterPlatform build(const scenario::Cluster& c, const scenario::Hardware&, int, const std::vector<bool>&) const override {
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
    for (const auto* link : engine->get_all_links())
      if (!(link->get_bandwidth() >= limits::kMinRate * 1e9) || !(link->get_latency() >= 0))
        throw ScenarioError("/cluster/topology/file", "link " + link->get_name() + " of " + file_ +
                                                          " has a bandwidth below 1 MBps (0.001 GB/s, as every rate "
                                                          "of a scenario) or a negative latency");
    ClusterPlatform out = empty_platform(c, 1);
    out.hosts.assign(hosts.begin(), hosts.begin() + need);
    if (!routes_complete(out.hosts))
      throw ScenarioError("/cluster/topology/file", file_ + " has no route between some of its first " +
                                                        std::to_string(need) + " hosts (every pair of ranks needs one)");
    if (one_link_routes_)
      all_checked_pairs(need, [&](size_t i, size_t j) {
        const size_t links = route(out.hosts[i], out.hosts[j]).size();
        if (links == 1) return true;
        throw ScenarioError("/network/model", "the ns-3 packet-level model runs only one-link routes (Debian's SimGrid "
                                              "3.32); the route from " + out.hosts[i]->get_name() + " to " +
                                              out.hosts[j]->get_name() + " has " + std::to_string(links) +
                                              " links: use CM02, LV08 or IB");
      });
    out.switches.assign(c.nodes, nullptr);
    out.link_statistics = false;
    return out;
  }

  double bisection_bandwidth(const scenario::Cluster&, const scenario::Hardware&) const override { return 0; }

 private:
  std::string file_;
  bool one_link_routes_;
};

const scenario::FieldList kParams = {
    scenario::Field::string("file", "SimGrid XML platform file (.xml), relative to the scenario file"),
};

LLMSIM_REGISTER(Topology, "simgrid-xml", "any SimGrid platform file; its hosts in natural name order are the GPUs", kParams,
                [](const scenario::Params& p, const scenario::Scenario& s) -> std::unique_ptr<Topology> {
                  namespace fs = std::filesystem;
                  fs::path file = p.text("file");
                  if (file.is_relative() && !s.source_dir.empty()) file = fs::path(s.source_dir) / file;
                  util::check_input_file(file.string(), "/cluster/topology/file", limits::kMaxDataFileBytes);
                  if (file.extension() != ".xml")
                    throw ScenarioError("/cluster/topology/file", file.string() + " is not a .xml SimGrid platform file");
                  std::ifstream in(file);
                  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
                  // SimGrid 3.32's ns-3 bindings take <host>, <link> and <route> platforms; a <cluster> crashed them
                  // (SIGFPE) before any route could be checked.
                  if (s.network.model == "ns-3" && text.find("<cluster") != std::string::npos)
                    throw ScenarioError("/network/model", "the ns-3 packet-level model runs on platforms of <host>, "
                                        "<link> and one-link <route> elements; " + file.string() + " has a <cluster> "
                                        "(use CM02, LV08 or IB)");
                  if (const double hosts = declared_hosts(text); hosts > limits::kMaxGpus)
                    throw ScenarioError("/cluster/topology/file",
                                        file.string() + " declares " + std::to_string(static_cast<long long>(hosts)) +
                                            " hosts (its <host> elements and <cluster> radicals); at most " +
                                            std::to_string(static_cast<long long>(limits::kMaxGpus)));
                  return std::make_unique<SimgridXml>(file.string(), s.network.model == "ns-3");
                });

}  // namespace
}  // namespace llmsim::platform
