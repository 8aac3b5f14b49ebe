#pragma once
// Interruption: on SIGINT, SIGTERM or SIGHUP the process stops its child processes (SIGTERM, SIGKILL after 5 s;
// each is reaped), removes its partial outputs (files or directory trees), prints the one line
// "interrupted: no output written" on stderr and exits 128 + the signal (130, 143, 129).
//
// The handler does all of it itself, on whatever the main thread was doing (a SimGrid simulation included),
// and never returns; it uses only async-signal-safe calls (kill, waitpid, openat, getdents64, unlinkat,
// write, _exit) on what the registry below holds. The registry is changed only with the signals blocked, so
// the handler never sees it half-changed. That relies on the handler running on the main thread, the one that
// changes the registry: SimGrid's default contexts run on it, and any other thread must be started inside a
// DeferInterrupts scope so that it inherits the blocked signals (util::ProgressLine does). A signal ignored
// when the process started (a background job of a non-interactive shell) stays ignored.
#include <signal.h>

#include <string>

namespace llmsim::util {

/// Installs the handler. Idempotent; make_engine calls it again because SimGrid's engine replaces the SIGINT
/// handler with its own (exit 1). In a forked helper (fork_child) it sets the default actions instead.
void install_interrupt_handler();

/// Blocks the interrupt signals while it lives: one arriving meanwhile is handled when the scope ends. For
/// short steps that must not be cut in two (the renames of an output's commit, a child's start and its
/// registration).
class DeferInterrupts {
 public:
  DeferInterrupts();
  ~DeferInterrupts();
  DeferInterrupts(const DeferInterrupts&) = delete;
  DeferInterrupts& operator=(const DeferInterrupts&) = delete;
  /// The signal mask before the scope (what a child started inside it should get).
  const sigset_t& previous_mask() const { return previous_; }

 private:
  sigset_t previous_;
};

/// While it lives, `path` (a file or a directory tree, absolute or relative to the working directory) is
/// removed on an interrupt, after the children have been reaped. Movable; a moved-from object holds nothing.
class RemoveOnInterrupt {
 public:
  explicit RemoveOnInterrupt(std::string path);
  ~RemoveOnInterrupt();
  RemoveOnInterrupt(RemoveOnInterrupt&& other) noexcept;
  RemoveOnInterrupt& operator=(RemoveOnInterrupt&&) = delete;
  RemoveOnInterrupt(const RemoveOnInterrupt&) = delete;
  RemoveOnInterrupt& operator=(const RemoveOnInterrupt&) = delete;

 private:
  std::string path_;
};

/// Child processes an interrupt stops and reaps: util/process.hpp registers each child it starts (inside a
/// DeferInterrupts scope, so no interrupt falls between the start and the registration) and forgets it when
/// it has reaped it.
void track_child(pid_t pid);
void forget_child(pid_t pid);

/// In a child just forked from this process (signals still blocked): forgets the parent's registrations and
/// makes the interrupt signals take their default action (a forked helper writes no files; it dies with its
/// parent, see fork_child).
void become_forked_helper();

}  // namespace llmsim::util
