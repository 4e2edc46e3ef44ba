// Unit tests of the pure parts (parser, JSON, primes, config, query strings). Run by
// hack/targets/cpp.sh after every build; exits non-zero on the first report of a failure.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <thread>
#include <cstring>
#include <map>
#include <string>

#include "app.h"
#include "config.h"
#include "db_pool.h"
#include "event_loop.h"
#include "http_parser.h"
#include "http_response.h"
#include "json.h"
#include "primes.h"
#include "server.h"

namespace {

int failures = 0;

#define EXPECT(cond)                                                  \
  do {                                                                \
    if (!(cond)) {                                                    \
      std::fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #cond); \
      failures++;                                                     \
    }                                                                 \
  } while (0)

ParseResult parse(const std::string& raw, Request& req) { return parse_request(raw, req); }

void test_parser_complete_requests() {
  Request req;
  std::string two = "GET /api/ping?x=1 HTTP/1.1\r\nHost: a\r\n\r\nPOST /devices/1/command HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nConnection: close\r\n\r\nbody";
  ParseResult r = parse(two, req);
  EXPECT(r.status == ParseStatus::kComplete);
  EXPECT(req.method == "GET" && req.path == "/api/ping" && req.query == "x=1" && req.keep_alive);
  std::string rest = two.substr(r.consumed);
  r = parse(rest, req);
  EXPECT(r.status == ParseStatus::kComplete && r.consumed == rest.size());
  EXPECT(req.method == "POST" && req.body == "body" && !req.keep_alive);

  // Every strict prefix of a request is incomplete, never an error.
  for (size_t n = 0; n < rest.size(); n++) EXPECT(parse(rest.substr(0, n), req).status == ParseStatus::kIncomplete);

  r = parse("GET / HTTP/1.0\r\n\r\n", req);
  EXPECT(r.status == ParseStatus::kComplete && !req.keep_alive && req.minor_version == 0);
  r = parse("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", req);
  EXPECT(r.status == ParseStatus::kComplete && req.keep_alive);
  r = parse("GET / HTTP/1.1\nHost: a\n\n", req);  // bare LF line ends are tolerated
  EXPECT(r.status == ParseStatus::kComplete);
}

void test_parser_errors() {
  const std::map<std::string, int> bad = {
      {"garbage\r\n\r\n", 400},
      {"GET  / HTTP/1.1\r\nHost: a\r\n\r\n", 400},
      {"GET http://x/ HTTP/1.1\r\nHost: a\r\n\r\n", 400},
      {"GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505},
      {"GET / HTTX/1.1\r\nHost: a\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nHost: a\r\nBad Header: 1\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n", 400},
      {"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", 400},
      {"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400},
      {"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 70000\r\n\r\n", 413},
      {"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n", 501},
      {"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", 400},
  };
  for (const auto& [raw, status] : bad) {
    Request req;
    ParseResult r = parse(raw, req);
    if (r.status != ParseStatus::kError || r.error_status != status) {
      std::fprintf(stderr, "request %s: want error %d, got status %d/%d\n", raw.c_str(), status, int(r.status),
                   r.error_status);
      failures++;
    }
  }
  Request req;
  std::string huge = "GET / HTTP/1.1\r\nX: " + std::string(kMaxHeaderBytes, 'a');
  EXPECT(parse(huge, req).error_status == 431);
}

void test_response() {
  std::string out;
  append_response(out, 200, "{}", "X-A: 1\r\n", ResponseMeta{false, false, false});
  EXPECT(out.rfind("HTTP/1.1 200 OK\r\nServer: cpp-epoll\r\nDate: ", 0) == 0);
  EXPECT(out.find("\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: 2\r\nConnection: close\r\nX-A: 1\r\n\r\n{}") != std::string::npos);
  out.clear();
  append_response(out, 404, "{}", "", ResponseMeta{true, false, true});  // HEAD: no body
  EXPECT(out.find("Connection") == std::string::npos && out.size() >= 4 && out.substr(out.size() - 4) == "\r\n\r\n");
}

void test_command() {
  std::string action;
  EXPECT(parse_command(R"({"action":"set","value":21.5e1,"unit":"C"})", action).empty() && action == "set");
  EXPECT(parse_command(R"( {"action":"caf\u00e9 \ud83d\ude00","x":{"y":[1,null]}} )", action).empty() &&
         action == "caf\xc3\xa9 \xf0\x9f\x98\x80");
  const std::map<std::string, std::string> bad = {
      {"", "body is not valid JSON"},
      {R"({"action":"set")", "body is not valid JSON"},
      {R"({"action":"set"} x)", "body is not valid JSON"},
      {R"({"action":"set","value":01})", "body is not valid JSON"},
      {R"({"action":"\ud800"})", "body is not valid JSON"},
      {"{\"action\":\"\xff\"}", "body is not valid JSON"},
      {"[1,2]", "body must be a JSON object"},
      {"\"set\"", "body must be a JSON object"},
      {R"({"action":""})", "action must be a non-empty string"},
      {R"({"action":3})", "action must be a non-empty string"},
      {R"({"value":3})", "action must be a non-empty string"},
      {R"({"action":"set","value":"21"})", "value must be a number"},
      {R"({"action":"set","value":null})", "value must be a number"},
      {R"({"action":"set","unit":5})", "unit must be a string"},
  };
  for (const auto& [body, reason] : bad) {
    std::string got = parse_command(body, action);
    if (got != reason) {
      std::fprintf(stderr, "command %s: want %s, got %s\n", body.c_str(), reason.c_str(), got.c_str());
      failures++;
    }
  }
  std::string deep(100, '[');
  EXPECT(parse_command("{\"action\":\"a\",\"x\":" + deep + "}", action) == "body is not valid JSON");
}

void test_json_escape_and_digits() {
  std::string out;
  append_json_string(out, "a\"b\\c\n\x01");
  EXPECT(out == "\"a\\\"b\\\\c\\n\\u0001\"");
  int64_t n;
  bool overflow;
  EXPECT(parse_digits("42", n, overflow) && n == 42 && !overflow);
  EXPECT(parse_digits("99999999999999999999", n, overflow) && overflow);
  EXPECT(!parse_digits("", n, overflow) && !parse_digits("+1", n, overflow) && !parse_digits("1 ", n, overflow));
}

void test_primes() {
  std::string out;
  append_primes_json(out, 12);
  EXPECT(out == "[2,3,5,7,11]");
  out.clear();
  append_primes_json(out, 2);
  EXPECT(out == "[]");
  out.clear();
  append_primes_json(out, 1000000);  // the contract's figures for the default N
  size_t commas = 0;
  for (char c : out) commas += c == ',';
  EXPECT(commas + 1 == 78498 && out.size() == 538469);
}

void test_query_param() {
  std::string_view v;
  EXPECT(query_param("a=1&wait=30", "wait", v) && v == "30");
  EXPECT(query_param("wait", "wait", v) && v.empty());
  EXPECT(!query_param("waiting=1", "wait", v));
}

void test_config() {
  auto env = [](std::map<std::string, std::string> kv) {
    return [kv](const char* k) -> const char* {
      auto it = kv.find(k);
      return it == kv.end() ? nullptr : it->second.c_str();
    };
  };
  Config cfg;
  EXPECT(load_config(env({}), cfg).empty() && cfg.port == 8080 && cfg.workers == 1 && cfg.pool_min == 5 &&
         cfg.pool_max == 15 && cfg.prepared && cfg.host == "0.0.0.0");
  EXPECT(load_config(env({{"PORT", "0"}}), cfg).find("PORT") != std::string::npos);
  EXPECT(load_config(env({{"HOST", "localhost"}}), cfg).find("HOST") != std::string::npos);
  EXPECT(load_config(env({{"HOST", "127.0.0.1"}}), cfg).empty() && cfg.host == "127.0.0.1");
  EXPECT(load_config(env({{"WORKERS", "x"}}), cfg).find("WORKERS") != std::string::npos);
  EXPECT(load_config(env({{"DB_POOL_MIN", "9"}, {"DB_POOL_MAX", "3"}}), cfg).find("greater") != std::string::npos);
  EXPECT(load_config(env({{"DB_PREPARED", "yes"}}), cfg).find("DB_PREPARED") != std::string::npos);
  EXPECT(load_config(env({{"DATABASE_URL", "postgres://u:secret@h:5432/d?bogus=1"}}), cfg) ==
         "DATABASE_URL is not a valid PostgreSQL connection URL");
  EXPECT(load_config(env({{"DATABASE_URL", "postgres://u@h:5432/d?sslmode=disable"}, {"DB_PREPARED", "off"}}), cfg).empty() &&
         !cfg.prepared);
}

// With the server unreachable, a query must fail fast as unavailable (503), not hang, and the
// pool must not spin reopening connections that are refused at once.
void test_pool_without_server() {
  EventLoop loop;
  DbPool pool(loop, "postgresql://bench@127.0.0.1:1/bench?connect_timeout=2", 2, 5);
  pool.start();
  bool answered = false, unavailable = false, timed_out = false;
  pool.query("SELECT 1", {}, [&](DbResult r) {
    answered = true;
    unavailable = r.unavailable && r.error_status() == 503;
    loop.stop();
  });
  if (!answered) {
    loop.after_us(3000000, [&] {
      timed_out = true;
      loop.stop();
    });
    loop.run();
  }
  EXPECT(answered && unavailable && !timed_out);
}

// Timers fire in deadline order, not insertion order, and not early.
void test_timers() {
  EventLoop loop;
  std::string order;
  uint64_t start = EventLoop::now_ns();
  loop.after_us(20000, [&] {
    order += 'b';
    loop.stop();
  });
  loop.after_us(5000, [&] { order += 'a'; });
  loop.run();
  EXPECT(order == "ab" && EventLoop::now_ns() - start >= 20000000);
}

// A free loopback port: bound to port 0, read back, released.
int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

// A real worker answers a deep pipeline (more output than it holds back, more input than it
// buffers) completely and in order, then stops cleanly on SIGTERM.
void test_deep_pipeline() {
  Config cfg;
  cfg.port = free_port();
  sigset_t term;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  pid_t child = fork();
  if (child == 0) {
    sigprocmask(SIG_BLOCK, &term, nullptr);  // the worker reads SIGTERM from a signalfd
    Worker worker(cfg);
    _exit(worker.run());
  }
  int fd = -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(uint16_t(cfg.port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  for (int i = 0; i < 100 && fd < 0; i++) {  // until the worker listens
    fd = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0) {
      close(fd);
      fd = -1;
      usleep(20000);
    }
  }
  EXPECT(fd >= 0);
  if (fd >= 0) {
    const int n = 60000;  // about 2 MiB in, 10 MiB out
    std::string one = "GET /api/ping HTTP/1.1\r\nHost: t\r\n\r\n", all;
    for (int i = 0; i < n; i++) all += one;
    std::thread sender([&] { send(fd, all.data(), all.size(), MSG_NOSIGNAL); });
    int answered = 0;
    std::string tail;
    char buf[65536];
    pollfd p{fd, POLLIN, 0};
    while (answered < n && poll(&p, 1, 5000) == 1) {
      ssize_t got = recv(fd, buf, sizeof buf, 0);
      if (got <= 0) break;
      tail.append(buf, size_t(got));
      for (size_t at; (at = tail.find("{\"ok\":true,\"message\":\"OK\"}")) != std::string::npos;) {
        answered++;
        tail.erase(0, at + 26);
      }
    }
    sender.join();
    close(fd);
    if (answered != n) std::fprintf(stderr, "deep pipeline: %d of %d answered\n", answered, n);
    EXPECT(answered == n);
  }
  kill(child, SIGTERM);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

}  // namespace

int main() {
  test_parser_complete_requests();
  test_parser_errors();
  test_response();
  test_command();
  test_json_escape_and_digits();
  test_primes();
  test_query_param();
  test_config();
  test_timers();
  test_pool_without_server();
  test_deep_pipeline();
  if (failures > 0) {
    std::fprintf(stderr, "unit_tests: %d failure(s)\n", failures);
    return 1;
  }
  std::puts("unit_tests: all passed");
  return 0;
}
