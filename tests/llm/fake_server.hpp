// Runs tests/llm/fake_openai_server.py as a child process for the model client's tests and
// bench: writes the script to a private folder, starts `python3` with pipes on stdin and stdout,
// reads the port it prints, and kills it on destruction. Header-only (the unit-test target globs
// tests/unit/*.cpp only); throws std::runtime_error when the server does not come up.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sys/files.hpp"

extern char** environ;

namespace ptxb::testing {

class FakeOpenAiServer {
 public:
  /// PEM certificate and key: the server speaks HTTPS with them.
  struct Tls {
    std::string cert, key;
  };

  /// `script` as documented in fake_openai_server.py: {"responses": [...], "default": ...}.
  explicit FakeOpenAiServer(const nlohmann::json& script, std::optional<Tls> tls = std::nullopt)
      : dir_("ptxb-llm-server"), scheme_(tls ? "https" : "http") {
    const auto script_path = dir_.path() / "script.json";
    std::ofstream(script_path) << script.dump();
    log_path_ = dir_.path() / "requests.jsonl";
    const std::string server = std::string(PTXB_SOURCE_DIR) + "/tests/llm/fake_openai_server.py";

    int out[2], in[2];
    if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(in, O_CLOEXEC) != 0)
      throw std::runtime_error("fake server: pipe failed");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    // -I -S: no user site, no environment, no site-packages: the standard library only.
    std::vector<std::string> args = {"python3",
                                     "-I",
                                     "-S",
                                     server,
                                     "--script",
                                     script_path.string(),
                                     "--log",
                                     log_path_.string(),
                                     "--exit-on-stdin-eof"};
    if (tls) args.insert(args.end(), {"--tls-cert", tls->cert, "--tls-key", tls->key});
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int rc = ::posix_spawnp(&pid_, "python3", &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    ::close(in[0]);
    stdin_fd_ = in[1];
    if (rc != 0) {
      ::close(out[0]);
      pid_ = -1;
      throw std::runtime_error("fake server: cannot start python3");
    }
    const std::string line = read_line(out[0], 10'000);
    ::close(out[0]);
    if (line.empty() || line.find_first_not_of("0123456789") != std::string::npos) {
      stop();
      throw std::runtime_error("fake server: no port printed within 10 s");
    }
    port_ = std::stoi(line);
  }

  ~FakeOpenAiServer() { stop(); }
  FakeOpenAiServer(const FakeOpenAiServer&) = delete;
  FakeOpenAiServer& operator=(const FakeOpenAiServer&) = delete;

  int port() const { return port_; }
  /// The base URL a ChatConfig needs: http(s)://127.0.0.1:PORT/v1.
  std::string base_url() const { return scheme_ + "://127.0.0.1:" + std::to_string(port_) + "/v1"; }

  /// Every request received so far: {"path", "headers", "body"}.
  std::vector<nlohmann::json> requests() const {
    std::vector<nlohmann::json> out;
    std::ifstream in(log_path_);
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) out.push_back(nlohmann::json::parse(line));
    return out;
  }

 private:
  void stop() {
    if (stdin_fd_ >= 0) ::close(stdin_fd_);
    stdin_fd_ = -1;
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    pid_ = -1;
  }

  static std::string read_line(int fd, int timeout_ms) {
    std::string line;
    char c = 0;
    for (;;) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, timeout_ms) <= 0) return "";
      if (::read(fd, &c, 1) != 1) return "";
      if (c == '\n') return line;
      line.push_back(c);
    }
  }

  TempDir dir_;
  std::string scheme_;
  std::filesystem::path log_path_;
  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int port_ = 0;
};

/// A local port with nothing listening on it (bound, then released): connections are refused.
inline int closed_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

}  // namespace ptxb::testing
