// The azure-trace workload (serving/workload.hpp): replay of the Azure LLM inference traces 2023 (Patel et al.,
// "Splitwise", ISCA 2024; Azure/AzurePublicDataset, CC-BY-4.0), shipped in data/azure-llm-2023/.
#include <algorithm>
#include <cctype>
#include <climits>
#include <filesystem>
#include <optional>

#include "limited_source.hpp"
#include "llmsim/scenario/loader.hpp"
#include "llmsim/util/error.hpp"
#include "trace_file.hpp"

namespace llmsim::serving {
namespace {

const std::string kColumns = "TIMESTAMP,ContextTokens,GeneratedTokens";

/// Days in month `m` (1-12) of Gregorian year `y`.
long long days_in_month(long long y, long long m) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return kDays[m - 1] + (m == 2 && leap ? 1 : 0);
}

/// Days from 1970-01-01 to the proleptic Gregorian date y-m-d (H. Hinnant's days_from_civil).
long long days_from_civil(long long y, unsigned m, unsigned d) {
  y -= m <= 2;
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long long>(doe) - 719468;
}

/// Nanoseconds since 1970-01-01 00:00:00 of "YYYY-MM-DD HH:MM:SS" (years 1970-2200) with an optional fraction of
/// 1 to 9 digits (exact: no floating point), or nothing if `text` is not of that form.
std::optional<long long> parse_timestamp(const std::string& text) {
  const std::string form = "dddd-dd-dd dd:dd:dd";
  if (text.size() < form.size()) return std::nullopt;
  for (size_t i = 0; i < form.size(); ++i)
    if (form[i] == 'd' ? !std::isdigit(static_cast<unsigned char>(text[i])) : text[i] != form[i]) return std::nullopt;
  const auto field = [&](size_t at, size_t n) { return std::stoll(text.substr(at, n)); };
  const long long year = field(0, 4), month = field(5, 2), day = field(8, 2), hour = field(11, 2),
                  minute = field(14, 2), second = field(17, 2);
  // Years 1970-2200: nanoseconds since 1970 stay within 64 bits (to 2262), and no trace predates Unix time.
  if (year < 1970 || year > 2200 || month < 1 || month > 12 || day < 1 || day > days_in_month(year, month) || hour > 23 ||
      minute > 59 || second > 59)
    return std::nullopt;
  long long ns = 0;
  if (text.size() > form.size()) {
    const std::string fraction = text.substr(form.size() + 1);
    if (text[form.size()] != '.' || fraction.empty() || fraction.size() > 9 ||
        fraction.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    ns = std::stoll(fraction + std::string(9 - fraction.size(), '0'));
  }
  const long long days = days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  return ((days * 24 + hour) * 60 + minute) * 60 * 1000000000LL + second * 1000000000LL + ns;
}

/// The requests of an Azure trace CSV whose arrival (from the first request) is at least `start` [s], shifted
/// earlier by `start`.
std::vector<Request> read_azure(const std::string& file, double start) {
  TraceFile in(file, "/serving/workload/trace");
  in.expect_header(kColumns);
  std::vector<Request> out;
  std::optional<long long> first, previous;
  while (in.next()) {
    const auto cell = in.cells(3, kColumns);
    const auto ns = parse_timestamp(cell[0]);
    if (!ns) in.fail("TIMESTAMP \"" + cell[0] + "\" is not of the form YYYY-MM-DD HH:MM:SS.fffffff (years 1970-2200)");
    if (previous && *ns < *previous) in.fail("TIMESTAMP " + cell[0] + " is before the previous request's (out of order)");
    previous = ns;
    if (!first) first = ns;
    Request r;
    r.prompt_tokens = static_cast<int>(in.integer(cell[1], "ContextTokens", 1, INT_MAX));
    r.output_tokens = std::max(1, static_cast<int>(in.integer(cell[2], "GeneratedTokens", 0, INT_MAX)));
    const double offset = static_cast<double>(*ns - *first) / 1e9;  // correctly rounded
    if (offset < start) continue;
    r.arrival = offset - start;
    out.push_back(std::move(r));
  }
  return out;
}

/// A shipped trace's file for "code" and "conversation", else `trace` as a path.
std::string trace_file(const std::string& trace, const std::string& base_dir) {
  if (trace != "code" && trace != "conversation") {
    const std::string path = trace.empty() ? "" : resolve_path(trace, base_dir);
    std::error_code ec;  // a name the file system refuses (too long, ...) is no file either
    if (trace.empty() || !std::filesystem::exists(path, ec))
      throw ScenarioError("/serving/workload/trace", "\"" + trace + "\" is neither a shipped trace (code, conversation) "
                                                     "nor a CSV file" + (trace.empty() ? "" : " (" + path +
                                                     (ec ? ": " + ec.message() : " does not exist") + ")"));
    return path;
  }
  const auto file = std::filesystem::path(scenario::data_dir()) / "azure-llm-2023" /
                    (trace == "code" ? "AzureLLMInferenceTrace_code.csv" : "AzureLLMInferenceTrace_conv.csv");
  if (!std::filesystem::is_regular_file(file))
    throw ScenarioError("/serving/workload/trace", "the shipped trace " + file.string() + " is missing (data/ is found "
                                                   "next to the configs/ directory; see LLMSIM_CONFIG_DIR)");
  return file.string();
}

LLMSIM_REGISTER(WorkloadSource, "azure-trace",
                "replay of an Azure LLM inference trace 2023 (Splitwise, ISCA 2024): arrivals and lengths of every "
                "request, from start_s on",
                (scenario::FieldList{
                    scenario::Field::string("trace", "\"code\" (8,819 requests, 2.57 req/s), \"conversation\" "
                                                     "(19,366 requests, 5.53 req/s), or a CSV path with the columns " +
                                                         kColumns + ", relative to the scenario file; a row with GeneratedTokens 0 is served as "
                                                         "1 token (the prefill emits the first)"),
                    scenario::Field::number("start_s", "s", "replay from this time of the trace (from its first "
                                                             "request); arrivals shifted earlier by it")
                        .at_least(0)
                        .with_default(0.0)}),
                [](const scenario::Params& p, const scenario::Scenario& s) {
                  return std::make_unique<Replay>(
                      read_azure(trace_file(p.text("trace"), s.source_dir), p.seconds("start_s")));
                });

}  // namespace
}  // namespace llmsim::serving
