// A small SVG writer (no libraries): elements are opened and closed in order, attribute values
// and text are escaped, and finish() refuses a document with an element left open.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ptxb {

/// Attributes in the order they are written.
using SvgAttrs = std::vector<std::pair<std::string, std::string>>;

/// `text` with &, <, >, " and ' replaced by entities (valid in attributes and content).
std::string svg_escape(std::string_view text);

/// A coordinate or length: two decimals, trailing zeros dropped ("12.5", "40").
std::string svg_number(double value);

/// Writes one SVG document. Not thread-safe; one writer per document.
class SvgWriter {
 public:
  /// Starts the document: XML declaration and the root <svg> of `width` x `height` user units.
  SvgWriter(double width, double height);

  /// <tag attrs...>, to be closed by close().
  void open(std::string_view tag, const SvgAttrs& attrs = {});
  /// Closes the innermost open element; PTXB_ASSERT when only the root is open.
  void close();
  /// <tag attrs.../>
  void leaf(std::string_view tag, const SvgAttrs& attrs);
  /// <tag attrs...>escaped text</tag>
  void text(std::string_view tag, const SvgAttrs& attrs, std::string_view content);
  /// Closes the root and returns the document; PTXB_ASSERT when an element is still open.
  std::string finish();

 private:
  void start_tag(std::string_view tag, const SvgAttrs& attrs);

  std::string out_;
  std::vector<std::string> open_;  ///< tags opened and not yet closed, root first
  bool finished_ = false;
};

}  // namespace ptxb
