#include "llmsim/util/interrupt.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <vector>

namespace llmsim::util {

namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
constexpr int kMaxDepth = 8;          // directory levels below a registered path (a regress work tree has 3)
constexpr int kReapTicks = 500;       // x 10 ms: a child's time to end after SIGTERM before SIGKILL
constexpr char kLine[] = "interrupted: no output written\n";

struct Registry {
  std::vector<std::string> paths;
  std::vector<pid_t> children;
  bool recorded = false;               // the dispositions at start are known
  bool ignored[std::size(kSignals)]{};  // ignored at start: left ignored
  bool helper = false;                 // a forked helper: default actions
};

/// Never destroyed: the handler may run while static destructors do.
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

sigset_t interrupt_set() {
  sigset_t s;
  sigemptyset(&s);
  for (int sig : kSignals) sigaddset(&s, sig);
  return s;
}

// --- async-signal-safe from here to on_interrupt ---

/// Removes `name` (relative to the directory `dir`, or absolute) and everything below it, down to `depth`
/// levels. A directory is read again if entries removed while reading it hid others.
void remove_tree(int dir, const char* name, int depth) {
  if (::unlinkat(dir, name, 0) == 0 || errno == ENOENT || depth == 0) return;
  const int fd = ::openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  for (int pass = 0; pass < 3; ++pass) {
    alignas(dirent64) char buf[1024];
    for (long n; (n = ::getdents64(fd, buf, sizeof buf)) > 0;)
      for (long off = 0; off < n;) {
        const auto* e = reinterpret_cast<const dirent64*>(buf + off);
        off += e->d_reclen;
        if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) remove_tree(fd, e->d_name, depth - 1);
      }
    if (::unlinkat(dir, name, AT_REMOVEDIR) == 0 || errno != ENOTEMPTY) break;
    ::lseek(fd, 0, SEEK_SET);
  }
  ::close(fd);
}

/// Waits for `pid` to end (it was sent SIGTERM), then SIGKILLs it.
void reap(pid_t pid) {
  const timespec tick{0, 10 * 1000 * 1000};
  for (int i = 0; i < kReapTicks; ++i) {
    const pid_t r = ::waitpid(pid, nullptr, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR)) return;  // ended, or already reaped by the interrupted code
    ::nanosleep(&tick, nullptr);
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
}

void say(const char* text, size_t n) {
  for (ssize_t w; n > 0 && (w = ::write(STDERR_FILENO, text, n)) > 0; text += w, n -= static_cast<size_t>(w)) {
  }
}

void on_interrupt(int sig) {
  const Registry& r = registry();
  for (pid_t p : r.children) ::kill(p, SIGTERM);
  for (pid_t p : r.children) reap(p);
  for (const auto& p : r.paths) remove_tree(AT_FDCWD, p.c_str(), kMaxDepth);
  termios t;
  if (::tcgetattr(STDERR_FILENO, &t) == 0) say("\n", 1);  // on a terminal, end the progress line or echoed ^C
  say(kLine, sizeof kLine - 1);
  ::_exit(128 + sig);
}

// --- end of the async-signal-safe part ---

template <class T>
void erase_one(std::vector<T>& v, const T& x) {
  const auto it = std::find(v.begin(), v.end(), x);
  if (it != v.end()) v.erase(it);
}

}  // namespace

void install_interrupt_handler() {
  DeferInterrupts defer;
  Registry& r = registry();
  for (size_t i = 0; i < std::size(kSignals); ++i) {
    if (!r.recorded) {
      struct sigaction now {};
      ::sigaction(kSignals[i], nullptr, &now);
      r.ignored[i] = now.sa_handler == SIG_IGN;
    }
    struct sigaction sa {};
    sa.sa_handler = r.ignored[i] ? SIG_IGN : r.helper ? SIG_DFL : on_interrupt;
    sa.sa_mask = interrupt_set();  // a second signal waits (forever: the handler ends the process)
    ::sigaction(kSignals[i], &sa, nullptr);
  }
  r.recorded = true;
}

DeferInterrupts::DeferInterrupts() {
  const sigset_t s = interrupt_set();
  ::pthread_sigmask(SIG_BLOCK, &s, &previous_);
}

DeferInterrupts::~DeferInterrupts() { ::pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }

RemoveOnInterrupt::RemoveOnInterrupt(std::string path) : path_(std::move(path)) {
  if (path_.empty()) return;
  DeferInterrupts defer;
  registry().paths.push_back(path_);
}

RemoveOnInterrupt::RemoveOnInterrupt(RemoveOnInterrupt&& other) noexcept : path_(std::move(other.path_)) {
  other.path_.clear();
}

RemoveOnInterrupt::~RemoveOnInterrupt() {
  if (path_.empty()) return;
  DeferInterrupts defer;
  erase_one(registry().paths, path_);
}

void track_child(pid_t pid) {
  DeferInterrupts defer;
  registry().children.push_back(pid);
}

void forget_child(pid_t pid) {
  DeferInterrupts defer;
  erase_one(registry().children, pid);
}

void become_forked_helper() {
  Registry& r = registry();
  r.paths.clear();
  r.children.clear();
  r.helper = true;
  install_interrupt_handler();
}

}  // namespace llmsim::util
