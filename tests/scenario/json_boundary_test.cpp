// JSON stops at scenario/ (docs/architecture.md, "Typed parameters"): no file of the simulation layers names
// nlohmann, except the readers of input file formats listed here (the one allow-list). A new include or use
// anywhere else fails this test with the file's name.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kJsonFreeFolders = {"strategy", "workload", "engine",   "collectives", "platform",
                                                   "serving",  "faults",   "moe",      "hardware",    "model"};

/// Readers of input file formats that are JSON: they parse a file the scenario names. (The other readers, the
/// Azure trace, the failure trace and a length distribution's CDF, read CSV.)
const std::set<std::string> kFileReaders = {
    "src/serving/mooncake_trace.cpp",   // Mooncake JSONL trace
    "src/moe/coactivation_routing.cpp", // co-activation file (JSON)
};

std::vector<std::string> offenders() {
  const fs::path root = LLMSIM_TEST_SOURCE_DIR;
  std::vector<std::string> out;
  for (const auto& folder : kJsonFreeFolders)
    for (const fs::path& dir : {root / "src" / folder, root / "include" / "llmsim" / folder}) {
      if (!fs::is_directory(dir)) continue;
      for (const auto& e : fs::recursive_directory_iterator(dir)) {
        if (!e.is_regular_file()) continue;
        const std::string rel = fs::relative(e.path(), root).generic_string();
        std::ifstream in(e.path());
        std::stringstream text;
        text << in.rdbuf();
        if (text.str().find("nlohmann") != std::string::npos && !kFileReaders.count(rel)) out.push_back(rel);
      }
    }
  return out;
}

}  // namespace

TEST(JsonBoundary, OnlyFileReadersOutsideScenarioNameNlohmann) {
  const auto found = offenders();
  std::string list;
  for (const auto& f : found) list += " " + f;
  EXPECT_TRUE(found.empty()) << "nlohmann outside scenario/ (use scenario::Params or a typed struct):" << list;
}

TEST(JsonBoundary, EveryListedReaderExistsAndReadsJson) {
  // A stale entry would silently widen the allow-list.
  for (const auto& rel : kFileReaders) {
    std::ifstream in(fs::path(LLMSIM_TEST_SOURCE_DIR) / rel);
    ASSERT_TRUE(in) << rel;
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_NE(text.str().find("nlohmann"), std::string::npos) << rel << " no longer uses nlohmann: drop it from the list";
  }
}
