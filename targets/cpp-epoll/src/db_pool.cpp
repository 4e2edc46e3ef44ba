#include "db_pool.h"

#include <algorithm>

#include "db_conn.h"
#include "json.h"

namespace {
constexpr size_t kMaxQueue = 10000;        // waiting queries per worker before answering 503
constexpr uint64_t kRetryUs = 1000000;     // reconnect pace while the server is unreachable
}  // namespace

std::string DbResult::error_body() const {
  if (unavailable || !res) return error_json("database unavailable");
  const char* state = PQresultErrorField(res.get(), PG_DIAG_SQLSTATE);
  return error_json(std::string("database error (SQLSTATE ") + (state ? state : "unknown") + ")");
}

DbPool::DbPool(EventLoop& loop, std::string conninfo, int min, int max)
    : loop_(loop), conninfo_(std::move(conninfo)), min_(min), max_(max) {}

DbPool::~DbPool() {
  for (auto& c : conns_) c->close();
}

void DbPool::start() { grow(); }

void DbPool::query(const char* sql, std::vector<std::string> params, DbCallback cb) {
  if (queue_.size() >= kMaxQueue) {
    DbResult r;
    r.unavailable = true;
    return cb(std::move(r));
  }
  queue_.push_back(Job{sql, std::move(params), std::move(cb)});
  dispatch();
}

void DbPool::dispatch() {
  while (!queue_.empty() && !idle_.empty()) {
    DbConn* c = idle_.back();
    idle_.pop_back();
    if (!c->send(queue_.front())) {  // the job stays queued for another connection
      c->close();
      lost(c, false);
      continue;
    }
    queue_.pop_front();
  }
  grow();
}

// Opens connections: up to the minimum, and more (up to the maximum) while queries wait for
// a connection that is not even being opened yet.
void DbPool::grow() {
  while (int(conns_.size()) < max_ &&
         (int(conns_.size()) < min_ || size_t(connecting_) < queue_.size())) {
    PGconn* pg = PQconnectStart(conninfo_.c_str());
    if (pg == nullptr) return;  // out of memory: try again on the next query
    auto c = std::make_shared<DbConn>(*this, pg);
    conns_.push_back(c);
    connecting_++;
    if (PQstatus(pg) == CONNECTION_BAD) {
      c->close();
      lost(c.get(), true);
      return;
    }
    c->on_events(0);  // PQconnectStart's contract: poll once as if the socket were writable
    // Refused at once (a closed port on loopback): stop here. Opening the next one now would
    // fail the same way, forever; the retry timer that lost() set comes back later.
    if (c->closed()) return;
  }
}

void DbPool::connected(DbConn* c) {
  connecting_--;
  idle(c);
}

void DbPool::idle(DbConn* c) {
  idle_.push_back(c);
  if (!queue_.empty()) dispatch();
}

void DbPool::lost(DbConn* c, bool was_connecting) {
  auto it = std::find_if(conns_.begin(), conns_.end(), [c](const auto& p) { return p.get() == c; });
  if (it == conns_.end()) return;
  std::shared_ptr<DbConn> keep = *it;  // an event for it may still be in this epoll batch
  conns_.erase(it);
  idle_.erase(std::remove(idle_.begin(), idle_.end(), c), idle_.end());
  loop_.retire(keep);
  if (was_connecting) connecting_--;

  if (conns_.empty()) {
    // Nothing can serve the waiting queries now: fail them instead of letting them hang.
    std::deque<Job> waiting;
    waiting.swap(queue_);
    for (auto& job : waiting) {
      DbResult r;
      r.unavailable = true;
      job.cb(std::move(r));
    }
  }
  // Reconnect at a steady pace, not from here: a server that refuses every connection would
  // otherwise be hammered in a loop.
  if (int(conns_.size()) < min_ && !retry_scheduled_) {
    retry_scheduled_ = true;
    loop_.after_us(kRetryUs, [this] {
      retry_scheduled_ = false;
      grow();
    });
  }
}
