#include "app.h"

#include <sys/random.h>

#include <charconv>
#include <cstdio>
#include <ctime>

#include "json.h"
#include "primes.h"

namespace {

constexpr std::string_view kPing = R"({"ok":true,"message":"OK"})";
constexpr std::string_view kHealthz = R"({"status":"ok"})";
constexpr std::string_view kDevices =
    R"([{"id":1,"type":"lightbulb","on":true},{"id":2,"type":"thermostat","on":true},{"id":3,"type":"lock","on":false},{"id":4,"type":"camera","on":true},{"id":5,"type":"sensor","on":true}])";
constexpr uint64_t kCommandLatencyUs = 2000;  // seed 000's simulated hardware latency
constexpr int64_t kMaxWaitMs = 500;
constexpr int64_t kDefaultPrimesN = 1000000;
constexpr int64_t kMaxPrimesN = 10000000;

void append_int(std::string& out, int64_t v) {
  char num[24];
  out.append(num, std::to_chars(num, num + sizeof num, v).ptr);
}

int64_t unix_ms() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

// path == prefix + id + suffix, with a non-empty id holding no '/'.
bool match(std::string_view path, std::string_view prefix, std::string_view suffix, std::string_view& id) {
  if (path.size() <= prefix.size() + suffix.size() || path.substr(0, prefix.size()) != prefix ||
      path.substr(path.size() - suffix.size()) != suffix)
    return false;
  id = path.substr(prefix.size(), path.size() - prefix.size() - suffix.size());
  return id.find('/') == std::string_view::npos;
}

void not_allowed(const Responder& r, std::string_view allow) {
  std::string header = "Allow: ";
  header += allow;
  header += "\r\n";
  r.send(405, error_json("method not allowed"), header);
}

}  // namespace

bool query_param(std::string_view query, std::string_view key, std::string_view& value) {
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    size_t eq = pair.find('=');
    if (pair.substr(0, eq) == key) {
      value = eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1);
      return true;
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return false;
}

App::App(EventLoop& loop, DbPool* db) : loop_(loop), db_(db) {
  unsigned char raw[8] = {};
  if (getrandom(raw, sizeof raw, 0) != sizeof raw) {
    timespec ts;  // getrandom cannot fail this early on Linux; the clock is a fallback
    clock_gettime(CLOCK_REALTIME, &ts);
    *reinterpret_cast<int64_t*>(raw) ^= ts.tv_nsec;
  }
  char hex[17];
  for (int i = 0; i < 8; i++) snprintf(hex + 2 * i, 3, "%02x", raw[i]);
  request_id_prefix_ = std::string("req-") + hex + "-";
}

void App::handle(const Request& req, const Responder& r) {
  const std::string& p = req.path;
  if (p == "/api/ping") return get_only(&App::ping, req, r);
  if (p == "/api/time") return get_only(&App::time, req, r);
  if (p == "/api/db/ping") return get_only(&App::db_ping, req, r);
  if (p == "/api/db/time") return get_only(&App::db_time, req, r);
  if (p == "/devices/status") return get_only(&App::devices_status, req, r);
  if (p == "/events/live") return get_only(&App::events_live, req, r);
  if (p == "/health") return get_only(&App::health, req, r);
  if (p == "/healthz") return get_only(&App::healthz, req, r);
  if (p == "/api/db/documents") return get_only(&App::db_documents, req, r);
  if (p == "/api/cpu/primes") return get_only(&App::cpu_primes, req, r);
  std::string_view id;
  if (match(p, "/devices/", "/command", id)) {
    if (req.method != "POST") return not_allowed(r, "POST");
    return device_command(req, id, r);
  }
  if (match(p, "/api/db/document/", "", id)) {
    if (req.method != "GET" && req.method != "HEAD") return not_allowed(r, "GET, HEAD");
    return db_document(id, r);
  }
  r.send(404, R"({"error":"not found"})");
}

void App::get_only(Handler h, const Request& req, const Responder& r) {
  if (req.method != "GET" && req.method != "HEAD") return not_allowed(r, "GET, HEAD");
  (this->*h)(req, r);
}

void App::ping(const Request&, const Responder& r) { r.send(200, kPing); }
void App::healthz(const Request&, const Responder& r) { r.send(200, kHealthz); }
void App::devices_status(const Request&, const Responder& r) { r.send(200, kDevices); }

void App::time(const Request&, const Responder& r) {
  std::string body = R"({"serverTime":)";
  append_int(body, int64_t(::time(nullptr)));
  body += '}';
  r.send(200, body);
}

void App::device_command(const Request& req, std::string_view id_text, const Responder& r) {
  int64_t id;
  bool overflow;
  if (!parse_digits(id_text, id, overflow) || overflow || id < 1)
    return r.send(400, error_json("device id must be a positive integer below 2^63"));
  std::string action;
  std::string reason = parse_command(req.body, action);
  if (!reason.empty()) return r.send(400, error_json(reason));
  // The simulated hardware latency is a timer: the loop serves other requests meanwhile.
  loop_.after_us(kCommandLatencyUs, [r, id, action = std::move(action)] {
    std::string body = R"({"deviceId":)";
    append_int(body, id);
    body += R"(,"action":)";
    append_json_string(body, action);
    body += R"(,"status":"accepted","latencyMs":2})";
    r.send(200, body);
  });
}

void App::events_live(const Request& req, const Responder& r) {
  int64_t wait = 0;
  std::string_view raw;
  if (query_param(req.query, "wait", raw)) {
    bool overflow;
    if (!parse_digits(raw, wait, overflow)) return r.send(400, error_json("wait must be a non-negative integer"));
    if (wait > kMaxWaitMs) wait = kMaxWaitMs;  // a huge value is still valid: the cap applies
  }
  auto answer = [r] {
    std::string body = R"({"event":"motion","deviceId":5,"ts":)";
    append_int(body, unix_ms());
    body += '}';
    r.send(200, body);
  };
  if (wait == 0) return answer();
  loop_.after_us(uint64_t(wait) * 1000, answer);
}

// Seed 004's middleware, for the one route it applies to: X-Request-ID, and X-Response-Time
// measured from the start of the handler to the moment the response is queued.
void App::health(const Request&, const Responder& r) {
  uint64_t start = EventLoop::now_ns();
  std::string body = R"({"status":"ok","timestamp":)";
  append_int(body, unix_ms());
  body += R"(,"framework":"cpp-epoll"})";

  std::string headers = "X-Request-ID: " + request_id_prefix_;
  append_int(headers, int64_t(++request_count_));
  char elapsed[32];
  snprintf(elapsed, sizeof elapsed, "%.2f", double(EventLoop::now_ns() - start) / 1e6);
  headers += "\r\nX-Response-Time: ";
  headers += elapsed;
  headers += "ms\r\n";
  r.send(200, body, headers);
}

void App::cpu_primes(const Request& req, const Responder& r) {
  int64_t n = kDefaultPrimesN;
  std::string_view raw;
  bool overflow = false;
  if (query_param(req.query, "n", raw) && (!parse_digits(raw, n, overflow) || overflow || n < 2 || n > kMaxPrimesN))
    return r.send(400, error_json("n must be an integer in 2..10000000"));
  std::string body;
  append_primes_json(body, int(n));
  r.send(200, body);
}
