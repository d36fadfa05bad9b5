// The check macro for libcurl set-up calls (STYLE.md rule 6): a CURLcode other than CURLE_OK
// throws ApiError through ptxb::throw_api, naming the call, the code and libcurl's text. Only for
// calls whose failure means the transport is unusable (init, setopt); the outcome of a transfer
// (curl_easy_perform) is a value, HttpResponse::error, never passed through this macro.
#pragma once

#include <curl/curl.h>

#include "core/error.hpp"

#define PTXB_CHECK_CURL(call)                                                                   \
  do {                                                                                          \
    const CURLcode ptxb_cc_ = (call);                                                           \
    if (ptxb_cc_ != CURLE_OK)                                                                   \
      ::ptxb::throw_api("libcurl", #call, ptxb_cc_, curl_easy_strerror(ptxb_cc_), "", __FILE__, \
                        __LINE__);                                                              \
  } while (0)
