// The libcurl transport against the scripted local server: statuses, headers, bodies, timeouts,
// refused and dropped connections, bad URLs, the response size limit, and the check macro.
#include <gtest/gtest.h>

#include <cstdlib>

#include "../llm/fake_server.hpp"
#include "core/error.hpp"
#include "llm/http_check.hpp"
#include "llm/http_curl.hpp"
#include "sys/files.hpp"

namespace ptxb {
namespace {

using json = nlohmann::json;
using std::chrono::milliseconds;
using testing::FakeOpenAiServer;

HttpRequest post_to(const std::string& url, milliseconds timeout = milliseconds(5000)) {
  return HttpRequest{url,
                     {{"Content-Type", "application/json"}, {"X-Test", "yes"}},
                     R"({"model":"m","messages":[]})",
                     timeout};
}

TEST(LlmHttp, PostsAndReadsStatusHeadersAndBody) {
  FakeOpenAiServer server(json{
      {"responses", {{{"status", 503}, {"headers", {{"Retry-After", "7"}}}, {"error", "busy"}}}}});
  CurlTransport transport;
  const HttpResponse r = transport.post(post_to(server.base_url() + "/chat/completions"));
  ASSERT_TRUE(r.transport_ok()) << r.error_text;
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.header("retry-after"), "7");  // case-insensitive lookup
  EXPECT_EQ(r.header("RETRY-AFTER"), "7");
  EXPECT_EQ(r.header("X-Missing"), std::nullopt);
  EXPECT_EQ(json::parse(r.body).at("error").at("message"), "busy");
  EXPECT_GT(r.elapsed_s, 0.0);

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].at("path"), "/v1/chat/completions");
  EXPECT_EQ(requests[0].at("body").at("model"), "m");
  EXPECT_EQ(requests[0].at("headers").at("X-Test"), "yes");
  EXPECT_FALSE(requests[0].at("headers").contains("Expect"));
}

TEST(LlmHttp, ManySequentialRequestsOnOneTransport) {
  FakeOpenAiServer server(json{{"default", {{"content", "hi"}}}});
  CurlTransport transport;
  for (int i = 0; i < 20; ++i) {
    const HttpResponse r = transport.post(post_to(server.base_url() + "/chat/completions"));
    ASSERT_EQ(r.status, 200) << r.error_text;
  }
  EXPECT_EQ(server.requests().size(), 20u);
}

TEST(LlmHttp, TimeoutIsAValue) {
  FakeOpenAiServer server(json{{"responses", {{{"delay_s", 3}, {"content", "late"}}}}});
  CurlTransport transport;
  const auto start = std::chrono::steady_clock::now();
  const HttpResponse r =
      transport.post(post_to(server.base_url() + "/chat/completions", milliseconds(300)));
  EXPECT_EQ(r.error, TransportError::kTimeout) << r.error_text;
  EXPECT_EQ(r.status, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(2000));
  EXPECT_NE(r.error_text.find("curl error 28"), std::string::npos) << r.error_text;
}

TEST(LlmHttp, NoTimeLeftMeansNoRequest) {
  CurlTransport transport;
  const HttpResponse r = transport.post(post_to("http://127.0.0.1:9/", milliseconds(0)));
  EXPECT_EQ(r.error, TransportError::kTimeout);
}

TEST(LlmHttp, RefusedConnection) {
  CurlTransport transport;
  const std::string url = "http://127.0.0.1:" + std::to_string(testing::closed_port()) + "/v1";
  const HttpResponse r = transport.post(post_to(url));
  EXPECT_EQ(r.error, TransportError::kConnect) << r.error_text;
}

TEST(LlmHttp, DroppedConnection) {
  FakeOpenAiServer server(json{{"responses", {{{"action", "close"}}}}});
  CurlTransport transport;
  const HttpResponse r = transport.post(post_to(server.base_url() + "/chat/completions"));
  EXPECT_EQ(r.error, TransportError::kNetwork) << r.error_text;
}

TEST(LlmHttp, BadUrlsAreFatal) {
  CurlTransport transport;
  for (const char* url : {"ftp://127.0.0.1/x", "file:///etc/passwd", "not a url", ""}) {
    const HttpResponse r = transport.post(post_to(url));
    EXPECT_EQ(r.error, TransportError::kFatal) << url << ": " << r.error_text;
  }
}

TEST(LlmHttp, OversizedResponseIsCutOff) {
  FakeOpenAiServer server(json{{"responses", {{{"content", std::string(100'000, 'x')}}}}});
  CurlOptions options;
  options.max_response_bytes = 10'000;
  CurlTransport transport(options);
  const HttpResponse r = transport.post(post_to(server.base_url() + "/chat/completions"));
  EXPECT_EQ(r.error, TransportError::kFatal);
  EXPECT_NE(r.error_text.find("larger than 10000 bytes"), std::string::npos) << r.error_text;
}

TEST(LlmHttp, CheckMacroThrowsApiErrorNamingTheCall) {
  try {
    PTXB_CHECK_CURL(curl_easy_setopt(nullptr, CURLOPT_URL, "x"));
    FAIL() << "no exception";
  } catch (const ApiError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("libcurl call `curl_easy_setopt(nullptr, CURLOPT_URL, \"x\")`"),
              std::string::npos)
        << what;
  }
  EXPECT_NO_THROW(PTXB_CHECK_CURL(CURLE_OK));
}

TEST(LlmHttp, TransportErrorNames) {
  EXPECT_EQ(transport_error_name(TransportError::kTimeout), "timeout");
  EXPECT_EQ(transport_error_name(TransportError::kConnect), "connect");
  EXPECT_EQ(transport_error_name(TransportError::kNetwork), "network");
  EXPECT_EQ(transport_error_name(TransportError::kFatal), "fatal");
}

/// A self-signed certificate for 127.0.0.1 (openssl), valid for a day, in `dir`.
FakeOpenAiServer::Tls self_signed_certificate(const std::filesystem::path& dir) {
  const FakeOpenAiServer::Tls tls{(dir / "cert.pem").string(), (dir / "key.pem").string()};
  const std::string cmd =
      "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1"
      " -addext subjectAltName=IP:127.0.0.1 -keyout " +
      tls.key + " -out " + tls.cert + " > /dev/null 2>&1";
  if (std::system(cmd.c_str()) != 0) throw std::runtime_error("openssl could not make a cert");
  return tls;
}

TEST(LlmHttp, HttpsWithTheServersAuthority) {
  TempDir dir("ptxb-tls");
  const FakeOpenAiServer::Tls tls = self_signed_certificate(dir.path());
  FakeOpenAiServer server(json{{"default", {{"content", "over tls"}}}}, tls);
  ASSERT_EQ(server.base_url().rfind("https://", 0), 0u);
  CurlOptions options;
  options.ca_file = tls.cert;
  CurlTransport transport(options);
  const HttpResponse r = transport.post(post_to(server.base_url() + "/chat/completions"));
  ASSERT_TRUE(r.transport_ok()) << r.error_text;
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(json::parse(r.body).at("choices").at(0).at("message").at("content"), "over tls");
}

TEST(LlmHttp, HttpsWithAnUnknownAuthorityIsRefused) {
  TempDir dir("ptxb-tls");
  FakeOpenAiServer server(json{{"default", {{"content", "never read"}}}},
                          self_signed_certificate(dir.path()));
  CurlTransport transport;  // the system's authorities: they never signed this certificate
  const HttpResponse r = transport.post(post_to(server.base_url() + "/chat/completions"));
  EXPECT_EQ(r.error, TransportError::kFatal) << r.error_text;  // not retried
  EXPECT_NE(r.error_text.find("certificate"), std::string::npos) << r.error_text;
  EXPECT_TRUE(server.requests().empty());
}

}  // namespace
}  // namespace ptxb
