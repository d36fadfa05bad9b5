// PTX text helpers for the S0 check.
#pragma once

#include <string>
#include <string_view>

namespace ptxb {

/// The PTX with every // line comment and /* */ block comment removed (line breaks kept, so line
/// numbers stay valid). Double-quoted strings (.file paths) are copied untouched.
std::string strip_ptx_comments(std::string_view ptx);

/// True when the ECMAScript regex `pattern` matches some line of `ptx` once comments are
/// stripped. Throws InputError naming the pattern when it is not a valid regex.
bool ptx_matches(std::string_view ptx, const std::string& pattern);

}  // namespace ptxb
