// Errors of PTXBench itself, kept apart from verdicts on candidates (STYLE.md, conventions 6).
// A broken invariant of ours -> PTXB_ASSERT -> InternalError; a failing API -> ApiError.
// A verdict on a candidate is never an exception: it is an Outcome value.
#pragma once

#include <stdexcept>
#include <string>

namespace ptxb {

/// A PTXBench bug: an invariant of ours did not hold. Message carries file:line.
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

/// A failing external API or system call (CUDA, cuBLASLt, POSIX, files). Message names the API,
/// the call, the code and its text.
class ApiError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Invalid user input that is not a candidate (task file, flags, paths): message names the
/// file, the field and the problem.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void throw_internal(const char* expr, const char* file, int line,
                                 const std::string& msg);
[[noreturn]] void throw_api(const char* api, const char* call, long long code,
                            const std::string& name, const std::string& text, const char* file,
                            int line);

}  // namespace ptxb

#define PTXB_ASSERT(cond, msg)                                             \
  do {                                                                     \
    if (!(cond)) ::ptxb::throw_internal(#cond, __FILE__, __LINE__, (msg)); \
  } while (0)
