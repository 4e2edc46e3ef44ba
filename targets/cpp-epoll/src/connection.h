// One client connection: reads requests, runs one at a time (responses stay in order, which
// is what HTTP/1.1 pipelining needs), writes responses, honours keep-alive and close.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "event_loop.h"
#include "http_parser.h"
#include "http_response.h"

class Worker;
class Connection;

// Responder is the way back to the client for one request. Copies may outlive the connection
// (timers, database callbacks): send() then does nothing.
class Responder {
 public:
  Responder(std::weak_ptr<Connection> conn, uint64_t seq) : conn_(std::move(conn)), seq_(seq) {}
  void send(int status, std::string_view body, std::string_view extra_headers = {}) const;

 private:
  std::weak_ptr<Connection> conn_;
  uint64_t seq_;
};

class Connection : public Watcher, public std::enable_shared_from_this<Connection> {
 public:
  Connection(int fd, Worker& worker);
  ~Connection() override;

  void on_events(uint32_t events) override;
  void reply(uint64_t seq, int status, std::string_view body, std::string_view extra_headers);
  // Graceful shutdown: an idle connection closes now, a busy one after its current response.
  void drain();
  bool idle_since(uint64_t before_ns) const { return !busy_ && last_active_ns_ < before_ns; }
  void close_now();

 private:
  void read_input();
  void pump();
  bool process_buffered();
  void flush();
  void finish_close();
  void discard_input();
  size_t buffered() const { return rbuf_.size() - rpos_; }

  int fd_;
  Worker& worker_;
  std::string rbuf_;
  size_t rpos_ = 0;  // start of the unparsed input
  std::string wbuf_;
  size_t wpos_ = 0;  // start of the unsent output
  uint64_t seq_ = 0;  // number of the request in progress
  ResponseMeta meta_;  // of the request in progress
  uint64_t last_active_ns_;
  bool busy_ = false;           // a request awaits its response
  bool read_paused_ = false;    // input buffer full: resume reading once it drains
  bool peer_eof_ = false;       // the client will send nothing more
  bool close_after_write_ = false;
  bool lingering_ = false;      // output closed, discarding input until the client closes
  bool draining_ = false;
  bool in_pump_ = false;
  bool closed_ = false;
};
