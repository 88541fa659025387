//===- StdlibTest.cpp - The embedded standard library ---------------------===//
#include "stdlib/Stdlib.h"

#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

using namespace kuiper;

TEST(Stdlib, FindsEmbeddedModules) {
  std::string path, text;
  ASSERT_TRUE(lookupStdlib("std.activation", path, text));
  EXPECT_EQ(path, "<stdlib>/std/activation.kp");
  EXPECT_NE(text.find("fn sigmoid(x: f32) -> f32"), std::string::npos);
  ASSERT_TRUE(lookupStdlib("std.math", path, text));
  EXPECT_NE(text.find("fn lerp("), std::string::npos);
}

TEST(Stdlib, RejectsUnknownModules) {
  std::string path, text;
  EXPECT_FALSE(lookupStdlib("std.nope", path, text));
  EXPECT_FALSE(lookupStdlib("activation", path, text));
}

TEST(Stdlib, EmbeddedTextMatchesTheSource) {
  for (const auto &name : stdlibModules()) {
    std::string path, text;
    ASSERT_TRUE(lookupStdlib(name, path, text));
    std::ifstream in(std::string(KUIPER_SOURCE_DIR) + "/stdlib/std/" + name.substr(4) + ".kp");
    std::stringstream ss;
    ss << in.rdbuf();
    EXPECT_EQ(text, ss.str()) << name;
  }
}
