// The contract's endpoints (targets/CONTRACT.md): routing and handlers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "connection.h"
#include "db_pool.h"
#include "event_loop.h"
#include "http_parser.h"

class App {
 public:
  App(EventLoop& loop, DbPool* db);  // db is null without DATABASE_URL
  void handle(const Request& req, const Responder& r);

 private:
  using Handler = void (App::*)(const Request&, const Responder&);
  void get_only(Handler h, const Request& req, const Responder& r);

  void ping(const Request&, const Responder& r);
  void time(const Request&, const Responder& r);
  void devices_status(const Request&, const Responder& r);
  void device_command(const Request& req, std::string_view id, const Responder& r);
  void events_live(const Request& req, const Responder& r);
  void health(const Request&, const Responder& r);
  void healthz(const Request&, const Responder& r);
  void cpu_primes(const Request& req, const Responder& r);
  // db_handlers.cpp
  void db_ping(const Request&, const Responder& r);
  void db_time(const Request&, const Responder& r);
  void db_text(const char* sql, const Responder& r);
  void db_document(std::string_view id, const Responder& r);
  void db_documents(const Request& req, const Responder& r);
  bool db_available(const Responder& r);

  EventLoop& loop_;
  DbPool* db_;
  std::string request_id_prefix_;  // random per process: IDs stay unique across workers
  uint64_t request_count_ = 0;
};

// Finds key in a query string ("a=1&b=2"); values are used as they come (numbers only here).
bool query_param(std::string_view query, std::string_view key, std::string_view& value);
