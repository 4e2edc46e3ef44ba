#include "db_conn.h"

#include <sys/epoll.h>

DbConn::DbConn(DbPool& pool, PGconn* pg) : pool_(pool), pg_(pg) {}

DbConn::~DbConn() { close(); }

void DbConn::close() {
  if (state_ == State::kClosed) return;
  state_ = State::kClosed;
  if (fd_ >= 0) pool_.loop_.remove(fd_);  // before PQfinish closes the socket
  fd_ = -1;
  PQfinish(pg_);
  pg_ = nullptr;
}

// Registers interest; libpq may replace the socket while connecting (another host or address).
void DbConn::watch(uint32_t events) {
  int fd = PQsocket(pg_);
  if (fd != fd_) {
    if (fd_ >= 0) pool_.loop_.remove(fd_);
    fd_ = fd;
    events_ = events;
    if (fd_ >= 0) pool_.loop_.add(fd_, this, events);
  } else if (events != events_) {
    events_ = events;
    pool_.loop_.modify(fd_, this, events);
  }
}

void DbConn::on_events(uint32_t events) {
  switch (state_) {
    case State::kConnecting:
      return poll_connect();
    case State::kBusy:
      if (events & EPOLLOUT) flush_output();
      if (state_ == State::kBusy && (events & (EPOLLIN | EPOLLERR | EPOLLHUP))) read_results();
      return;
    case State::kIdle:
      // Nothing was asked: this is a notice or the server closing the connection.
      if (!PQconsumeInput(pg_) || PQstatus(pg_) != CONNECTION_OK) return fail();
      while (PGnotify* n = PQnotifies(pg_)) PQfreemem(n);
      return;
    case State::kClosed:
      return;
  }
}

// Advances the non-blocking connect; the first call comes from DbPool right after PQconnectStart.
void DbConn::poll_connect() {
  switch (PQconnectPoll(pg_)) {
    case PGRES_POLLING_READING:
      return watch(EPOLLIN);
    case PGRES_POLLING_WRITING:
      return watch(EPOLLOUT);
    case PGRES_POLLING_OK:
      if (PQsetnonblocking(pg_, 1) != 0) return fail();
      state_ = State::kIdle;
      watch(EPOLLIN);
      return pool_.connected(this);
    default:
      return fail();
  }
}

bool DbConn::send(DbPool::Job& job) {
  std::vector<const char*> values;
  values.reserve(job.params.size());
  for (const auto& p : job.params) values.push_back(p.c_str());
  // Text parameters and results, unnamed statement: nothing is prepared, so this also works
  // behind PgBouncer in transaction mode (seed 001's finding for libpq).
  if (!PQsendQueryParams(pg_, job.sql, int(values.size()), nullptr, values.data(), nullptr, nullptr, 0)) return false;
  job_ = std::move(job);
  state_ = State::kBusy;
  flush_output();
  return true;
}

void DbConn::flush_output() {
  int r = PQflush(pg_);
  if (r < 0) return fail();
  watch(r == 1 ? EPOLLIN | EPOLLOUT : EPOLLIN);  // 1: more to send when writable
}

void DbConn::read_results() {
  if (!PQconsumeInput(pg_)) return fail();
  while (!PQisBusy(pg_)) {
    PGresult* r = PQgetResult(pg_);
    if (r == nullptr) {  // the query is complete
      DbCallback cb = std::move(job_.cb);
      DbResult result = std::move(result_);
      result_ = DbResult{};
      job_ = DbPool::Job{};
      state_ = State::kIdle;
      pool_.idle(this);  // first: the callback may queue another query
      cb(std::move(result));
      return;
    }
    if (!result_.res) {
      result_.res.reset(r);  // one statement: the first result is the answer
    } else {
      PQclear(r);
    }
  }
}

// The connection is unusable: its query (if any) fails as unavailable, and the pool drops it.
void DbConn::fail() {
  bool was_busy = state_ == State::kBusy;
  bool was_connecting = state_ == State::kConnecting;
  DbCallback cb = std::move(job_.cb);
  close();
  pool_.lost(this, was_connecting);
  if (was_busy && cb) {
    DbResult r;
    r.unavailable = true;
    cb(std::move(r));
  }
}
