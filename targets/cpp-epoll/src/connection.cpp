#include "connection.h"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "json.h"
#include "server.h"

namespace {
constexpr size_t kMaxBuffered = 1 << 20;       // unparsed input held per connection
constexpr size_t kMaxPendingWrite = 256 << 10;  // stop running pipelined requests above this
constexpr uint64_t kLingerUs = 2000000;         // how long a lingering close waits for the client
}  // namespace

void Responder::send(int status, std::string_view body, std::string_view extra_headers) const {
  if (auto c = conn_.lock()) c->reply(seq_, status, body, extra_headers);
}

Connection::Connection(int fd, Worker& worker) : fd_(fd), worker_(worker), last_active_ns_(EventLoop::now_ns()) {}

Connection::~Connection() {
  if (!closed_) ::close(fd_);
}

void Connection::on_events(uint32_t events) {
  if (closed_) return;
  if (events & EPOLLERR) return close_now();
  if (lingering_) {
    if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP)) discard_input();
    return;
  }
  if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP)) read_input();
  // Also on EPOLLOUT alone: once the output drains, pipelined requests held back by
  // kMaxPendingWrite run now.
  pump();
}

// Reads until the socket is empty (edge-triggered epoll), or the buffer is full.
void Connection::read_input() {
  char chunk[16384];
  while (!closed_ && !peer_eof_) {
    if (buffered() >= kMaxBuffered) {
      read_paused_ = true;
      return;
    }
    ssize_t n = recv(fd_, chunk, sizeof chunk, 0);
    if (n > 0) {
      rbuf_.append(chunk, size_t(n));
      last_active_ns_ = EventLoop::now_ns();
    } else if (n == 0) {
      peer_eof_ = true;
    } else if (errno == EINTR) {
      continue;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      return;
    } else {
      return close_now();  // ECONNRESET and friends
    }
  }
}

// Runs what the buffered input allows, writes, and decides whether the connection ends.
// Re-entrant calls (a handler answering synchronously) return at once: the outer loop goes on.
void Connection::pump() {
  if (in_pump_ || closed_) return;
  in_pump_ = true;
  for (;;) {
    bool held_back = process_buffered();
    if (!closed_) flush();
    if (closed_) break;
    // Requests held back for the output to drain: the output drained at once, so go on now
    // (no EPOLLOUT edge will come for a socket that never filled up).
    if (held_back && wbuf_.size() - wpos_ < kMaxPendingWrite) continue;
    if (read_paused_ && buffered() < kMaxBuffered) {
      read_paused_ = false;
      read_input();
      continue;
    }
    break;
  }
  in_pump_ = false;
  if (!closed_ && !busy_ && wpos_ == wbuf_.size() && !close_after_write_ && (peer_eof_ || draining_)) close_now();
}

// Runs buffered requests in order; true when it stopped only because the output is full.
bool Connection::process_buffered() {
  bool held_back = false;
  while (!busy_ && !closed_ && !close_after_write_) {
    if (wbuf_.size() - wpos_ >= kMaxPendingWrite) {
      held_back = true;
      break;
    }
    Request req;
    ParseResult r = parse_request(std::string_view(rbuf_).substr(rpos_), req);
    if (r.status == ParseStatus::kIncomplete) break;
    busy_ = true;
    ++seq_;
    if (r.status == ParseStatus::kError) {
      // The stream cannot be trusted past a bad request: answer, then close.
      meta_ = ResponseMeta{false, false, false};
      reply(seq_, r.error_status, error_json(r.reason), {});
      break;
    }
    rpos_ += r.consumed;
    meta_ = ResponseMeta{req.keep_alive, req.minor_version == 0, req.method == "HEAD"};
    worker_.dispatch(req, Responder(weak_from_this(), seq_));
  }
  if (rpos_ == rbuf_.size()) {
    rbuf_.clear();
    rpos_ = 0;
  } else if (rpos_ > 64 * 1024) {
    rbuf_.erase(0, rpos_);
    rpos_ = 0;
  }
  return held_back;
}

void Connection::reply(uint64_t seq, int status, std::string_view body, std::string_view extra_headers) {
  if (closed_ || !busy_ || seq != seq_) return;
  if (draining_ || worker_.draining()) meta_.keep_alive = false;
  append_response(wbuf_, status, body, extra_headers, meta_);
  busy_ = false;
  if (!meta_.keep_alive) close_after_write_ = true;
  last_active_ns_ = EventLoop::now_ns();
  pump();
}

// Writes until done or the socket is full (EPOLLOUT resumes it).
void Connection::flush() {
  while (wpos_ < wbuf_.size()) {
    ssize_t n = ::send(fd_, wbuf_.data() + wpos_, wbuf_.size() - wpos_, MSG_NOSIGNAL);
    if (n > 0) {
      wpos_ += size_t(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return;
    } else {
      return close_now();
    }
  }
  wbuf_.clear();
  wpos_ = 0;
  if (close_after_write_ && !busy_) finish_close();
}

// Closing a socket with unread input makes the kernel send a reset, which can destroy the
// response before the client reads it. With input left over, close our side only and wait
// for the client's (a lingering close, as nginx does).
void Connection::finish_close() {
  if (closed_ || lingering_) return;
  if (peer_eof_ || buffered() == 0) return close_now();
  lingering_ = true;
  shutdown(fd_, SHUT_WR);
  rbuf_.clear();
  rpos_ = 0;
  std::weak_ptr<Connection> self = weak_from_this();
  worker_.loop().after_us(kLingerUs, [self] {
    if (auto c = self.lock()) c->close_now();
  });
  discard_input();
}

void Connection::discard_input() {
  char chunk[16384];
  for (;;) {
    ssize_t n = recv(fd_, chunk, sizeof chunk, 0);
    if (n > 0) continue;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    return close_now();  // EOF or error: the client is done
  }
}

void Connection::drain() {
  draining_ = true;
  if (!busy_ && wpos_ == wbuf_.size()) close_now();
}

void Connection::close_now() {
  if (closed_) return;
  closed_ = true;
  ::close(fd_);  // also leaves the epoll set
  worker_.forget(this);
}
