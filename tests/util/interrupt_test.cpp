// The interrupt handler in-process (gtest death tests): it removes a registered directory tree (3 levels, more
// entries than one directory read returns) and exits 128 + the signal with its one line; a path no longer
// registered stays; a signal inside DeferInterrupts is handled when the scope ends.
#include "llmsim/util/interrupt.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

namespace llmsim::util {
namespace {

namespace fs = std::filesystem;

class InterruptHandler : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/llmsim-interrupt-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    fs::create_directories(tree() / "a" / "b" / "c");
    for (int i = 0; i < 300; ++i) std::ofstream(tree() / ("file-with-a-long-name-" + std::to_string(i))) << i;
    std::ofstream(tree() / "a" / "b" / "c" / "deep") << "x";
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path tree() const { return dir_ / "tree"; }

  fs::path dir_;
};

TEST_F(InterruptHandler, RemovesARegisteredTreeAndExitsWithTheSignal) {
  EXPECT_EXIT(
      {
        install_interrupt_handler();
        const RemoveOnInterrupt partial(tree().string());
        ::raise(SIGTERM);
      },
      ::testing::ExitedWithCode(143), "^interrupted: no output written\n$");
  EXPECT_FALSE(fs::exists(tree()));
  EXPECT_TRUE(fs::exists(dir_)) << "the handler removed more than the registered path";
}

TEST_F(InterruptHandler, KeepsAPathNoLongerRegistered) {
  EXPECT_EXIT(
      {
        install_interrupt_handler();
        { const RemoveOnInterrupt done(tree().string()); }
        ::raise(SIGINT);
      },
      ::testing::ExitedWithCode(130), "interrupted: no output written");
  EXPECT_TRUE(fs::exists(tree() / "a" / "b" / "c" / "deep"));
}

TEST_F(InterruptHandler, DefersASignalToTheEndOfTheScope) {
  const fs::path after = dir_ / "written-after-the-signal";
  EXPECT_EXIT(
      {
        install_interrupt_handler();
        const RemoveOnInterrupt partial(tree().string());
        {
          DeferInterrupts defer;
          ::raise(SIGINT);
          std::ofstream(after) << "x";
        }
        ::_exit(0);
      },
      ::testing::ExitedWithCode(130), "interrupted: no output written");
  EXPECT_TRUE(fs::exists(after));
  EXPECT_FALSE(fs::exists(tree()));
}

}  // namespace
}  // namespace llmsim::util
