// Number formatting shared by the report's renderers (Markdown, CSV, SVG): fixed decimals for
// people, the shortest round-trip text for machines.
#pragma once

#include <optional>
#include <string>

#include "report/report.hpp"

namespace ptxb {

/// `value` with `decimals` digits after the point ("1.19"); non-finite values as "n/a".
std::string format_fixed(double value, int decimals);

/// The shortest text that reads back as the same double ("0.1", "2.5e-07"); "" when absent or
/// not finite (a NaN latency in the store must not make a CSV that no tool reads).
std::string format_shortest(std::optional<double> value);

/// A rate for people: "80.0% (4/5)", or "n/a (0/0)".
std::string format_rate(const Rate& rate);

/// A tick or price label: "0.5", "1", "10" (%g of a small decimal).
std::string format_label(double value);

/// A fast_p threshold in a column name: "0.5", "1.0", "2.0" (an integer keeps one decimal).
std::string format_threshold(double p);

}  // namespace ptxb
