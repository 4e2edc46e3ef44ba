#include "server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {
constexpr uint64_t kSweepUs = 5000000;            // how often idle connections are looked for
constexpr uint64_t kIdleNs = 60ull * 1000000000;  // keep-alive idle timeout
constexpr uint64_t kShutdownUs = 9000000;         // inside the contract's 10 s
constexpr uint64_t kAcceptPauseUs = 100000;       // after EMFILE: let connections close first
}  // namespace

Worker::Worker(const Config& cfg) : cfg_(cfg) {
  if (!cfg_.database_url.empty())
    db_ = std::make_unique<DbPool>(loop_, cfg_.database_url, cfg_.pool_min, cfg_.pool_max);
  app_ = std::make_unique<App>(loop_, db_.get());
  listener_.fn = [this](uint32_t) { accept_clients(); };
  signals_.fn = [this](uint32_t) {
    signalfd_siginfo info;
    while (read(signal_fd_, &info, sizeof info) == sizeof info) {
    }
    start_draining();
  };
}

bool Worker::listen_on_port() {
  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int on = 1;
  // SO_REUSEPORT: every worker has its own listening socket and the kernel spreads new
  // connections among them (no shared accept queue, no thundering herd).
  if (listen_fd_ < 0 || setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) < 0 ||
      setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEPORT, &on, sizeof on) < 0) {
    fprintf(stderr, "cpp-epoll: socket: %s\n", strerror(errno));
    return false;
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(uint16_t(cfg_.port));
  inet_pton(AF_INET, cfg_.host.c_str(), &addr.sin_addr);  // checked by load_config
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0 || listen(listen_fd_, 4096) < 0) {
    fprintf(stderr, "cpp-epoll: listen on %s:%d: %s\n", cfg_.host.c_str(), cfg_.port, strerror(errno));
    return false;
  }
  return true;
}

int Worker::run() {
  if (!listen_on_port()) return 3;
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGINT);
  signal_fd_ = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
  if (signal_fd_ < 0) {
    fprintf(stderr, "cpp-epoll: signalfd: %s\n", strerror(errno));
    return 1;
  }
  loop_.add(listen_fd_, &listener_, EPOLLIN);
  loop_.add(signal_fd_, &signals_, EPOLLIN);
  if (db_) db_->start();
  loop_.after_us(kSweepUs, [this] { close_idle(); });
  loop_.run();
  conns_.clear();
  close(signal_fd_);
  return 0;
}

void Worker::accept_clients() {
  for (;;) {
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        // Out of descriptors: stop listening for a moment instead of spinning on the event.
        loop_.modify(listen_fd_, &listener_, 0);
        loop_.after_us(kAcceptPauseUs, [this] {
          if (!draining_) loop_.modify(listen_fd_, &listener_, EPOLLIN);
        });
      }
      return;  // EAGAIN: accepted everything queued
    }
    int on = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    auto c = std::make_shared<Connection>(fd, *this);
    loop_.add(fd, c.get(), EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET);
    conns_.emplace(c.get(), std::move(c));
  }
}

void Worker::forget(Connection* c) {
  auto it = conns_.find(c);
  if (it == conns_.end()) return;
  loop_.retire(std::move(it->second));  // an event for it may still be in this batch
  conns_.erase(it);
  if (draining_ && conns_.empty()) loop_.stop();
}

void Worker::start_draining() {
  if (draining_) return;
  draining_ = true;
  loop_.remove(listen_fd_);
  close(listen_fd_);  // new connections go to no one; the kernel refuses them
  std::vector<Connection*> all;
  for (auto& kv : conns_) all.push_back(kv.first);
  for (Connection* c : all) c->drain();
  if (conns_.empty()) return loop_.stop();
  loop_.after_us(kShutdownUs, [this] {
    std::vector<Connection*> left;
    for (auto& kv : conns_) left.push_back(kv.first);
    for (Connection* c : left) c->close_now();
    loop_.stop();
  });
}

void Worker::close_idle() {
  uint64_t before = EventLoop::now_ns() - kIdleNs;
  std::vector<Connection*> idle;
  for (auto& kv : conns_)
    if (kv.first->idle_since(before)) idle.push_back(kv.first);
  for (Connection* c : idle) c->close_now();
  loop_.after_us(kSweepUs, [this] { close_idle(); });
}
