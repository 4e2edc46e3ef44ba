// Unit tests of the pure parts (parser, JSON, primes, config, query strings). Run by
// hack/targets/cpp.sh after every build; exits non-zero on the first report of a failure.
#include <cstdio>
#include <cstring>
#include <map>
#include <string>

#include "app.h"
#include "config.h"
#include "http_parser.h"
#include "http_response.h"
#include "json.h"
#include "primes.h"

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
         cfg.pool_max == 15 && cfg.prepared);
  EXPECT(load_config(env({{"PORT", "0"}}), cfg).find("PORT") != std::string::npos);
  EXPECT(load_config(env({{"WORKERS", "x"}}), cfg).find("WORKERS") != std::string::npos);
  EXPECT(load_config(env({{"DB_POOL_MIN", "9"}, {"DB_POOL_MAX", "3"}}), cfg).find("greater") != std::string::npos);
  EXPECT(load_config(env({{"DB_PREPARED", "yes"}}), cfg).find("DB_PREPARED") != std::string::npos);
  EXPECT(load_config(env({{"DATABASE_URL", "postgres://u:secret@h:5432/d?bogus=1"}}), cfg) ==
         "DATABASE_URL is not a valid PostgreSQL connection URL");
  EXPECT(load_config(env({{"DATABASE_URL", "postgres://u@h:5432/d?sslmode=disable"}, {"DB_PREPARED", "off"}}), cfg).empty() &&
         !cfg.prepared);
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
  if (failures > 0) {
    std::fprintf(stderr, "unit_tests: %d failure(s)\n", failures);
    return 1;
  }
  std::puts("unit_tests: all passed");
  return 0;
}
