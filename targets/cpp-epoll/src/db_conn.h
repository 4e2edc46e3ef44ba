// One asynchronous libpq connection: connects with PQconnectPoll, sends with
// PQsendQueryParams, reads with PQconsumeInput/PQisBusy/PQgetResult when epoll says so.
#pragma once

#include "db_pool.h"

class DbConn : public Watcher {
 public:
  DbConn(DbPool& pool, PGconn* pg);
  ~DbConn() override;
  void on_events(uint32_t events) override;
  bool send(DbPool::Job& job);  // false: the connection is broken and job is left as it was
  void close();
  bool closed() const { return state_ == State::kClosed; }

 private:
  enum class State { kConnecting, kIdle, kBusy, kClosed };
  void poll_connect();
  void read_results();
  void flush_output();
  void watch(uint32_t events);
  void fail();

  DbPool& pool_;
  PGconn* pg_;
  State state_ = State::kConnecting;
  int fd_ = -1;  // the socket registered with epoll
  uint32_t events_ = 0;
  DbPool::Job job_;
  DbResult result_;
};
