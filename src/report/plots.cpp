// The report's SVG plots (docs/report.md, "Plots"): a strip plot of sample speedups on a log axis
// and success-by-turn curves. Each entry is one <g class="series" data-model="..."> so that a
// reader (or a test) finds one series per model; colours cycle through a fixed palette.
#include <algorithm>
#include <cmath>

#include "report/format.hpp"
#include "report/render.hpp"
#include "report/svg.hpp"

namespace ptxb {
namespace {

constexpr double kWidth = 760;
constexpr double kTop = 50;
constexpr double kBottom = 50;

// Tableau 10: distinct for the usual handful of models and readable when printed.
const char* color(size_t i) {
  static constexpr const char* kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                             "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
  return kPalette[i % (sizeof kPalette / sizeof kPalette[0])];
}

std::string num(double v) { return svg_number(v); }

void line(SvgWriter& w, double x1, double y1, double x2, double y2, const std::string& stroke,
          double width, const std::string& dash = "") {
  SvgAttrs a = {{"x1", num(x1)}, {"y1", num(y1)},    {"x2", num(x2)},
                {"y2", num(y2)}, {"stroke", stroke}, {"stroke-width", num(width)}};
  if (!dash.empty()) a.emplace_back("stroke-dasharray", dash);
  w.leaf("line", a);
}

void label(SvgWriter& w, double x, double y, const std::string& anchor, const std::string& text,
           const std::string& extra_size = "") {
  SvgAttrs a = {{"x", num(x)}, {"y", num(y)}, {"text-anchor", anchor}};
  if (!extra_size.empty()) a.emplace_back("font-size", extra_size);
  w.text("text", a, text);
}

// A marker with a tooltip (<title> child).
void dot(SvgWriter& w, double x, double y, double r, const std::string& fill,
         const std::string& tip) {
  w.open("circle", {{"cx", num(x)}, {"cy", num(y)}, {"r", num(r)}, {"fill", fill}});
  w.text("title", {}, tip);
  w.close();
}

// The 1-2-5 ticks of every decade inside [lo, hi].
std::vector<double> log_ticks(double lo, double hi) {
  std::vector<double> ticks;
  for (int d = static_cast<int>(std::floor(std::log10(lo)));
       d <= static_cast<int>(std::ceil(std::log10(hi))); ++d)
    for (double m : {1.0, 2.0, 5.0}) {
      const double v = m * std::pow(10.0, d);
      if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) ticks.push_back(v);
    }
  return ticks;
}

}  // namespace

std::string render_speedup_svg(const Report& r) {
  constexpr double kLeft = 150, kRight = 30, kLane = 40;
  const double lo = r.options.speedup_floor, hi = r.options.speedup_cap;
  const size_t lanes = std::max<size_t>(1, r.entries.size());
  const double plot_w = kWidth - kLeft - kRight;
  const double bottom = kTop + kLane * static_cast<double>(lanes);
  const double height = bottom + kBottom;
  auto x_of = [&](double s) {
    if (hi <= lo) return kLeft + plot_w / 2;
    return kLeft + (std::log(s) - std::log(lo)) / (std::log(hi) - std::log(lo)) * plot_w;
  };

  SvgWriter w(kWidth, height);
  w.text("title", {}, "PTXBench: sample speedup over the library, successful samples");
  label(w, kWidth / 2, 22, "middle",
        "Sample speedup vs library (successful samples; shapes clamped to [" + format_label(lo) +
            ", " + format_label(hi) + "], log axis)",
        "14");
  for (size_t i = 0; i < lanes; ++i)  // alternate lane shading
    if (i % 2 == 1)
      w.leaf("rect", {{"x", num(kLeft)},
                      {"y", num(kTop + kLane * static_cast<double>(i))},
                      {"width", num(plot_w)},
                      {"height", num(kLane)},
                      {"fill", "#f4f4f4"}});
  for (double t : log_ticks(lo, hi)) {
    line(w, x_of(t), kTop, x_of(t), bottom, "#dddddd", 1);
    label(w, x_of(t), bottom + 16, "middle", format_label(t) + "x");
  }
  if (lo <= 1 && 1 <= hi) line(w, x_of(1), kTop, x_of(1), bottom, "#333333", 1.5, "4 3");
  line(w, kLeft, bottom, kLeft + plot_w, bottom, "#333333", 1);
  label(w, kLeft + plot_w / 2, bottom + 36, "middle",
        "speedup = library time / candidate time (dots: samples; bar: geomean; dashed: 1x)");
  if (r.entries.empty()) label(w, kLeft + 6, kTop + kLane / 2 + 4, "start", "no data");

  for (size_t i = 0; i < r.entries.size(); ++i) {
    const EntryReport& e = r.entries[i];
    const double center = kTop + kLane * (static_cast<double>(i) + 0.5);
    w.open("g", {{"class", "series"}, {"data-model", e.name}, {"fill", color(i)}});
    label(w, kLeft - 8, center + 4, "end", e.name);
    int j = 0;
    for (const SampleResult& s : e.samples) {
      if (!s.success || !s.speedup) continue;
      // NOTE: a fixed jitter pattern keeps the output deterministic (files diff cleanly).
      const double jitter = static_cast<double>((j++ * 7) % 9 - 4) * kLane * 0.08;
      dot(w, x_of(*s.speedup), center + jitter, 4, color(i),
          s.task_id + " #" + std::to_string(s.sample) + " (" + s.run +
              "): " + format_fixed(*s.speedup, 3) + "x");
    }
    if (const auto g = e.all.speedup.geomean) {
      w.open("line", {{"x1", num(x_of(*g))},
                      {"y1", num(center - kLane * 0.42)},
                      {"x2", num(x_of(*g))},
                      {"y2", num(center + kLane * 0.42)},
                      {"stroke", color(i)},
                      {"stroke-width", "3"}});
      w.text("title", {},
             e.name + " geomean " + format_fixed(*g, 3) + "x over " +
                 std::to_string(e.all.speedup.count) + " samples");
      w.close();
    } else {
      label(w, kLeft + 6, center + 4, "start", "no timed success");
    }
    w.close();
  }
  return w.finish();
}

std::string render_success_by_turn_svg(const Report& r) {
  constexpr double kLeft = 60, kRight = 180, kHeight = 380;
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  const int turns = r.turns;
  auto x_of = [&](int t) {
    if (turns <= 1) return kLeft + plot_w / 2;
    return kLeft + static_cast<double>(t - 1) / static_cast<double>(turns - 1) * plot_w;
  };
  auto y_of = [&](double f) { return kTop + (1 - f) * plot_h; };

  SvgWriter w(kWidth, kHeight);
  w.text("title", {}, "PTXBench: success by turn");
  label(w, kLeft + plot_w / 2, 22, "middle", "Samples succeeded at or before each turn", "14");
  for (int pct = 0; pct <= 100; pct += 25) {
    const double y = y_of(pct / 100.0);
    line(w, kLeft, y, kLeft + plot_w, y, pct == 0 ? "#333333" : "#dddddd", 1);
    label(w, kLeft - 6, y + 4, "end", std::to_string(pct) + "%");
  }
  for (int t = 1; t <= turns; ++t)
    label(w, x_of(t), kTop + plot_h + 16, "middle", std::to_string(t));
  label(w, kLeft + plot_w / 2, kTop + plot_h + 36, "middle", "turn");
  w.text("text",
         {{"x", "0"},
          {"y", "0"},
          {"text-anchor", "middle"},
          {"transform", "translate(16 " + num(kTop + plot_h / 2) + ") rotate(-90)"}},
         "samples succeeded");
  if (r.entries.empty() || turns == 0)
    label(w, kLeft + plot_w / 2, kTop + plot_h / 2, "middle", "no data");

  for (size_t i = 0; i < r.entries.size(); ++i) {
    const EntryReport& e = r.entries[i];
    w.open("g", {{"class", "series"}, {"data-model", e.name}});
    std::string points;
    for (int t = 1; t <= turns; ++t) {
      const auto f = e.all.success_by_turn[static_cast<size_t>(t - 1)].fraction();
      if (!f) continue;
      if (!points.empty()) points += ' ';
      points += num(x_of(t));
      points += ',';
      points += num(y_of(*f));
    }
    w.leaf("polyline",
           {{"points", points}, {"fill", "none"}, {"stroke", color(i)}, {"stroke-width", "2"}});
    for (int t = 1; t <= turns; ++t) {
      const Rate& rate = e.all.success_by_turn[static_cast<size_t>(t - 1)];
      if (const auto f = rate.fraction())
        dot(w, x_of(t), y_of(*f), 3.5, color(i),
            e.name + ", turn " + std::to_string(t) + ": " + format_rate(rate));
    }
    const double legend_y = kTop + 8 + 20 * static_cast<double>(i);
    const double legend_x = kWidth - kRight + 16;
    line(w, legend_x, legend_y, legend_x + 20, legend_y, color(i), 3);
    label(w, legend_x + 26, legend_y + 4, "start", e.name);
    w.close();
  }
  return w.finish();
}

}  // namespace ptxb
