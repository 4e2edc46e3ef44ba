// A per-worker pool of asynchronous libpq connections on the worker's epoll loop, with a
// queue of waiting queries (seed 001's Apostol model: DB_POOL_MIN..DB_POOL_MAX per worker).
#pragma once

#include <libpq-fe.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "event_loop.h"

// The outcome of one query: a result (which may itself be an error) or, when no server
// answered, an error of the pool.
struct DbResult {
  std::unique_ptr<PGresult, void (*)(PGresult*)> res{nullptr, PQclear};
  bool unavailable = false;  // no connection could be made or it was lost

  bool ok() const { return res && PQresultStatus(res.get()) == PGRES_TUPLES_OK; }
  int rows() const { return PQntuples(res.get()); }
  const char* value(int row, int col) const { return PQgetvalue(res.get(), row, col); }
  int length(int row, int col) const { return PQgetlength(res.get(), row, col); }
  // HTTP status and {"error": ...} body for a failed query; never the server's message.
  int error_status() const { return unavailable ? 503 : 500; }
  std::string error_body() const;
};

using DbCallback = std::function<void(DbResult)>;

class DbConn;

class DbPool {
 public:
  DbPool(EventLoop& loop, std::string conninfo, int min, int max);
  ~DbPool();
  void start();  // opens the minimum number of connections
  // Runs sql with text parameters on the first free connection; cb runs on the loop.
  void query(const char* sql, std::vector<std::string> params, DbCallback cb);

 private:
  friend class DbConn;
  struct Job {
    const char* sql;
    std::vector<std::string> params;
    DbCallback cb;
  };
  void dispatch();
  void grow();
  void connected(DbConn* c);
  void idle(DbConn* c);
  void lost(DbConn* c, bool was_connecting);

  EventLoop& loop_;
  std::string conninfo_;
  int min_, max_;
  std::vector<std::shared_ptr<DbConn>> conns_;
  std::vector<DbConn*> idle_;
  std::deque<Job> queue_;
  int connecting_ = 0;
  bool retry_scheduled_ = false;
};
