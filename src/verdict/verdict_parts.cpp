#include "verdict/verdict_parts.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace ptxb {

using nlohmann::json;

namespace {

LevelResult level_from_json(const json& j) {
  if (j.is_boolean()) return j.get<bool>() ? LevelResult::kYes : LevelResult::kNo;
  if (j == "unavailable") return LevelResult::kUnavailable;
  throw InputError("an evidence level must be true, false or \"unavailable\", not " + j.dump());
}

template <typename T>
void put_optional(json& j, const char* key, const std::optional<T>& value) {
  if (value) j[key] = *value;
}

template <typename T>
std::optional<T> get_optional(const json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  return j[key].get<T>();
}

constexpr const char* kFloorKinds[] = {"flop_share", "executions"};

// Keys of a timing record that ShapeTiming holds itself; everything else is `details`.
constexpr const char* kTimingKeys[] = {"shape",
                                       "sustained",
                                       "hidden",
                                       "label",
                                       "regime",
                                       "error",
                                       "flops",
                                       "candidate",
                                       "baseline",
                                       "speedup",
                                       "verified",
                                       "candidate_tflops",
                                       "baseline_tflops",
                                       "fraction_of_library",
                                       "peak_tflops",
                                       "fraction_of_peak",
                                       "bytes",
                                       "peak_gbs",
                                       "arithmetic_intensity",
                                       "memory_bound",
                                       "fraction_of_bandwidth"};

}  // namespace

json level_json(LevelResult level) {
  if (level == LevelResult::kUnavailable) return "unavailable";
  return level == LevelResult::kYes;
}

// A schema-2 target row in schema 3's form: its bare floor number does not say whether it is a
// FLOP share or a count, so it is dropped; min_flop_share was the measured minimum.
json upgrade_schema2_target(json row) {
  row.erase("floor");
  if (row.contains("min_flop_share")) {
    row["measured_min_flop_share"] = row["min_flop_share"];
    row.erase("min_flop_share");
  }
  return row;
}

VerdictParts read_verdict_parts(const json& record) {
  VerdictParts parts;
  if (record.contains("targets")) {
    json rows = record["targets"];
    if (record.value("schema", 0) == 2)
      for (json& row : rows) row = upgrade_schema2_target(row);
    parts.targets = rows.get<std::vector<TargetEvidence>>();
  }
  if (record.contains("correctness"))
    parts.correctness = record["correctness"].get<CorrectnessSummary>();
  if (record.contains("timing")) parts.timing = record["timing"].get<std::vector<ShapeTiming>>();
  return parts;
}

bool all_targets_met(const std::vector<TargetEvidence>& targets) {
  return !targets.empty() &&
         std::all_of(targets.begin(), targets.end(), [](const TargetEvidence& t) { return t.met; });
}

void to_json(json& j, const TargetEvidence& t) {
  j = {{"instruction", t.instruction}, {"required", t.required}, {"S0", level_json(t.s0)},
       {"S1", level_json(t.s1)},       {"R1", level_json(t.r1)}, {"R2", level_json(t.r2)},
       {"functions", t.functions},     {"opcodes", t.opcodes},   {"met", t.met}};
  if (t.floor)
    j["floor"] = {{"kind", kFloorKinds[static_cast<int>(t.floor->kind)]},
                  {"value", t.floor->value}};
  put_optional(j, "min_executed", t.min_executed);
  put_optional(j, "measured_min_flop_share", t.measured_min_flop_share);
  put_optional(j, "max_nontarget_flop_share", t.max_nontarget_flop_share);
  put_optional(j, "max_integer_share", t.max_integer_share);
  put_optional(j, "max_instructions_per_mac", t.max_instructions_per_mac);
}

void from_json(const json& j, TargetEvidence& t) {
  t.instruction = j.at("instruction").get<std::string>();
  t.required = j.at("required").get<std::string>();
  t.s0 = level_from_json(j.at("S0"));
  t.s1 = level_from_json(j.at("S1"));
  t.r1 = level_from_json(j.at("R1"));
  t.r2 = level_from_json(j.at("R2"));
  t.functions = j.value("functions", std::vector<std::string>{});
  t.opcodes = j.value("opcodes", std::map<std::string, int64_t>{});
  t.met = j.at("met").get<bool>();
  t.floor.reset();
  if (j.contains("floor")) {
    const std::string kind = j["floor"].at("kind").get<std::string>();
    if (kind != kFloorKinds[0] && kind != kFloorKinds[1])
      throw InputError("unknown evidence floor kind '" + kind + "'");
    t.floor = EvidenceFloor{
        kind == kFloorKinds[0] ? EvidenceFloor::Kind::kFlopShare : EvidenceFloor::Kind::kExecutions,
        j["floor"].at("value").get<double>()};
  }
  t.min_executed = get_optional<int64_t>(j, "min_executed");
  t.measured_min_flop_share = get_optional<double>(j, "measured_min_flop_share");
  t.max_nontarget_flop_share = get_optional<double>(j, "max_nontarget_flop_share");
  t.max_integer_share = get_optional<double>(j, "max_integer_share");
  t.max_instructions_per_mac = get_optional<double>(j, "max_instructions_per_mac");
}

void to_json(json& j, const CorrectnessSummary& c) {
  j = {{"cases", c.cases}};
  put_optional(j, "passed", c.passed);
  put_optional(j, "total", c.total);
}

void from_json(const json& j, CorrectnessSummary& c) {
  c.cases = j.value("cases", json::array());
  c.passed = get_optional<int64_t>(j, "passed");
  c.total = get_optional<int64_t>(j, "total");
}

void to_json(json& j, const Interval& i) {
  j = {{"median", i.median}, {"low", i.low}, {"high", i.high}, {"count", i.count}};
}

void from_json(const json& j, Interval& i) {
  i.median = j.at("median").get<double>();
  i.low = j.at("low").get<double>();
  i.high = j.at("high").get<double>();
  i.count = j.value("count", int64_t{0});
}

void to_json(json& j, const SustainedTiming& s) {
  j = s.details;
  j["calls"] = s.calls;
  if (!s.error.empty()) {
    j["error"] = s.error;
    return;
  }
  j["candidate"] = s.candidate;
  j["baseline"] = s.baseline;
  j["speedup"] = s.speedup;
  put_optional(j, "verified", s.verified);
}

void from_json(const json& j, SustainedTiming& s) {
  s.calls = j.at("calls").get<int>();
  s.error = j.value("error", std::string());
  if (s.error.empty()) {
    s.candidate = j.at("candidate").get<Interval>();
    s.baseline = j.at("baseline").get<Interval>();
    s.speedup = j.at("speedup").get<Interval>();
  }
  s.verified = get_optional<bool>(j, "verified");
  s.details = json::object();
  for (const auto& [key, value] : j.items())
    if (key != "calls" && key != "error" && key != "candidate" && key != "baseline" &&
        key != "speedup" && key != "verified" && key != "candidate_tflops" &&
        key != "baseline_tflops")
      s.details[key] = value;
}

void to_json(json& j, const ShapeTiming& t) {
  j = t.details;
  j["shape"] = t.shape;
  j["hidden"] = t.hidden;
  j["label"] = t.label;
  if (!t.regime.empty()) j["regime"] = t.regime;
  j["flops"] = t.flops;
  if (t.sustained) {
    j["sustained"] = *t.sustained;
    if (t.sustained->error.empty() && t.flops > 0) {
      j["sustained"]["candidate_tflops"] = t.flops / (t.sustained->candidate.median * 1e-6) / 1e12;
      j["sustained"]["baseline_tflops"] = t.flops / (t.sustained->baseline.median * 1e-6) / 1e12;
    }
  }
  if (!t.error.empty()) {
    j["error"] = t.error;
    return;
  }
  j["candidate"] = t.candidate;
  j["baseline"] = t.baseline;
  j["speedup"] = t.speedup;
  put_optional(j, "verified", t.verified);
  j["candidate_tflops"] = t.candidate_tflops();
  j["baseline_tflops"] = t.baseline_tflops();
  j["fraction_of_library"] = t.baseline.median / t.candidate.median;
  if (const auto fraction = t.fraction_of_peak()) {
    j["peak_tflops"] = *t.peak_tflops;
    j["fraction_of_peak"] = *fraction;
  }
  if (t.bytes > 0) {
    j["bytes"] = t.bytes;
    j["arithmetic_intensity"] = t.flops / t.bytes;
  }
  if (t.peak_gbs && *t.peak_gbs > 0) {
    j["peak_gbs"] = *t.peak_gbs;
    if (const auto fraction = t.fraction_of_bandwidth()) {
      j["memory_bound"] = true;
      j["fraction_of_bandwidth"] = *fraction;
    }
  }
}

bool ShapeTiming::memory_bound() const {
  if (bytes <= 0 || !peak_gbs || *peak_gbs <= 0 || !peak_tflops || *peak_tflops <= 0) return false;
  const double ridge = *peak_tflops * 1e12 / (*peak_gbs * 1e9);  // FLOPs per byte
  return flops / bytes < ridge;
}

std::optional<double> ShapeTiming::fraction_of_peak() const {
  if (!peak_tflops || *peak_tflops <= 0) return std::nullopt;
  return candidate_tflops() / *peak_tflops;
}

std::optional<double> ShapeTiming::fraction_of_bandwidth() const {
  if (!memory_bound()) return std::nullopt;
  return bytes / (candidate.median * 1e-6) / 1e9 / *peak_gbs;
}

void from_json(const json& j, ShapeTiming& t) {
  t.shape = j.at("shape");
  t.hidden = j.value("hidden", false);
  t.label = j.value("label", std::string());
  t.regime = j.value("regime", std::string());
  t.flops = j.value("flops", 0.0);
  t.error = j.value("error", std::string());
  if (t.error.empty()) {
    t.candidate = j.at("candidate").get<Interval>();
    t.baseline = j.at("baseline").get<Interval>();
    t.speedup = j.at("speedup").get<Interval>();
  }
  t.verified = get_optional<bool>(j, "verified");
  t.peak_tflops = get_optional<double>(j, "peak_tflops");
  t.bytes = j.value("bytes", 0.0);
  t.peak_gbs = get_optional<double>(j, "peak_gbs");
  if (j.contains("sustained")) t.sustained = j["sustained"].get<SustainedTiming>();
  t.details = json::object();
  for (const auto& [key, value] : j.items())
    if (std::find(std::begin(kTimingKeys), std::end(kTimingKeys), key) == std::end(kTimingKeys))
      t.details[key] = value;
}

std::vector<RegimeSpeedup> regime_speedups(const std::vector<ShapeTiming>& timing) {
  std::vector<RegimeSpeedup> out;
  std::vector<double> log_sums, sustained_log_sums;
  for (const ShapeTiming& t : timing) {
    if (t.regime.empty() || !t.error.empty() || !(t.speedup.median > 0)) continue;
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const RegimeSpeedup& r) { return r.regime == t.regime; });
    if (it == out.end()) {
      out.push_back({t.regime, 0, 0, 0.0});
      log_sums.push_back(0);
      sustained_log_sums.push_back(0);
      it = out.end() - 1;
    }
    const size_t i = static_cast<size_t>(it - out.begin());
    ++it->shapes;
    log_sums[i] += std::log(t.speedup.median);
    if (it->sustained_geomean && t.sustained && t.sustained->error.empty() &&
        t.sustained->speedup.median > 0)
      sustained_log_sums[i] += std::log(t.sustained->speedup.median);
    else
      it->sustained_geomean.reset();
  }
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].geomean = std::exp(log_sums[i] / out[i].shapes);
    if (out[i].sustained_geomean)
      out[i].sustained_geomean = std::exp(sustained_log_sums[i] / out[i].shapes);
  }
  return out;
}

void to_json(json& j, const RegimeSpeedup& r) {
  j = {{"regime", r.regime}, {"shapes", r.shapes}, {"geomean", r.geomean}};
  put_optional(j, "sustained_geomean", r.sustained_geomean);
}

}  // namespace ptxb
