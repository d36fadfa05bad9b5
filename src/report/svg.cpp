#include "report/svg.hpp"

#include "core/error.hpp"
#include "report/format.hpp"

namespace ptxb {

std::string svg_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string svg_number(double value) {
  std::string s = format_fixed(value, 2);
  PTXB_ASSERT(s != "n/a", "non-finite SVG coordinate");
  s.erase(s.find_last_not_of('0') + 1);
  if (s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

SvgWriter::SvgWriter(double width, double height) {
  out_ = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  open("svg", {{"xmlns", "http://www.w3.org/2000/svg"},
               {"width", svg_number(width)},
               {"height", svg_number(height)},
               {"viewBox", "0 0 " + svg_number(width) + " " + svg_number(height)},
               {"font-family", "sans-serif"},
               {"font-size", "12"}});
}

void SvgWriter::start_tag(std::string_view tag, const SvgAttrs& attrs) {
  PTXB_ASSERT(!finished_, "SVG element written after finish()");
  out_ += std::string(open_.size(), ' ');
  out_ += "<";
  out_ += tag;
  for (const auto& [name, value] : attrs) out_ += " " + name + "=\"" + svg_escape(value) + "\"";
}

void SvgWriter::open(std::string_view tag, const SvgAttrs& attrs) {
  start_tag(tag, attrs);
  out_ += ">\n";
  open_.emplace_back(tag);
}

void SvgWriter::close() {
  PTXB_ASSERT(open_.size() > 1, "SvgWriter::close() with no element open below the root");
  const std::string tag = std::move(open_.back());
  open_.pop_back();
  out_ += std::string(open_.size(), ' ') + "</" + tag + ">\n";
}

void SvgWriter::leaf(std::string_view tag, const SvgAttrs& attrs) {
  start_tag(tag, attrs);
  out_ += "/>\n";
}

void SvgWriter::text(std::string_view tag, const SvgAttrs& attrs, std::string_view content) {
  start_tag(tag, attrs);
  out_ += '>';
  out_ += svg_escape(content);
  out_ += "</";
  out_ += tag;
  out_ += ">\n";
}

std::string SvgWriter::finish() {
  PTXB_ASSERT(!finished_, "SvgWriter::finish() called twice");
  PTXB_ASSERT(open_.size() == 1, "SVG finished with <" + open_.back() + "> still open");
  open_.clear();
  out_ += "</svg>\n";
  finished_ = true;
  return std::move(out_);
}

}  // namespace ptxb
