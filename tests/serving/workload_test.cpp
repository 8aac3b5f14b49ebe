// Request sources of serving.workload (serving/workload.hpp, serving/length_distribution.hpp), through
// scenario::resolve + make_requests: the Azure traces replay exactly (checked against the CSV parsed here),
// the limits (rate_scale, duration_s, max_requests, start_s) act as documented, Poisson and Gamma gaps and the
// length distributions have their exact moments, a seed fixes the requests, and bad input names its JSON path
// or "<file>:<line>".
#include <cmath>

#include "../support/cli.hpp"
#include "llmsim/scenario/loader.hpp"
#include "llmsim/serving/workload.hpp"
#include "llmsim/util/error.hpp"

namespace {

using namespace std::string_literals;
using llmsim::ScenarioError;
using llmsim::serving::Request;
using llmsim::test::json;
namespace fs = std::filesystem;

/// One row of an Azure trace CSV, parsed here without the simulator's reader.
struct Row {
  double seconds;  ///< time of day [s]
  int prompt, output;
};

std::vector<Row> read_azure_csv(const std::string& name) {
  std::ifstream in(std::string(LLMSIM_TEST_SOURCE_DIR) + "/data/azure-llm-2023/" + name);
  std::vector<Row> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    // "2023-11-16 18:17:03.9799600,4808,10": the same day throughout both files.
    const double h = std::stod(line.substr(11, 2)), m = std::stod(line.substr(14, 2));
    const size_t c1 = line.find(','), c2 = line.find(',', c1 + 1);
    rows.push_back({h * 3600 + m * 60 + std::stod(line.substr(17, c1 - 17)), std::stoi(line.substr(c1 + 1, c2 - c1 - 1)),
                    std::stoi(line.substr(c2 + 1))});
  }
  return rows;
}

struct Moments {
  double mean = 0, sd = 0;
  double cv() const { return sd / mean; }
};
Moments moments(const std::vector<double>& x) {
  Moments m;
  for (double v : x) m.mean += v / x.size();
  for (double v : x) m.sd += (v - m.mean) * (v - m.mean) / (x.size() - 1);
  m.sd = std::sqrt(m.sd);
  return m;
}
std::vector<double> gaps(const std::vector<Request>& r) {
  std::vector<double> g = {r[0].arrival};
  for (size_t i = 1; i < r.size(); ++i) g.push_back(r[i].arrival - r[i - 1].arrival);
  return g;
}
std::vector<double> prompts(const std::vector<Request>& r) {
  std::vector<double> p;
  for (const auto& x : r) p.push_back(x.prompt_tokens);
  return p;
}

void expect_starts(const std::string& message, const std::string& prefix) {
  EXPECT_EQ(message.rfind(prefix, 0), 0u) << message;
}
void expect_contains(const std::string& message, const std::string& part) {
  EXPECT_NE(message.find(part), std::string::npos) << message;
}

class Workload : public llmsim::test::Cli {  // for its temporary directory dir_ and write()
 protected:
  /// A complete serving scenario with `workload` and the other serving keys of `serving`.
  static json scenario(const json& workload, json serving = json::object(), unsigned seed = 1) {
    serving["workload"] = workload;
    return {{"name", "t"},           {"kind", "serving"},
            {"hardware", "A100-SXM4-80GB"}, {"cluster", {{"preset", "selene"}, {"nodes", 1}}},
            {"model", "llama2-7b"},  {"parallelism", {{"tp", 1}, {"pp", 1}}},
            {"serving", serving},    {"seed", seed}};
  }
  /// The requests of `scenario`, resolved with relative paths against the temporary directory.
  std::vector<Request> requests(const json& scenario) {
    const auto s = llmsim::scenario::resolve(scenario, dir_.string());
    return llmsim::serving::make_requests(s, s.serving.rate_scale);
  }
  /// The ScenarioError message of resolving `scenario` ("" if it resolves).
  std::string error(const json& scenario) {
    try {
      requests(scenario);
    } catch (const ScenarioError& e) {
      return e.what();
    }
    return "";
  }
  /// Poisson requests with fixed lengths unless `prompt` is given.
  static json poisson(double rate, const json& prompt = {{"distribution", "fixed"}, {"tokens", 100}}) {
    return {{"name", "poisson"}, {"rate_rps", rate}, {"prompt", prompt}, {"output", {{"distribution", "fixed"}, {"tokens", 10}}}};
  }
};

const json kCode = {{"name", "azure-trace"}, {"trace", "code"}};

TEST_F(Workload, TheAzureCodeTraceReplaysEveryRowExactly) {
  const auto rows = read_azure_csv("AzureLLMInferenceTrace_code.csv");
  const auto r = requests(scenario(kCode));
  ASSERT_EQ(rows.size(), 8819u);
  ASSERT_EQ(r.size(), rows.size());
  for (size_t i = 0; i < r.size(); ++i) {
    ASSERT_EQ(r[i].id, static_cast<int>(i));
    ASSERT_NEAR(r[i].arrival, rows[i].seconds - rows[0].seconds, 1e-6) << "row " << i;
    ASSERT_EQ(r[i].prompt_tokens, rows[i].prompt) << "row " << i;
    ASSERT_EQ(r[i].output_tokens, rows[i].output) << "row " << i;
    ASSERT_TRUE(r[i].block_hashes.empty());
  }
  // First row 18:17:03.9799600,4808,10; last 19:14:19.9280160,549,173: 57 min 15.948056 s later, exactly.
  EXPECT_EQ(r.front().arrival, 0);
  EXPECT_EQ(r.front().prompt_tokens, 4808);
  EXPECT_EQ(r.back().arrival, 3435.948056);
  EXPECT_EQ(r.back().prompt_tokens, 549);
  EXPECT_EQ(r.back().output_tokens, 173);
}

TEST_F(Workload, TheAzureConversationTraceHasItsPublishedCountAndMeans) {
  const auto r = requests(scenario({{"name", "azure-trace"}, {"trace", "conversation"}}));
  ASSERT_EQ(r.size(), 19366u);
  double prompt = 0, output = 0;
  for (const auto& x : r) prompt += x.prompt_tokens, output += x.output_tokens;
  EXPECT_NEAR(prompt / r.size(), 1155, 0.5);  // Splitwise: mean 1155 prompt, 211 output tokens
  EXPECT_NEAR(output / r.size(), 211, 0.5);
  EXPECT_NEAR(r.size() / r.back().arrival, 5.53, 0.005);
}

TEST_F(Workload, RateScaleTwoHalvesEveryArrival) {
  const auto one = requests(scenario(kCode));
  const auto two = requests(scenario(kCode, {{"rate_scale", 2}}));
  ASSERT_EQ(one.size(), two.size());
  for (size_t i = 0; i < one.size(); ++i) {
    ASSERT_EQ(two[i].arrival, one[i].arrival / 2);
    ASSERT_EQ(two[i].prompt_tokens, one[i].prompt_tokens);
  }
  // The same for a generated stream: the same draws, every time divided by rate_scale.
  const auto p1 = requests(scenario(poisson(3), {{"max_requests", 50}}));
  const auto p2 = requests(scenario(poisson(3), {{"max_requests", 50}, {"rate_scale", 2}}));
  for (size_t i = 0; i < p1.size(); ++i) ASSERT_DOUBLE_EQ(p2[i].arrival, p1[i].arrival / 2);
}

TEST_F(Workload, DurationDropsLaterArrivalsAfterRateScaleAndMaxRequestsKeepsTheFirst) {
  const auto rows = read_azure_csv("AzureLLMInferenceTrace_code.csv");
  size_t before_60 = 0, before_120 = 0;
  for (const auto& row : rows) {
    before_60 += row.seconds - rows[0].seconds < 60;
    before_120 += row.seconds - rows[0].seconds < 120;
  }
  const auto d = requests(scenario(kCode, {{"duration_s", 60}}));
  EXPECT_EQ(d.size(), before_60);
  EXPECT_LT(d.back().arrival, 60);
  // rate_scale 2: the first 120 s of the trace fit in 60 s.
  EXPECT_EQ(requests(scenario(kCode, {{"duration_s", 60}, {"rate_scale", 2}})).size(), before_120);
  const auto m = requests(scenario(kCode, {{"max_requests", 100}}));
  ASSERT_EQ(m.size(), 100u);
  EXPECT_EQ(m.back().prompt_tokens, rows[99].prompt);
  EXPECT_EQ(m.back().id, 99);
  EXPECT_EQ(requests(scenario(kCode, {{"max_requests", 100000}, {"duration_s", 60}})).size(), before_60);
  EXPECT_EQ(requests(scenario(kCode, {{"max_requests", 5}, {"duration_s", 60}})).size(), 5u);
}

TEST_F(Workload, StartSkipsTheBeginningOfTheTraceAndShiftsTheRest) {
  const auto rows = read_azure_csv("AzureLLMInferenceTrace_code.csv");
  size_t first = 0;
  while (rows[first].seconds - rows[0].seconds < 100) ++first;
  json w = kCode;
  w["start_s"] = 100;
  const auto r = requests(scenario(w));
  ASSERT_EQ(r.size(), rows.size() - first);
  EXPECT_NEAR(r[0].arrival, rows[first].seconds - rows[0].seconds - 100, 1e-6);
  EXPECT_GE(r[0].arrival, 0);
  EXPECT_EQ(r[0].prompt_tokens, rows[first].prompt);
  EXPECT_EQ(r[0].id, 0);
  w["start_s"] = 4000;  // after the last request
  expect_starts(error(scenario(w)), "/serving/workload: no request");
}

TEST_F(Workload, PoissonGapsHaveMeanOneOverRateAndCvOne) {
  const double rate = 4;
  const auto r = requests(scenario(poisson(rate), {{"max_requests", 20000}}));
  ASSERT_EQ(r.size(), 20000u);
  const auto g = moments(gaps(r));
  EXPECT_NEAR(g.mean, 1 / rate, 3 * (1 / rate) / std::sqrt(20000.0));
  EXPECT_NEAR(g.cv(), 1, 0.03);
  EXPECT_EQ(r.back().prompt_tokens, 100);
  EXPECT_EQ(r.back().output_tokens, 10);
}

TEST_F(Workload, GammaGapsHaveTheirCoefficientOfVariation) {
  json w = poisson(2);
  w["name"] = "gamma";
  w["cv"] = 2;
  const auto r = requests(scenario(w, {{"max_requests", 20000}}));
  const auto g = moments(gaps(r));
  EXPECT_NEAR(g.mean, 0.5, 3 * (2 * 0.5) / std::sqrt(20000.0));
  EXPECT_NEAR(g.cv(), 2, 0.1);
}

TEST_F(Workload, DurationStopsAGeneratedStream) {
  const auto r = requests(scenario(poisson(10), {{"duration_s", 50}}));
  EXPECT_LT(r.back().arrival, 50);
  EXPECT_NEAR(static_cast<double>(r.size()), 500, 3 * std::sqrt(500.0));  // Poisson count: mean = variance = 500
  const auto scaled = requests(scenario(poisson(10), {{"duration_s", 50}, {"rate_scale", 3}}));
  EXPECT_NEAR(static_cast<double>(scaled.size()), 1500, 3 * std::sqrt(1500.0));
}

TEST_F(Workload, LengthDistributionsHaveTheirExactMeans) {
  const size_t n = 20000;
  auto draws = [&](const json& prompt) {
    return prompts(requests(scenario(poisson(1, prompt), {{"max_requests", n}})));
  };
  auto expect_mean = [&](const std::vector<double>& x, double exact) {
    const auto m = moments(x);
    EXPECT_NEAR(m.mean, exact, 3 * m.sd / std::sqrt(double(n)));
  };
  const auto u = draws({{"distribution", "uniform"}, {"min", 100}, {"max", 2000}});
  expect_mean(u, 1050);
  EXPECT_EQ(*std::min_element(u.begin(), u.end()), 100);
  EXPECT_EQ(*std::max_element(u.begin(), u.end()), 2000);

  // zipf over 10..1000 with theta 1.2: P(k) = (k - 9)^-1.2 / sum.
  double weight = 0, weighted = 0;
  for (int k = 10; k <= 1000; ++k) weight += std::pow(k - 9, -1.2), weighted += k * std::pow(k - 9, -1.2);
  const auto z = draws({{"distribution", "zipf"}, {"min", 10}, {"max", 1000}, {"theta", 1.2}});
  expect_mean(z, weighted / weight);
  EXPECT_NEAR(std::count(z.begin(), z.end(), 10.0) / double(n), 1 / weight, 3 * std::sqrt(1 / weight / n));
  EXPECT_LE(*std::max_element(z.begin(), z.end()), 1000);

  // cdf: 20 % at exactly 50 tokens, then linear to 0.5 at 100 and to 1 at 1000. Integer end points: rounding
  // the linear pieces keeps their means (50 + 100) / 2 and (100 + 1000) / 2.
  write("lengths.csv", "tokens,cumulative_probability\n50,0.2\n100,0.5\n# a comment\n\n1000,1\n"s);
  const auto c = draws({{"distribution", "cdf"}, {"file", "lengths.csv"}});
  expect_mean(c, 0.2 * 50 + 0.3 * 75 + 0.5 * 550);
  EXPECT_NEAR(std::count(c.begin(), c.end(), 50.0) / double(n), 0.2 + 0.3 / 50 / 2, 3 * std::sqrt(0.2 * 0.8 / n));
  EXPECT_EQ(*std::min_element(c.begin(), c.end()), 50);

  const auto f = draws({{"distribution", "fixed"}, {"tokens", 777}});
  EXPECT_EQ(std::count(f.begin(), f.end(), 777.0), static_cast<long>(n));
}

TEST_F(Workload, TheSeedFixesTheRequests) {
  const json w = poisson(2, {{"distribution", "uniform"}, {"min", 1}, {"max", 4096}});
  const auto a = requests(scenario(w, {{"max_requests", 100}}, 7));
  const auto b = requests(scenario(w, {{"max_requests", 100}}, 7));
  const auto c = requests(scenario(w, {{"max_requests", 100}}, 8));
  ASSERT_EQ(a.size(), 100u);
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].arrival, b[i].arrival);
    ASSERT_EQ(a[i].prompt_tokens, b[i].prompt_tokens);
  }
  EXPECT_NE(a[5].arrival, c[5].arrival);
  EXPECT_NE(prompts(a), prompts(c));
}

TEST_F(Workload, LengthDistributionKeysMustFitTheDistribution) {
  const std::string at = "/serving/workload/prompt/";
  const std::vector<std::pair<json, std::string>> cases = {
      {{{"distribution", "fixed"}}, at + "tokens: required by the fixed distribution"},
      {{{"distribution", "uniform"}, {"min", 1}, {"max", 9}, {"tokens", 5}},
       at + "tokens: not a key of the uniform distribution (its keys: min, max)"},
      {{{"distribution", "zipf"}, {"min", 1}, {"max", 9}}, at + "theta: required by the zipf distribution"},
      {{{"distribution", "uniform"}, {"min", 10}, {"max", 9}}, at + "max: max 9 is below min 10"},
      {{{"distribution", "normal"}}, at + "distribution: unknown value"}};
  for (const auto& [prompt, message] : cases)
    expect_starts(error(scenario(poisson(1, prompt), {{"max_requests", 10}})), message);
  json no_output = poisson(1);
  no_output.erase("output");
  expect_starts(error(scenario(no_output, {{"max_requests", 10}})), "/serving/workload/output: missing required field");
}

TEST_F(Workload, AGeneratedStreamNeedsALimitOfAtMostTenMillionRequests) {
  EXPECT_EQ(error(scenario(poisson(1))),
            "/serving/max_requests: a poisson/gamma workload needs serving.max_requests or serving.duration_s (both "
            "are 0)");
  expect_starts(error(scenario(poisson(1), {{"max_requests", 10000001}})), "/serving/max_requests: at most 10,000,000");
}

TEST_F(Workload, TheResolvedScenarioResolvesAgain) {
  // The keys a length distribution does not use keep their "not set" values, which the schema accepts again.
  const auto s = llmsim::scenario::resolve(
      scenario(poisson(2, {{"distribution", "zipf"}, {"min", 1}, {"max", 100}, {"theta", 1}}), {{"max_requests", 10}}));
  EXPECT_EQ(s.resolved["serving"]["workload"]["prompt"]["tokens"], 0);
  EXPECT_EQ(llmsim::scenario::resolve(s.resolved).resolved, s.resolved);
}

TEST_F(Workload, BadCdfFilesNameTheFileAndLine) {
  const std::string header = "tokens,cumulative_probability\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {header + "10,0.5\n20,0.4\n30,1\n", "cdf.csv:3: cumulative_probability 0.4 is below the previous line's"},
      {header + "10,0.5\n20,0.9\n", "cdf.csv:3: the last cumulative_probability must be 1"},
      {header + "10,0.5\n10,1\n", "cdf.csv:3: tokens 10 is not above the previous line's"},
      {"tokens,probability\n10,1\n", "cdf.csv:1: the first line is \"tokens,probability\""},
      {header + "10,x\n", "cdf.csv:2: cumulative_probability \"x\" is not a finite decimal number"},
      {header, "cdf.csv has a header but no point"},
      // a length is at least 1 token: mass at 0 was served as 1-token requests without a word (a probe)
      {header + "0,1.0\n", "cdf.csv:2: tokens 0 has cumulative_probability 1.0: lengths are at least 1 token"}};
  for (const auto& [text, message] : cases) {
    write("cdf.csv", text);
    expect_contains(error(scenario(poisson(1, {{"distribution", "cdf"}, {"file", "cdf.csv"}}), {{"max_requests", 10}})),
                    message);
  }
}

TEST_F(Workload, MalformedAzureLinesNameTheFileAndLine) {
  const std::string header = "TIMESTAMP,ContextTokens,GeneratedTokens\n", ok = "2023-11-16 18:17:03.9799600,4808,10\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {header + ok + "2023-11-16 18:17:04.0,12x,8\n", ":3: ContextTokens \"12x\" is not an integer"},
      {header + ok + "2023-11-16 18:17:04.0,120\n", ":3: 2 fields in"},
      {header + ok + "2023-11-16 18:17:04.0,120,5\n2023-11-16 18:17:03.5,120,5\n",
       ":4: TIMESTAMP 2023-11-16 18:17:03.5 is before the previous request's (out of order)"},
      {header + ok + "2023-11-16 18:17:04.0,0,5\n", ":3: ContextTokens 0 is out of range"},
      {header + ok + "16/11/2023 18:17:04,10,5\n", ":3: TIMESTAMP \"16/11/2023 18:17:04\" is not of the form"},
      // 2262 overflowed the nanoseconds since 1970 and read as "out of order"; 0001 wrapped silently.
      {header + ok + "2262-11-16 18:17:04,10,5\n", ":3: TIMESTAMP \"2262-11-16 18:17:04\" is not of the form"},
      {header + "0001-01-01 00:00:00,10,5\n", ":2: TIMESTAMP \"0001-01-01 00:00:00\" is not of the form"},
      // A day past the month's end rolled over into the next month (and blamed the next line as out of order).
      {header + "2023-02-30 18:17:03.0,100,10\n2023-03-01 18:17:03.0,100,10\n",
       ":2: TIMESTAMP \"2023-02-30 18:17:03.0\" is not of the form"},
      {header + "2023-02-28 00:00:00,10,5\n2100-02-29 00:00:00,10,5\n", ":3: TIMESTAMP \"2100-02-29 00:00:00\""},
      {"time,prompt,output\n", ":1: the first line is \"time,prompt,output\""}};
  const std::string file = write("file.csv", ""s);
  for (const auto& [text, message] : cases) {
    write("file.csv", text);
    expect_starts(error(scenario({{"name", "azure-trace"}, {"trace", "file.csv"}})),
                  "/serving/workload/trace: " + file + message);
  }
  expect_starts(error(scenario({{"name", "azure-trace"}, {"trace", "missing.csv"}})),
                "/serving/workload/trace: \"missing.csv\" is neither a shipped trace (code, conversation) nor a CSV "
                "file (" + (dir_ / "missing.csv").string() + " does not exist)");
}

TEST_F(Workload, ZeroGeneratedTokensReadAsOneAndFractionsAreExact) {
  write("t.csv",
        "TIMESTAMP,ContextTokens,GeneratedTokens\r\n2023-12-31 23:59:59.999999999,5,0\r\n2024-01-01 00:00:00.5,6,2\r\n"s);
  const auto r = requests(scenario({{"name", "azure-trace"}, {"trace", "t.csv"}}));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].output_tokens, 1);
  EXPECT_EQ(r[1].arrival, 0.500000001);  // across midnight and a new year, to the nanosecond
}

TEST_F(Workload, MooncakeTracesCarryBlockHashes) {
  write("trace.jsonl",
        "{\"timestamp\": 1000, \"input_length\": 1025, \"output_length\": 7, \"hash_ids\": [0, 1, 2]}\n"
        "{\"timestamp\": 4000, \"input_length\": 512, \"output_length\": 0, \"hash_ids\": [0]}\n"s);
  const auto r = requests(scenario({{"name", "mooncake"}, {"file", "trace.jsonl"}}));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].arrival, 0);
  EXPECT_EQ(r[1].arrival, 3);
  EXPECT_EQ(r[0].prompt_tokens, 1025);
  EXPECT_EQ(r[1].output_tokens, 1);
  EXPECT_EQ(r[0].block_hashes, (std::vector<std::uint64_t>{0, 1, 2}));
  // block_tokens 256: 1025 tokens are 5 blocks, not 3.
  expect_contains(error(scenario({{"name", "mooncake"}, {"file", "trace.jsonl"}, {"block_tokens", 256}})),
                  "trace.jsonl:1: 3 hash_ids for input_length 1025, expected ceil(input_length / block_tokens 256) = 5");
}

TEST_F(Workload, MalformedMooncakeLinesNameTheFileAndLine) {
  const std::string ok = "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 7, \"hash_ids\": [4]}\n";
  auto trace_error = [&](const std::string& line) {
    write("trace.jsonl", ok + line);
    return error(scenario({{"name", "mooncake"}, {"file", "trace.jsonl"}}));
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{\"timestamp\": 0, \"input_length\": 10,", "the line: malformed JSON"},
      {std::string(20000, '[') + std::string(20000, ']'), "the line: objects and arrays nest deeper than 64"},
      {"{\"timestamp\": 0, \"input_length\": 10, \"hash_ids\": [1]}", "no output_length"},
      {"{\"timestamp\": 0, \"input_length\": 0, \"output_length\": 1, \"hash_ids\": []}", "input_length is 0"},
      {"{\"timestamp\": -5, \"input_length\": 10, \"output_length\": 1, \"hash_ids\": [1]}", "timestamp is -5"},
      {"{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 1, \"hash_ids\": [1], \"x\": 1}",
       "unknown key \"x\""},
      {"{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 1, \"hash_ids\": [-1]}", "hash_ids has -1"}};
  for (const auto& [line, message] : cases) expect_contains(trace_error(line + "\n"), "trace.jsonl:2: " + message);
}

TEST_F(Workload, TheShippedTracesAreFoundInTheDataDirectory) {
  const fs::path data = llmsim::scenario::data_dir();
  EXPECT_EQ(data.filename(), "data");
  EXPECT_TRUE(fs::is_regular_file(data / "azure-llm-2023" / "AzureLLMInferenceTrace_code.csv"));
  EXPECT_TRUE(fs::is_regular_file(data / "azure-llm-2023" / "AzureLLMInferenceTrace_conv.csv"));
}

}  // namespace
