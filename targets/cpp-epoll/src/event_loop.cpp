#include "event_loop.h"

#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <system_error>

namespace {
[[noreturn]] void fail(const char* what) { throw std::system_error(errno, std::generic_category(), what); }
}  // namespace

EventLoop::EventLoop() {
  epfd_ = epoll_create1(EPOLL_CLOEXEC);
  if (epfd_ < 0) fail("epoll_create1");
  tfd_ = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (tfd_ < 0) fail("timerfd_create");
  add(tfd_, &timer_watcher_, EPOLLIN);
}

EventLoop::~EventLoop() {
  if (tfd_ >= 0) close(tfd_);
  if (epfd_ >= 0) close(epfd_);
}

void EventLoop::add(int fd, Watcher* w, uint32_t events) {
  epoll_event ev{};
  ev.events = events;
  ev.data.ptr = w;
  if (epoll_ctl(epfd_, EPOLL_CTL_ADD, fd, &ev) < 0) fail("epoll_ctl(ADD)");
}

void EventLoop::modify(int fd, Watcher* w, uint32_t events) {
  epoll_event ev{};
  ev.events = events;
  ev.data.ptr = w;
  if (epoll_ctl(epfd_, EPOLL_CTL_MOD, fd, &ev) < 0) fail("epoll_ctl(MOD)");
}

void EventLoop::remove(int fd) {
  epoll_ctl(epfd_, EPOLL_CTL_DEL, fd, nullptr);  // ENOENT/EBADF: already gone, which is fine
}

void EventLoop::retire(std::shared_ptr<Watcher> w) { retired_.push_back(std::move(w)); }

uint64_t EventLoop::now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

void EventLoop::after_us(uint64_t delay_us, std::function<void()> fn) {
  uint64_t deadline = now_ns() + delay_us * 1000;
  timers_.push_back(Timer{deadline, ++timer_seq_, std::move(fn)});
  std::push_heap(timers_.begin(), timers_.end(), Later{});
  if (armed_ == 0 || deadline < armed_) arm(deadline);
}

void EventLoop::arm(uint64_t deadline) {
  itimerspec its{};
  its.it_value.tv_sec = time_t(deadline / 1000000000u);
  its.it_value.tv_nsec = long(deadline % 1000000000u);
  if (timerfd_settime(tfd_, TFD_TIMER_ABSTIME, &its, nullptr) < 0) fail("timerfd_settime");
  armed_ = deadline;
}

void EventLoop::fire_timers() {
  uint64_t expirations;
  while (read(tfd_, &expirations, sizeof expirations) > 0) {
  }
  armed_ = 0;
  uint64_t now = now_ns();
  while (!timers_.empty() && timers_.front().deadline <= now) {
    std::pop_heap(timers_.begin(), timers_.end(), Later{});
    std::function<void()> fn = std::move(timers_.back().fn);
    timers_.pop_back();
    fn();  // may add timers: the heap stays consistent
  }
  if (!timers_.empty() && (armed_ == 0 || timers_.front().deadline < armed_)) arm(timers_.front().deadline);
}

void EventLoop::run() {
  running_ = true;
  epoll_event events[256];
  while (running_) {
    int n = epoll_wait(epfd_, events, 256, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("epoll_wait");
    }
    for (int i = 0; i < n; i++) static_cast<Watcher*>(events[i].data.ptr)->on_events(events[i].events);
    retired_.clear();
  }
  retired_.clear();
}
