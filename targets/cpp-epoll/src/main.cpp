// cpp-epoll: seed 001's Apostol architecture in C++17. A master process forks WORKERS
// workers, each a single non-blocking epoll loop with async libpq, and forwards SIGTERM.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <vector>

#include "config.h"
#include "server.h"

namespace {

int run_worker(const Config& cfg) {
  try {
    Worker worker(cfg);
    return worker.run();
  } catch (const std::exception& e) {
    fprintf(stderr, "cpp-epoll: worker %d: %s\n", int(getpid()), e.what());
    return 1;
  }
}

void stop_all(const std::vector<pid_t>& workers) {
  for (pid_t p : workers) kill(p, SIGTERM);
}

}  // namespace

int main() {
  Config cfg;
  std::string err = load_config([](const char* name) -> const char* { return std::getenv(name); }, cfg);
  if (!err.empty()) {
    fprintf(stderr, "cpp-epoll: %s\n", err.c_str());
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  // Blocked before forking: the master waits for them with sigwaitinfo, the workers read
  // them from a signalfd in their epoll loop.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGCHLD);
  sigprocmask(SIG_BLOCK, &signals, nullptr);

  std::vector<pid_t> workers;
  bool stopping = false, failed = false;
  for (int i = 0; i < cfg.workers; i++) {
    pid_t pid = fork();
    if (pid == 0) {
      fflush(nullptr);
      _exit(run_worker(cfg));
    }
    if (pid < 0) {
      fprintf(stderr, "cpp-epoll: fork: %s\n", strerror(errno));
      stopping = failed = true;
      stop_all(workers);
      break;
    }
    workers.push_back(pid);
  }

  while (!workers.empty()) {
    siginfo_t info;
    int sig = sigwaitinfo(&signals, &info);
    if (sig == SIGTERM || sig == SIGINT) {
      if (!stopping) stop_all(workers);
      stopping = true;
      continue;
    }
    if (sig != SIGCHLD) continue;
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
      for (size_t i = 0; i < workers.size(); i++)
        if (workers[i] == pid) workers.erase(workers.begin() + long(i));
      bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
      if (!stopping || !clean) {
        // A worker that dies on its own takes the server down: the supervisor (kubelet, the
        // local runner) restarts it whole rather than running with fewer workers than asked.
        if (!stopping)
          fprintf(stderr, "cpp-epoll: worker %d stopped unexpectedly (%s %d); stopping\n", int(pid),
                  WIFEXITED(status) ? "exit" : "signal", WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
        failed = true;
        if (!stopping) stop_all(workers);
        stopping = true;
      }
    }
  }
  return failed ? 1 : 0;
}
