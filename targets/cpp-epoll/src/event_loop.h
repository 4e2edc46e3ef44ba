// One epoll loop per worker process: file descriptors and timers (one timerfd + a heap).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

// Watcher receives the epoll events of one file descriptor.
struct Watcher {
  virtual ~Watcher() = default;
  virtual void on_events(uint32_t events) = 0;
};

class EventLoop {
 public:
  EventLoop();  // throws std::system_error
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  void add(int fd, Watcher* w, uint32_t events);
  void modify(int fd, Watcher* w, uint32_t events);
  void remove(int fd);
  // Keeps a closed watcher alive until the current batch of events is handled, so an event
  // already fetched for it finds an object that knows it is closed.
  void retire(std::shared_ptr<Watcher> w);
  // Runs fn once, delay_us microseconds from now, on this loop.
  void after_us(uint64_t delay_us, std::function<void()> fn);
  void run();   // until stop()
  void stop() { running_ = false; }

  static uint64_t now_ns();  // CLOCK_MONOTONIC

 private:
  struct Timer {
    uint64_t deadline;
    uint64_t seq;  // FIFO among equal deadlines
    std::function<void()> fn;
  };
  struct Later {
    bool operator()(const Timer& a, const Timer& b) const {
      return a.deadline != b.deadline ? a.deadline > b.deadline : a.seq > b.seq;
    }
  };
  struct TimerWatcher : Watcher {
    explicit TimerWatcher(EventLoop& l) : loop(l) {}
    void on_events(uint32_t) override { loop.fire_timers(); }
    EventLoop& loop;
  };

  void arm(uint64_t deadline);
  void fire_timers();

  int epfd_ = -1;
  int tfd_ = -1;
  TimerWatcher timer_watcher_{*this};
  std::vector<Timer> timers_;  // a heap ordered by Later
  uint64_t timer_seq_ = 0;
  uint64_t armed_ = 0;  // deadline the timerfd is set to; 0 = none
  std::vector<std::shared_ptr<Watcher>> retired_;
  bool running_ = false;
};
