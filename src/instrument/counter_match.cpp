#include "instrument/counter_match.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ptxb {

using nlohmann::json;

bool counts_differ(double timed, double profiled, double tolerance) {
  return std::fabs(timed - profiled) > tolerance * std::max(std::fabs(timed), std::fabs(profiled));
}

std::string missing_counter(const std::vector<ProfiledKernel>& call_kernels,
                            const std::vector<CounterSpec>& counters) {
  for (const ProfiledKernel& k : call_kernels)
    for (const CounterSpec& c : counters)
      if (!metric_of(k, c.metric)) return c.metric + " for kernel " + k.name;
  return "";
}

std::map<std::string, double> profiled_counts(const std::vector<ProfiledKernel>& call_kernels,
                                              const std::vector<CounterSpec>& counters) {
  std::map<std::string, double> out;
  for (const CounterSpec& c : counters) {
    bool seen = false;
    double sum = 0;
    for (const ProfiledKernel& k : call_kernels) {
      if (const auto v = metric_of(k, c.metric)) {
        sum += *v;
        seen = true;
      }
    }
    // NOTE: a call without kernels counts 0 of everything; a kernel list without the metric
    // means ncu did not collect it (absent, not 0).
    if (seen || call_kernels.empty()) out[c.metric] = sum;
  }
  return out;
}

CounterMatch match_counters(const std::vector<CounterSpec>& counters,
                            const std::vector<TimedShapeCounts>& timed,
                            const std::map<std::string, std::map<std::string, double>>& profiled) {
  CounterMatch out;
  for (const TimedShapeCounts& shape : timed) {
    const auto p = profiled.find(shape.label);
    if (p == profiled.end()) continue;
    for (const CountedCalls& g : shape.groups) {
      out.calls_compared += g.count;
      bool group_off = false;
      if (g.values.size() < counters.size())
        out.unmeasured.push_back(shape.label + ": the timed calls have " +
                                 std::to_string(g.values.size()) + " counter values, not " +
                                 std::to_string(counters.size()));
      for (size_t m = 0; m < counters.size() && m < g.values.size(); ++m) {
        const auto want = p->second.find(counters[m].metric);
        if (want == p->second.end()) {
          out.unmeasured.push_back(shape.label + ": the profiled call has no " +
                                   counters[m].metric);
          continue;
        }
        if (!counts_differ(g.values[m], want->second, counters[m].tolerance)) continue;
        out.mismatches.push_back(
            {shape.label, counters[m].metric, g.values[m], want->second, g.calls, g.count});
        group_off = true;
      }
      if (group_off) out.calls_mismatched += g.count;
    }
  }
  return out;
}

std::string CounterMatch::reason() const {
  if (mismatches.empty()) return "";
  const CounterMismatch& m = mismatches.front();
  std::string calls;
  for (size_t i = 0; i < m.calls.size() && i < 2; ++i)
    calls += (i == 0 ? "" : " and ") + std::to_string(m.calls[i]);
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "%s %.0f in %lld timed call(s) (e.g. call %s), %.0f in the "
                "profiled call",
                m.metric.c_str(), m.timed, static_cast<long long>(m.count), calls.c_str(),
                m.profiled);
  return "at " + m.label + ": " + buf + "; " + std::to_string(calls_mismatched) + " of " +
         std::to_string(calls_compared) + " counted calls differ";
}

json CounterMatch::to_json() const {
  json mism = json::array();
  for (const CounterMismatch& m : mismatches)
    mism.push_back({{"shape", m.label},
                    {"metric", m.metric},
                    {"timed", m.timed},
                    {"profiled", m.profiled},
                    {"calls", m.calls},
                    {"count", m.count}});
  json out = {{"calls_compared", calls_compared},
              {"calls_mismatched", calls_mismatched},
              {"confirmed", confirmed()},
              {"mismatches", mism}};
  if (!unmeasured.empty()) out["unmeasured"] = unmeasured;
  return out;
}

}  // namespace ptxb
