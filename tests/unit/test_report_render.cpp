// Report renderers: CSV and JSON structure and numbers, Markdown tables, SVG well-formedness and
// one series per model, and empty-but-valid output for no rows.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "core/error.hpp"
#include "report/render.hpp"
#include "report/svg.hpp"
#include "test_report_fixture.hpp"

namespace ptxb {
namespace {

using nlohmann::json;
using report_test::Dataset;
using report_test::evaluation;
using report_test::kG1;
using report_test::make_dataset;

// Splits one CSV line (RFC 4180 quoting) into fields.
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      out.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream is(text);
  for (std::string line; std::getline(is, line);) out.push_back(line);
  return out;
}

// Checks that the document is one <svg> element with balanced tags; returns the data-model
// attribute of every <g class="series">.
std::vector<std::string> svg_series(const std::string& svg) {
  std::vector<std::string> stack, series;
  int roots = 0;
  size_t pos = 0;
  while ((pos = svg.find('<', pos)) != std::string::npos) {
    const size_t end = svg.find('>', pos);
    EXPECT_NE(end, std::string::npos) << "unterminated tag at " << pos;
    if (end == std::string::npos) break;
    const std::string tag = svg.substr(pos + 1, end - pos - 1);
    pos = end + 1;
    if (tag.starts_with("?")) continue;  // the XML declaration
    if (tag.starts_with("/")) {
      EXPECT_FALSE(stack.empty()) << "closing </" << tag << "> with nothing open";
      if (stack.empty()) break;
      EXPECT_EQ(tag.substr(1), stack.back());
      stack.pop_back();
      continue;
    }
    const std::string name = tag.substr(0, tag.find_first_of(" /"));
    if (stack.empty()) {
      ++roots;
      EXPECT_EQ(name, "svg");
    }
    if (name == "g" && tag.find("class=\"series\"") != std::string::npos) {
      const size_t a = tag.find("data-model=\"") + 12;
      series.push_back(tag.substr(a, tag.find('"', a) - a));
    }
    if (!tag.ends_with("/")) stack.push_back(name);
  }
  EXPECT_TRUE(stack.empty()) << "unclosed <" << (stack.empty() ? "" : stack.back()) << ">";
  EXPECT_EQ(roots, 1);
  return series;
}

class ReportRender : public ::testing::Test {
 protected:
  Dataset data_ = make_dataset();
  Report report_ = build_report(data_.rows);
};

TEST_F(ReportRender, CsvHasOneRowPerModelAndFamilyWithTheNumbers) {
  const auto rows = lines(render_csv(report_));
  ASSERT_EQ(rows.size(), 7u);  // header + (gemm, attention_fwd, all) x 2 models
  const auto header = csv_fields(rows[0]);
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < header.size(); ++i) col[header[i]] = i;
  for (const char* name : {"model", "family", "success_k", "success_rate", "speedup_geomean",
                           "fast_0.5", "fast_0.8", "fast_1.0", "success_by_turn_3", "cost_usd"})
    EXPECT_TRUE(col.contains(name)) << name;
  EXPECT_FALSE(col.contains("success_by_turn_4"));
  std::vector<std::vector<std::string>> f;
  for (size_t i = 1; i < rows.size(); ++i) {
    f.push_back(csv_fields(rows[i]));
    EXPECT_EQ(f.back().size(), header.size()) << rows[i];
  }
  EXPECT_EQ(f[0][col["model"]], "alpha");
  EXPECT_EQ(f[0][col["family"]], "gemm");
  EXPECT_EQ(f[2][col["family"]], "all");
  EXPECT_EQ(f[2][col["success_k"]], "4");
  EXPECT_EQ(f[2][col["success_n"]], "5");
  EXPECT_EQ(f[2][col["success_rate"]], "0.8");
  EXPECT_EQ(f[2][col["targets_executed_k"]], "4");
  EXPECT_NEAR(std::stod(f[2][col["speedup_geomean"]]), 1.1557253376, 1e-9);
  EXPECT_EQ(f[2][col["fast_1.0_k"]], "2");
  EXPECT_EQ(f[2][col["fast_1.0"]], "0.4");
  EXPECT_EQ(f[2][col["success_by_turn_1"]], "0.4");  // 2/5
  EXPECT_NEAR(std::stod(f[2][col["cost_usd"]]), 0.0672, 1e-12);
  EXPECT_EQ(f[2][col["prompt_tokens"]], "17200");
  EXPECT_EQ(f[2][col["no_code_attempts"]], "1");
  EXPECT_EQ(f[3][col["model"]], "beta");
  EXPECT_EQ(f[5][col["cost_usd"]], "");  // beta has no prices
  EXPECT_EQ(f[3][col["fast_0.5"]], "0");
}

TEST_F(ReportRender, CsvQuotesFieldsWithCommasAndQuotes) {
  Dataset d;
  const RunRecord* run = d.run("r", "vendor/model, \"large\"", json::object());
  d.add(run, kG1, 0, 1, 10, 10, 1, evaluation("passed", 1, {1.0}));
  const auto rows = lines(render_csv(build_report(d.rows)));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_TRUE(rows[1].starts_with("\"vendor/model, \"\"large\"\"\","));
  EXPECT_EQ(csv_fields(rows[1])[0], "vendor/model, \"large\"");
}

TEST_F(ReportRender, JsonCarriesEveryNumberUnderASchema) {
  const json j = json::parse(render_json(report_));
  EXPECT_EQ(j, report_to_json(report_));
  EXPECT_EQ(j["schema"], kReportSchemaVersion);
  EXPECT_EQ(j["kind"], "ptxbench.report");
  EXPECT_EQ(j["turns"], 3);
  EXPECT_EQ(j["options"]["speedup_floor"], 0.1);
  EXPECT_EQ(j["options"]["speedup_cap"], 10.0);
  EXPECT_EQ(j["options"]["grouping"], "model");
  ASSERT_EQ(j["runs"].size(), 2u);
  EXPECT_TRUE(j["runs"][1]["price_prompt_per_mtok"].is_null());
  ASSERT_EQ(j["entries"].size(), 2u);
  const json& alpha = j["entries"][0];
  EXPECT_EQ(alpha["rank"], 1);
  EXPECT_EQ(alpha["name"], "alpha");
  EXPECT_EQ(alpha["all"]["success"], (json{{"k", 4}, {"n", 5}, {"rate", 0.8}}));
  EXPECT_EQ(alpha["all"]["speedup"]["count"], 4);
  EXPECT_NEAR(alpha["all"]["speedup"]["median"].get<double>(), 1.2398979486, 1e-9);
  ASSERT_EQ(alpha["all"]["fast_p"].size(), 3u);
  EXPECT_EQ(alpha["all"]["fast_p"][1]["p"], 0.8);
  EXPECT_EQ(alpha["all"]["fast_p"][1]["k"], 3);
  ASSERT_EQ(alpha["all"]["success_by_turn"].size(), 3u);
  EXPECT_EQ(alpha["all"]["success_by_turn"][2]["turn"], 3);
  EXPECT_EQ(alpha["all"]["success_by_turn"][2]["k"], 4);
  EXPECT_EQ(alpha["families"].size(), 2u);
  EXPECT_EQ(alpha["families"][0]["family"], "gemm");
  ASSERT_EQ(alpha["samples"].size(), 5u);
  EXPECT_TRUE(alpha["samples"][0]["first_success_turn"].is_null());
  EXPECT_TRUE(alpha["samples"][0]["speedup"].is_null());
  EXPECT_EQ(alpha["samples"][3]["best_turn"], 3);
  EXPECT_TRUE(j["entries"][1]["all"]["cost_usd"].is_null());
  ASSERT_EQ(j["audit"].size(), 2u);
  EXPECT_EQ(j["audit"][0]["turn"], 3);
  EXPECT_EQ(j["audit"][1]["model"], "beta");
}

TEST_F(ReportRender, MarkdownShowsTheTables) {
  const std::string md = render_markdown(report_);
  for (const char* section : {"## Runs", "## Leaderboard", "## By task family",
                              "## Success by turn", "## Tokens, cost and time", "## Audit"})
    EXPECT_NE(md.find(section), std::string::npos) << section;
  // Leaderboard row of alpha: rank, name, tasks, samples, compiled, correct, targets, success,
  // speedups (geomean, median, count, sustained geomean: none measured in these rows), fast_p.
  EXPECT_NE(md.find("| 1 | alpha | 3 | 5 | 100.0% (5/5) | 100.0% (5/5) | 80.0% (4/5) | "
                    "80.0% (4/5) | 1.16x | 1.24x | 4 | n/a | 80.0% (4/5) | 60.0% (3/5) | "
                    "40.0% (2/5) |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| beta | all | all | 6050 | 1800 | n/a | 45.0 | 84.0 | 0 | 0 | 0 |"),
            std::string::npos);
  EXPECT_NE(md.find("| alpha | all | all | 17200 | 4100 | 0.0672 | 98.0 | 157.0 | 1 | 1 | 0 |"),
            std::string::npos);
  EXPECT_NE(md.find("| alpha | all | all | 40.0% (2/5) | 60.0% (3/5) | 80.0% (4/5) |"),
            std::string::npos);
  EXPECT_NE(md.find("speedup 20.00x above 1.15x the library; second flag"), std::string::npos);
}

TEST_F(ReportRender, MarkdownEscapesPipesAndLineBreaks) {
  Dataset d;
  const RunRecord* run = d.run("r", "m", json::object());
  EvaluationRecord e = evaluation("passed", 1, {1.0});
  e.audit = true;
  e.verdict["audit"] = {"a|b\nc"};
  d.add(run, kG1, 0, 1, 10, 10, 1, e);
  EXPECT_NE(render_markdown(build_report(d.rows)).find("| a\\|b c |"), std::string::npos);
}

TEST_F(ReportRender, SvgPlotsAreBalancedWithOneSeriesPerModel) {
  const std::vector<std::string> models = {"alpha", "beta"};
  const std::string speed = render_speedup_svg(report_);
  EXPECT_EQ(svg_series(speed), models);
  // One marker per successful timed sample: alpha 4, beta 2.
  size_t circles = 0;
  for (size_t p = 0; (p = speed.find("<circle", p)) != std::string::npos; ++p) ++circles;
  EXPECT_EQ(circles, 6u);
  EXPECT_NE(speed.find(">10x<"), std::string::npos);  // log axis ticks from floor to cap
  EXPECT_NE(speed.find(">0.1x<"), std::string::npos);
  const std::string turns = render_success_by_turn_svg(report_);
  EXPECT_EQ(svg_series(turns), models);
  EXPECT_NE(turns.find("alpha, turn 3: 80.0% (4/5)"), std::string::npos);
}

TEST(ReportRenderEmpty, EmptyInputGivesEmptyButValidOutputs) {
  const Report r = build_report({});
  const auto csv = lines(render_csv(r));
  ASSERT_EQ(csv.size(), 1u);  // the header only
  EXPECT_TRUE(csv[0].starts_with("model,arch,family,"));
  const json j = json::parse(render_json(r));
  EXPECT_EQ(j["schema"], kReportSchemaVersion);
  EXPECT_TRUE(j["entries"].is_array() && j["entries"].empty());
  EXPECT_TRUE(j["audit"].is_array() && j["audit"].empty());
  EXPECT_NE(render_markdown(r).find("No attempts to report."), std::string::npos);
  EXPECT_TRUE(svg_series(render_speedup_svg(r)).empty());
  EXPECT_TRUE(svg_series(render_success_by_turn_svg(r)).empty());
}

TEST(ReportSvg, WriterEscapesAndRefusesUnbalancedDocuments) {
  SvgWriter w(10, 10);
  w.open("g", {{"data-model", "a\"<&>'"}});
  w.text("text", {}, "x < y & z");
  w.close();
  const std::string doc = w.finish();
  EXPECT_NE(doc.find("data-model=\"a&quot;&lt;&amp;&gt;&apos;\""), std::string::npos);
  EXPECT_NE(doc.find(">x &lt; y &amp; z</text>"), std::string::npos);
  EXPECT_TRUE(svg_series(doc).empty());

  SvgWriter open_left(10, 10);
  open_left.open("g");
  EXPECT_THROW(open_left.finish(), InternalError);
  SvgWriter root_only(10, 10);
  EXPECT_THROW(root_only.close(), InternalError);
  EXPECT_EQ(svg_number(12.5), "12.5");
  EXPECT_EQ(svg_number(40), "40");
  EXPECT_EQ(svg_number(-0.001), "0");
}

}  // namespace
}  // namespace ptxb
