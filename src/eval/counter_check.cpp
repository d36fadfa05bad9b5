#include "eval/counter_check.hpp"

#include <algorithm>

#include "instrument/counter_match.hpp"
#include "tasks/task_json.hpp"

namespace ptxb {

using nlohmann::json;

CounterCheck check_counters(const TaskSpec& task, const Catalog& catalog,
                            const json& worker_counters, const RuntimeJudgement& j) {
  CounterCheck out;
  const std::vector<CounterSpec> counters = catalog.counters_for(task.arch);
  json& rec = out.record;
  rec["metrics"] = json::array();
  for (const CounterSpec& c : counters)
    rec["metrics"].push_back({{"metric", c.metric}, {"tolerance", c.tolerance}});
  if (!j.available) {
    rec["skipped"] = "the runtime evidence is unavailable";
    return out;
  }
  const json setup = worker_counters.value("setup", json::object());
  if (!setup.value("ok", false)) {
    out.outcome = Outcome::kUnavailable;
    out.reason = "the hardware counters of the timed calls could not be read: " +
                 setup.value("problem", std::string("no counter setup reported"));
    rec["unavailable"] = out.reason;
    return out;
  }
  std::vector<TimedShapeCounts> timed;
  for (const json& m : worker_counters.value("shapes", json::array())) {
    const ShapeCase* sc = find_shape(task, m["shape"]);
    if (sc == nullptr) continue;
    TimedShapeCounts shape{shape_label(task, *sc), {}};
    for (const json& g : m["groups"])
      shape.groups.push_back({g["values"].get<std::vector<double>>(), g["count"].get<int64_t>(),
                              g["calls"].get<std::vector<int64_t>>()});
    timed.push_back(std::move(shape));
  }
  for (const auto& [label, values] : j.profiled_counters) {
    const bool counted = std::any_of(timed.begin(), timed.end(),
                                     [&](const TimedShapeCounts& t) { return t.label == label; });
    if (!counted) {
      out.outcome = Outcome::kUnavailable;
      out.reason = "no counted call at " + label + ", which was profiled";
      rec["unavailable"] = out.reason;
      return out;
    }
  }
  for (const TimedShapeCounts& t : timed)
    if (!j.profiled_counters.count(t.label)) {
      out.outcome = Outcome::kUnavailable;
      out.reason = "no profiled call at " + t.label + ", whose calls were counted";
      rec["unavailable"] = out.reason;
      return out;
    }
  const CounterMatch match = match_counters(counters, timed, j.profiled_counters);
  rec["match"] = match.to_json();
  if (!match.unmeasured.empty()) {
    out.outcome = Outcome::kUnavailable;
    out.reason = "the counters could not be compared: " + match.unmeasured.front();
    rec["unavailable"] = out.reason;
  } else if (match.confirmed()) {
    out.outcome = Outcome::kRejectedCheat;
    out.reason =
        "the profiled calls are not the timed calls (hardware counters differ): " + match.reason();
  } else if (match.calls_mismatched == 1) {
    out.audit.push_back("one counted call's hardware counters differ from the profiled call's: " +
                        match.reason());
  }
  return out;
}

}  // namespace ptxb
