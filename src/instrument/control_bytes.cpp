#include "instrument/control_bytes.hpp"

#include <cstdio>
#include <limits>
#include <optional>

#include "controls/evidence_names.hpp"

namespace ptxb {
namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

std::optional<double> other_read_floor(const std::string& metric) {
  for (const ControlReadBytes& r : kEvidenceControlOtherReads)
    if (metric == r.metric) return r.bytes;
  return std::nullopt;
}

// Checks one metric: the live control within [lo, hi], the dead one 0. Returns the live value.
std::optional<double> check_metric(const std::string& metric, double lo, double hi,
                                   const ProfiledKernel& positive, const ProfiledKernel& negative,
                                   ControlBytes& out) {
  const auto live = metric_of(positive, metric), dead = metric_of(negative, metric);
  if (!live || !dead) {
    if (out.problem.empty()) out.problem = "ncu reported no " + metric + " for the controls";
    return std::nullopt;
  }
  out.detail[metric] = *live;
  if (out.problem.empty() && (*live < lo || *live > hi))
    out.problem = "the positive control's " + metric + " is " + number(*live) + " bytes where it " +
                  (lo == hi ? "loads " + number(lo) : "reads at least " + number(lo));
  if (out.problem.empty() && *dead != 0)
    out.problem = "the negative control's " + metric + " is " + number(*dead) + " bytes, not 0";
  return live;
}

}  // namespace

ControlBytes check_control_bytes(const InstructionEntry& entry, const TargetSpec& target,
                                 const ProfiledKernel& positive, const ProfiledKernel& negative) {
  ControlBytes out;
  if (!entry.moved_bytes_metric.empty())
    check_metric(entry.moved_bytes_metric, kEvidenceControlTmaLoadBytes,
                 kEvidenceControlTmaLoadBytes, positive, negative, out);
  if (entry.other_read_metrics.empty() || !target.max_other_read_input_share) return out;
  double sum = 0, floors = kEvidenceControlNonCoherentReadBytes;
  for (const std::string& metric : entry.other_read_metrics) {
    const std::optional<double> floor = other_read_floor(metric);
    if (!floor) {
      if (out.problem.empty())
        out.problem = "the evidence control has no load that " + metric +
                      " counts (controls/evidence_names.hpp)";
      continue;
    }
    floors += *floor;
    sum += check_metric(metric, *floor, std::numeric_limits<double>::infinity(), positive, negative,
                        out)
               .value_or(0);
  }
  if (out.problem.empty() && sum < floors)
    out.problem = "the positive control's other reads sum to " + number(sum) +
                  " bytes where it reads at least " + number(floors) +
                  " (its ld.global.nc loads are missing from them)";
  return out;
}

}  // namespace ptxb
