// sweep::path_within: whether one dotted sweep key or JSON pointer lies under another (a key inside a varied key
// would be set twice per point).
#include <gtest/gtest.h>

#include "llmsim/sweep/definition.hpp"

namespace llmsim::sweep {
namespace {

TEST(PathWithin, AWholeKeyLiesUnderItsPrefixButNotUnderAPrefixOfItsName) {
  EXPECT_TRUE(path_within("training.recompute", "training", '.'));
  EXPECT_TRUE(path_within("training", "training", '.'));
  EXPECT_FALSE(path_within("training", "training.recompute", '.'));
  EXPECT_FALSE(path_within("parallelism.tpx", "parallelism.tp", '.'));
  EXPECT_TRUE(path_within("/hardware/preset", "/hardware", '/'));
  EXPECT_FALSE(path_within("/hardware_x/preset", "/hardware", '/'));
  EXPECT_FALSE(path_within("/hardware/preset", "/hardware/preset/x", '/'));
}

}  // namespace
}  // namespace llmsim::sweep
