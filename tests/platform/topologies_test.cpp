// Every topology kind: hop counts of representative routes and the closed-form bisection bandwidth, derived by
// hand from the drawings in docs/topologies.md. One SimGrid simulation per test (process).
#include <gtest/gtest.h>
#include <simgrid/s4u.hpp>

#include <fstream>

#include "../support/scenarios.hpp"
#include "llmsim/engine/simulation.hpp"
#include "llmsim/platform/topology.hpp"
#include "llmsim/util/error.hpp"

using namespace llmsim;
namespace sg4 = simgrid::s4u;

namespace {
/// `nodes` single-GPU nodes (one NIC of 100 Gb/s) on `topology` (a JSON object).
scenario::Scenario on(const std::string& topology, int nodes, std::vector<std::string> extra = {}) {
  std::vector<std::string> o = {"cluster.nodes=" + std::to_string(nodes), "cluster.gpus_per_node=1",
                                "cluster.nics_per_node=1", "cluster.nic_Gbps=100", "parallelism.tp=1",
                                "parallelism.pp=1", "training.global_batch=" + std::to_string(4 * nodes),
                                "strategies.pipeline_schedule=1f1b", "cluster.topology=" + topology};
  o.insert(o.end(), extra.begin(), extra.end());
  return test::shipped("scenarios/default.json", o);
}
size_t hops(const platform::ClusterPlatform& p, int a, int b) {
  std::vector<sg4::Link*> links;
  double latency = 0;
  p.host(a, 0)->route_to(p.host(b, 0), links, &latency);
  return links.size();
}
double net(const scenario::Scenario& s) { return s.hardware.calibration.network_efficiency; }
/// The ScenarioError building the platform of `s` throws (a failed expectation if it builds).
ScenarioError build_error(const scenario::Scenario& s) {
  return test::error_of([&] { engine::Simulation sim(s, 1); });
}
}  // namespace

TEST(Topologies, Torus4x4) {
  const auto s = on(R"({"name": "torus", "x": 4, "y": 4, "link_GBps": 50})", 16);
  engine::Simulation sim(s, 1);
  const auto& p = sim.platform();
  EXPECT_EQ(hops(p, 0, 1), 3u);    // NIC, one torus link, NIC
  EXPECT_EQ(hops(p, 0, 3), 3u);    // wrap-around: (0,0) -> (3,0) is one hop
  EXPECT_EQ(hops(p, 0, 10), 6u);   // (0,0) -> (2,2): two hops in x, two in y
  // Cut across x = 4: 2 * 16 / 4 = 8 links.
  EXPECT_DOUBLE_EQ(platform::make_topology(s)->bisection_bandwidth(s.cluster, s.hardware), 8 * 50e9 * net(s));
}

TEST(Topologies, Torus2x2x2HasOneLinkPerPairInSizeTwoDimensions) {
  const auto s = on(R"({"name": "torus", "x": 2, "y": 2, "z": 2, "link_GBps": 50})", 8);
  engine::Simulation sim(s, 1);
  EXPECT_EQ(hops(sim.platform(), 0, 7), 5u);  // corner to corner: 3 links
  EXPECT_DOUBLE_EQ(platform::make_topology(s)->bisection_bandwidth(s.cluster, s.hardware), 4 * 50e9 * net(s));
}

TEST(Topologies, Clos3) {
  const auto s = on(R"({"name": "clos3", "nodes_per_rack": 2, "racks_per_minipod": 2, "leaf_oversubscription": 2,
                        "spine_oversubscription": 2})", 8);
  engine::Simulation sim(s, 1);
  const auto& p = sim.platform();
  EXPECT_EQ(hops(p, 0, 1), 2u);  // same rack: NIC, NIC
  EXPECT_EQ(hops(p, 0, 2), 4u);  // same minipod: NIC, rack up, rack up, NIC
  EXPECT_EQ(hops(p, 0, 4), 6u);  // across minipods: NIC, rack up, minipod up, minipod up, rack up, NIC
  const double half = 4 * 12.5e9 * net(s);
  EXPECT_DOUBLE_EQ(platform::make_topology(s)->bisection_bandwidth(s.cluster, s.hardware), half / 4);
}

TEST(Topologies, Dragonfly) {
  const auto s = on(R"({"name": "dragonfly", "groups": 3, "routers_per_group": 2, "nodes_per_router": 1,
                        "local_GBps": 100, "global_GBps": 40})", 6, {"cluster.nic_Gbps=1000"});
  engine::Simulation sim(s, 1);
  const auto& p = sim.platform();
  EXPECT_EQ(hops(p, 0, 2), 3u);  // g0 r0 -> g1 r0 own the g0-g1 global link
  EXPECT_EQ(hops(p, 1, 3), 5u);  // g0 r1 -> local -> global -> local -> g1 r1
  // Groups {0} | {1, 2}: 1 * 2 global links (the 3 nodes' 125 GB/s NICs on one side carry more).
  EXPECT_DOUBLE_EQ(platform::make_topology(s)->bisection_bandwidth(s.cluster, s.hardware), 2 * 40e9 * net(s));
}

TEST(Topologies, WaferMesh) {
  const auto s = on(R"({"name": "wafer-mesh", "rows": 2, "cols": 3, "d2d_GBps": 500})", 6);
  engine::Simulation sim(s, 1);
  EXPECT_EQ(hops(sim.platform(), 0, 5), 5u);  // (0,0) -> (1,2): 3 die-to-die hops
  EXPECT_DOUBLE_EQ(platform::make_topology(s)->bisection_bandwidth(s.cluster, s.hardware), 2 * 500e9);
}

TEST(Topologies, NopTreeWithDramPerGroup) {
  const auto s = on(R"({"name": "nop-tree", "groups": 2, "chiplets_per_group": 2, "link_GBps": 200, "dram_GBps": 300})", 5);
  engine::Simulation sim(s, 1);
  const auto& p = sim.platform();
  EXPECT_EQ(hops(p, 1, 2), 2u);  // same group: port, port
  EXPECT_EQ(hops(p, 1, 3), 4u);  // across groups: port, group up, group up, port
  EXPECT_EQ(hops(p, 0, 1), 3u);  // root chiplet to a leaf: port, group up, port
  ASSERT_EQ(p.memories.size(), 2u);
  std::vector<sg4::Link*> links;
  double latency = 0;
  p.host(1, 0)->route_to(p.memories[0], links, &latency);
  EXPECT_EQ(links.size(), 2u);  // port, DRAM I/O
  EXPECT_DOUBLE_EQ(links.back()->get_bandwidth(), 300e9);
  EXPECT_DOUBLE_EQ(platform::make_topology(s)->bisection_bandwidth(s.cluster, s.hardware), 200e9);
}

TEST(Topologies, NvlinkMeshNodeHasOneLinkPerGpuPair) {
  const auto s = test::shipped("scenarios/default.json", {"cluster.intra_node=nvlink-mesh"});
  engine::Simulation sim(s, 1);
  std::vector<sg4::Link*> links;
  double latency = 0;
  sim.platform().host(0, 0)->route_to(sim.platform().host(0, 5), links, &latency);
  ASSERT_EQ(links.size(), 1u);
  EXPECT_DOUBLE_EQ(links[0]->get_bandwidth(), s.hardware.nvlink_bandwidth * s.hardware.calibration.nvlink_efficiency / 7);
  EXPECT_EQ(sim.platform().switches[0], nullptr);
}

TEST(Topologies, FatTreeBisectionIsDividedByOversubscriptionAcrossGroups) {
  const auto s = test::shipped("scenarios/default.json",
                               {"cluster.nodes=4", "cluster.topology.leaf_radix=6", "cluster.topology.oversubscription=2"});
  // radix 6 at 2:1 -> 4 down-ports -> groups of 4 nodes: all 4 nodes in one group, no uplink in the cut.
  EXPECT_DOUBLE_EQ(platform::make_topology(s)->bisection_bandwidth(s.cluster, s.hardware),
                   2 * 8 * 25e9 * net(s));
}

TEST(Topologies, ImpossibleShapesAreScenarioErrors) {
  EXPECT_THROW(on(R"({"name": "torus", "x": 3, "y": 2, "link_GBps": 50})", 8), ScenarioError);
  EXPECT_THROW(on(R"({"name": "torus", "x": 2, "y": 2, "link_GBps": 0})", 4), ScenarioError);
  EXPECT_THROW(on(R"({"name": "wafer-mesh", "rows": 2, "cols": 2, "d2d_GBps": 1})", 5), ScenarioError);
  EXPECT_THROW(on(R"({"name": "simgrid-xml", "file": "no-such-platform.xml"})", 2), ScenarioError);
}

TEST(Topologies, MalformedPlatformFileIsAScenarioError) {
  char dir[] = "/tmp/llmsim-xml-XXXXXX";
  const std::string d = mkdtemp(dir);
  std::ofstream(d + "/bad.xml") << "<?xml version='1.0'?>\n<platform version=\"4.1\"><zone id=\"a\" routing=\"Full\">\n";
  EXPECT_EQ(build_error(on(R"({"name": "simgrid-xml", "file": ")" + d + R"(/bad.xml"})", 2)).path(),
            "/cluster/topology/file");
}

TEST(Topologies, MoreRanksThanPlatformHostsIsAScenarioError) {
  const auto s = on(R"({"name": "simgrid-xml", "file": ")" + test::source_path("scenarios/topologies/two-cabinets.xml") + R"("})",
                    17);
  EXPECT_EQ(build_error(s).path(), "/cluster/nodes");  // 17 ranks on 16 hosts
}

TEST(Topologies, EveryShippedTopologyScenarioResolves) {
  // The scenarios themselves run end to end in tests/validation/topology_scenarios_test.cpp (one process per run).
  for (const char* name : {"fat-tree", "clos3", "torus", "dragonfly", "nvlink-mesh", "wafer-mesh", "nop-tree", "simgrid-xml"})
    EXPECT_NO_THROW(test::shipped(std::string("scenarios/topologies/") + name + ".json")) << name;
}

TEST(Topologies, Ns3IsRejectedOnMultiLinkTopologies) {
  try {
    test::shipped("scenarios/default.json", {"network.model=ns-3"});
    FAIL() << "ns-3 accepted on a fat-tree";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.path(), "/network/model");
  }
}

TEST(Topologies, Ns3IsRejectedOnAnXmlPlatformWithMultiLinkRoutes) {
  // Two hosts joined by a route of two links (up and down through a switch): ns-3 returned nonsense on such routes.
  char dir[] = "/tmp/llmsim-xml-XXXXXX";
  const std::string file = std::string(mkdtemp(dir)) + "/two-links.xml";
  std::ofstream(file) << "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                         "<platform version=\"4.1\"><zone id=\"w\" routing=\"Full\"><host id=\"g0\" speed=\"1Tf\"/>"
                         "<host id=\"g1\" speed=\"1Tf\"/><link id=\"up\" bandwidth=\"25GBps\" latency=\"1us\"/>"
                         "<link id=\"down\" bandwidth=\"25GBps\" latency=\"1us\"/><route src=\"g0\" dst=\"g1\">"
                         "<link_ctn id=\"up\"/><link_ctn id=\"down\"/></route></zone></platform>\n";
  const auto e = build_error(on(R"({"name": "simgrid-xml", "file": ")" + file + R"("})", 2, {"network.model=ns-3"}));
  EXPECT_EQ(e.path(), "/network/model");
  EXPECT_NE(e.message().find("has 2 links"), std::string::npos) << e.message();
}

TEST(Topologies, Ns3IsRejectedOnAnXmlClusterPlatform) {
  // SimGrid's ns-3 bindings crashed (SIGFPE) on a <cluster> before any route could be checked.
  char dir[] = "/tmp/llmsim-xml-XXXXXX";
  const std::string file = std::string(mkdtemp(dir)) + "/cluster.xml";
  std::ofstream(file) << "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                         "<platform version=\"4.1\"><zone id=\"w\" routing=\"Full\"><cluster id=\"c\" prefix=\"g\" "
                         "suffix=\"\" radical=\"0-3\" speed=\"1Tf\" bw=\"25GBps\" lat=\"1us\"/></zone></platform>\n";
  const auto e = test::error_of([&] { on(R"({"name": "simgrid-xml", "file": ")" + file + R"("})", 2, {"network.model=ns-3"}); });
  EXPECT_EQ(e.path(), "/network/model");
  EXPECT_NE(e.message().find("has a <cluster>"), std::string::npos) << e.message();
}

namespace {
/// Writes `xml` to a fresh temporary platform file and expects building it to fail at /cluster/topology/file
/// with a message holding `what` (not, say, a parse error that any broken file would give).
void expect_platform_error(const std::string& xml, int nodes, const std::string& what) {
  char dir[] = "/tmp/llmsim-xml-XXXXXX";
  const std::string file = std::string(mkdtemp(dir)) + "/platform.xml";
  std::ofstream(file) << xml;
  const auto e = build_error(on(R"({"name": "simgrid-xml", "file": ")" + file + R"("})", nodes));
  EXPECT_EQ(e.path(), "/cluster/topology/file") << xml;
  EXPECT_NE(e.message().find(what), std::string::npos) << e.message();
}
const std::string kHead = "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                          "<platform version=\"4.1\">\n";
}  // namespace

TEST(Topologies, PlatformWithoutRoutesIsAScenarioError) {
  // SimGrid itself would crash on the first transfer between g0 and g1.
  expect_platform_error(kHead + "<zone id=\"w\" routing=\"Full\"><host id=\"g0\" speed=\"1Gf\"/><host id=\"g1\" speed=\"1Gf\"/>"
                                "</zone></platform>\n", 2, "has no route between");
}

TEST(Topologies, PlatformMissingOneRouteIsAScenarioError) {
  // A "Full" zone with some routes answers a missing one (g2 -> g3 here) with an empty route; SimGrid aborted the
  // run at its first transfer there (a probe).
  std::string routes;
  for (const char* pair : {"0\" dst=\"g1", "0\" dst=\"g2", "0\" dst=\"g3", "1\" dst=\"g2", "1\" dst=\"g3"})
    routes += std::string("<route src=\"g") + pair + "\"><link_ctn id=\"l\"/></route>";
  expect_platform_error(kHead + "<zone id=\"w\" routing=\"Full\"><host id=\"g0\" speed=\"1Gf\"/><host id=\"g1\" "
                                "speed=\"1Gf\"/><host id=\"g2\" speed=\"1Gf\"/><host id=\"g3\" speed=\"1Gf\"/>"
                                "<link id=\"l\" bandwidth=\"25GBps\" latency=\"2us\"/>" + routes + "</zone></platform>\n", 4,
                        "has no route between");
}

TEST(Topologies, PlatformDeclaringMoreHostsThanAClusterMayHaveIsAScenarioError) {
  // One <cluster> of radical 0-999999 plus 2 hosts: 1,000,002 hosts, above limits::kMaxGpus (131,072), refused
  // before SimGrid builds them (20 s and 2.9 GB for a 4-GPU run).
  char dir[] = "/tmp/llmsim-xml-XXXXXX";
  const std::string file = std::string(mkdtemp(dir)) + "/platform.xml";
  std::ofstream(file) << kHead + "<zone id=\"w\" routing=\"Full\"><host id=\"g0\" speed=\"1Gf\"/><host id=\"g1\" "
                                 "speed=\"1Gf\"/></zone><cluster id=\"c\" prefix=\"h\" suffix=\"\" radical=\"0-999999\" "
                                 "speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\"/></platform>\n";
  const auto e = test::error_of([&] { on(R"({"name": "simgrid-xml", "file": ")" + file + R"("})", 2); });
  EXPECT_EQ(e.path(), "/cluster/topology/file");
  EXPECT_NE(e.message().find("declares 1000002 hosts (its <host> elements and <cluster> radicals); at most 131072"),
            std::string::npos) << e.message();
}

TEST(Topologies, PlatformWithAZeroBandwidthLinkIsAScenarioError) {
  expect_platform_error(kHead + "<zone id=\"w\" routing=\"Full\"><host id=\"g0\" speed=\"1Gf\"/><host id=\"g1\" speed=\"1Gf\"/>"
                                "<link id=\"l\" bandwidth=\"0Bps\" latency=\"1us\"/><route src=\"g0\" dst=\"g1\"><link_ctn id=\"l\"/>"
                                "</route></zone></platform>\n", 2, "has a bandwidth below 1 MBps");
}

TEST(Topologies, OnlyXmlPlatformFilesAreAccepted) {
  char dir[] = "/tmp/llmsim-xml-XXXXXX";
  const std::string file = std::string(mkdtemp(dir)) + "/plat.so";
  std::ofstream(file) << "not a library";
  EXPECT_THROW(on(R"({"name": "simgrid-xml", "file": ")" + file + R"("})", 2), ScenarioError);
}
