// Where the worker's wall time goes: seconds summed per named phase ("setup",
// "correctness.references", "timing.rounds", ...), sent in one "phases" message before "done" and
// kept in the verdict's stage_seconds.worker_phases (docs/result-schema.md). Host wall clock: GPU
// work a phase waits for counts to it. A name with a dot is a part of the phase before the dot,
// and "a.b.c" a part of "a.b": parts may overlap their phase, never each other (but a counter
// phase's ".passes" lies inside its ".pop"). Names with a
// "device" component ("timing.rounds.device.calls") hold GPU time from events, which overlaps the
// host phases beside them.
#pragma once

#include <chrono>
#include <cmath>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace ptxb {

class PhaseClock {
 public:
  using Clock = std::chrono::steady_clock;

  /// Adds the time from its creation to its end (scope exit) to `name`.
  class Span {
   public:
    Span(PhaseClock& clock, std::string name)
        : clock_(clock), name_(std::move(name)), start_(Clock::now()) {}
    ~Span() { clock_.add(name_, std::chrono::duration<double>(Clock::now() - start_).count()); }
    Span(const Span&) = delete;
    Span& operator=(const Span&) = delete;

   private:
    PhaseClock& clock_;
    std::string name_;
    Clock::time_point start_;
  };

  [[nodiscard]] Span span(std::string name) { return Span(*this, std::move(name)); }
  void add(const std::string& name, double seconds) { seconds_[name] += seconds; }

  /// {"phase": seconds}, to the millisecond.
  nlohmann::json to_json() const {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [name, s] : seconds_) out[name] = std::round(s * 1000.0) / 1000.0;
    return out;
  }

 private:
  std::map<std::string, double> seconds_;
};

}  // namespace ptxb
