// `cordon --version` as a bug report pastes it: one fact a line, every path and version
// printable, and where cordon looked when it found nothing.
#include "launcher/commands/version.h"

#include <gtest/gtest.h>

#include "launcher/inputs/paths.h"

namespace cordon {
namespace {

VersionFacts sample() {
  return {"1.2.3",
          "0123abcd",
          false,
          {{"bwrap", "/usr/bin/bwrap", "bubblewrap 0.8.0"}, {"pasta", "/usr/bin/pasta", "pasta 2024_01_01"}}};
}

TEST(VersionReport, OneFactALine) {
  EXPECT_EQ(version_report(sample()),
            "cordon 1.2.3\n"
            "commit: 0123abcd\n"
            "bwrap: /usr/bin/bwrap (bubblewrap 0.8.0)\n"
            "pasta: /usr/bin/pasta (pasta 2024_01_01)\n");
}

TEST(VersionReport, AMissingToolNamesWhereCordonLooked) {
  VersionFacts facts = sample();
  facts.tools[1].path.clear();
  facts.tools[1].version.clear();
  const std::string report = version_report(facts);
  EXPECT_NE(report.find("\npasta: none found (looked in /usr/bin, /usr/local/bin, /bin, /usr/sbin, /sbin)\n"),
            std::string::npos)
      << report;
  // The list is the one find_system_binary searches, not a copy.
  EXPECT_NE(report.find("(looked in " + system_binary_dirs_text() + ")"), std::string::npos);
}

TEST(VersionReport, AnUnknownOrModifiedCommitIsSaid) {
  VersionFacts facts = sample();
  facts.commit = "unknown";
  EXPECT_NE(version_report(facts).find("\ncommit: unknown (not built from a git checkout)\n"), std::string::npos);
  facts = sample();
  facts.commit_modified = true;
  EXPECT_NE(version_report(facts).find("\ncommit: 0123abcd (with uncommitted changes)\n"), std::string::npos);
}

TEST(VersionReport, AToolThatPrintsNoVersionIsSaid) {
  VersionFacts facts = sample();
  facts.tools[0].version.clear();
  EXPECT_NE(version_report(facts).find("\nbwrap: /usr/bin/bwrap (it printed no version)\n"), std::string::npos);
}

// A path or a version line is data: a newline cannot start a line, an ESC cannot reach the terminal.
TEST(VersionReport, PathsAndVersionsAreEscaped) {
  VersionFacts facts = sample();
  facts.tools[0].path = "/usr/bin/bw\nrap";
  facts.tools[0].version = "bubblewrap \x1b]52;c;aGk=\x07";
  const std::string report = version_report(facts);
  EXPECT_NE(report.find("bwrap: /usr/bin/bw\\x0arap (bubblewrap \\x1b]52;c;aGk=\\x07)\n"), std::string::npos) << report;
  EXPECT_EQ(report.find('\x1b'), std::string::npos);
  int lines = 0;
  for (char c : report) lines += c == '\n';
  EXPECT_EQ(lines, 4);
}

}  // namespace
}  // namespace cordon
