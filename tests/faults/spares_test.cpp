// Spare nodes (faults/failure_process.hpp, with_spares): a failure finding a free spare lasts only the
// replacement time; the spare is taken until the failed node is repaired and joins the pool.
#include <gtest/gtest.h>

#include "llmsim/faults/failure_process.hpp"

using llmsim::faults::Failure;

TEST(Spares, AFreeSpareShortensAnOutageAndIsTakenUntilTheRepair) {
  const double h = 3600;
  const std::vector<Failure> failures = {{0 * h, 0, 4 * h}, {1 * h, 1, 4 * h}, {5 * h, 2, 4 * h}, {5.5 * h, 3, 0.1 * h}};
  const auto out = llmsim::faults::with_spares(failures, 1, 0.25 * h);
  EXPECT_EQ(out[0].duration, 0.25 * h);  // the spare replaces node 0; it is busy until node 0 is back at 4 h
  EXPECT_EQ(out[1].duration, 4 * h);     // no spare free at 1 h: wait for the repair
  EXPECT_EQ(out[2].duration, 0.25 * h);  // node 0, repaired at 4 h, is the spare at 5 h
  EXPECT_EQ(out[3].duration, 0.1 * h);   // a repair sooner than a replacement keeps its own time
  EXPECT_EQ(llmsim::faults::with_spares(failures, 0, 0.25 * h)[0].duration, 4 * h);
}
