#include "config.h"

#include <arpa/inet.h>
#include <libpq-fe.h>

#include "json.h"

namespace {

// An optional integer variable within [lo, hi].
std::string int_var(const std::function<const char*(const char*)>& getenv, const char* name, int lo, int hi,
                    int& out) {
  const char* raw = getenv(name);
  if (raw == nullptr || *raw == '\0') return "";
  int64_t n;
  bool overflow;
  if (!parse_digits(raw, n, overflow) || overflow || n < lo || n > hi)
    return std::string(name) + " must be an integer in " + std::to_string(lo) + ".." + std::to_string(hi) +
           ", got \"" + raw + "\"";
  out = int(n);
  return "";
}

}  // namespace

std::string load_config(const std::function<const char*(const char*)>& getenv, Config& cfg) {
  cfg = Config{};  // unset variables take the contract's defaults
  std::string err;
  const char* host = getenv("HOST");
  if (host != nullptr && *host != '\0') {
    in_addr addr{};
    if (inet_pton(AF_INET, host, &addr) != 1) return std::string("HOST must be an IPv4 address, got \"") + host + "\"";
    cfg.host = host;
  }
  if (!(err = int_var(getenv, "PORT", 1, 65535, cfg.port)).empty()) return err;
  if (!(err = int_var(getenv, "WORKERS", 1, 1024, cfg.workers)).empty()) return err;
  if (!(err = int_var(getenv, "DB_POOL_MIN", 0, 10000, cfg.pool_min)).empty()) return err;
  if (!(err = int_var(getenv, "DB_POOL_MAX", 1, 10000, cfg.pool_max)).empty()) return err;
  if (cfg.pool_min > cfg.pool_max)
    return "DB_POOL_MIN (" + std::to_string(cfg.pool_min) + ") is greater than DB_POOL_MAX (" +
           std::to_string(cfg.pool_max) + ")";

  const char* prepared = getenv("DB_PREPARED");
  std::string p = prepared ? prepared : "";
  if (p.empty() || p == "on") {
    cfg.prepared = true;
  } else if (p == "off") {
    cfg.prepared = false;
  } else {
    return "DB_PREPARED must be \"on\" or \"off\", got \"" + p + "\"";
  }

  const char* url = getenv("DATABASE_URL");
  cfg.database_url = url ? url : "";
  if (!cfg.database_url.empty()) {
    char* msg = nullptr;
    PQconninfoOption* opts = PQconninfoParse(cfg.database_url.c_str(), &msg);
    if (opts == nullptr) {
      // libpq's message names the problem but may quote the URL, password included: not shown.
      if (msg) PQfreemem(msg);
      return "DATABASE_URL is not a valid PostgreSQL connection URL";
    }
    PQconninfoFree(opts);
  }
  return "";
}
