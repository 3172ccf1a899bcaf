// What a program says its version is, as the manifest, doctor and --version record it: a
// program that prints "unknown version" (Debian 12's pasta) is named by its package's version,
// and a --version that fails is not an answer (the manifest's cache keeps only answers).
#include "launcher/record/host_tools.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "scratch_dir.h"

namespace cordon {
namespace {

namespace fs = std::filesystem;

std::string script(const std::string& dir, const std::string& name, const std::string& body) {
  const std::string path = dir + "/" + name;
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  ::chmod(path.c_str(), 0755);
  return path;
}

TEST(HostTools, AnUnknownVersionIsNamedByItsPackageAndAFailureIsNoAnswer) {
  testing::ScratchDir scratch("/tmp/cordon-host-tools-");
  const std::string& dir = scratch.path();
  const ToolVersion plain = tool_version(script(dir, "plain", "echo 'plain 1.2'; echo more"), "plain", "bash");
  EXPECT_EQ(plain.text, "plain 1.2");
  EXPECT_TRUE(plain.answered);
  // bash is installed on every Debian system: dpkg-query knows its version.
  const ToolVersion unknown = tool_version(script(dir, "pasta", "echo 'pasta unknown version'"), "pasta", "bash");
  EXPECT_EQ(unknown.text.rfind("package bash ", 0), 0U) << unknown.text;
  EXPECT_NE(unknown.text.find("; pasta itself prints no version"), std::string::npos) << unknown.text;
  // A package dpkg does not know leaves the program's own line.
  const ToolVersion nopkg =
      tool_version(script(dir, "pasta2", "echo 'pasta unknown version'"), "pasta", "cordon-no-such-package");
  EXPECT_EQ(nopkg.text, "pasta unknown version");
  const ToolVersion failed = tool_version(script(dir, "broken", "echo 'oops' >&2; exit 1"), "broken", "bash");
  EXPECT_FALSE(failed.answered);
}

}  // namespace
}  // namespace cordon
