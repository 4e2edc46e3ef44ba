// One worker process: its own SO_REUSEPORT listener, epoll loop, database pool and clients.
#pragma once

#include <functional>
#include <memory>
#include <unordered_map>

#include "app.h"
#include "config.h"
#include "connection.h"
#include "db_pool.h"
#include "event_loop.h"

class Worker {
 public:
  explicit Worker(const Config& cfg);
  // Serves until SIGTERM/SIGINT (blocked by the caller, read here through a signalfd), then
  // stops accepting, lets in-flight requests finish and returns the exit code.
  int run();

  EventLoop& loop() { return loop_; }
  bool draining() const { return draining_; }
  void dispatch(const Request& req, const Responder& r) { app_->handle(req, r); }
  void forget(Connection* c);  // called by a connection that closed itself

 private:
  struct FdWatcher : Watcher {
    std::function<void(uint32_t)> fn;
    void on_events(uint32_t events) override { fn(events); }
  };
  bool listen_on_port();
  void accept_clients();
  void start_draining();
  void close_idle();

  const Config& cfg_;
  EventLoop loop_;
  std::unique_ptr<DbPool> db_;
  std::unique_ptr<App> app_;
  int listen_fd_ = -1;
  int signal_fd_ = -1;
  FdWatcher listener_;
  FdWatcher signals_;
  bool draining_ = false;
  std::unordered_map<Connection*, std::shared_ptr<Connection>> conns_;  // last: closed first
};
