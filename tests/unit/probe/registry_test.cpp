// The probe registry: ids are stable two-digit numbers, unique and in order; names are
// kebab-case and unique; every probe belongs to a known family and documents itself.
#include <gtest/gtest.h>

#include <cctype>
#include <set>
#include <string>

#include "probe/probe.h"

namespace cordon::probe {
namespace {

TEST(ProbeRegistry, IdsAreTwoDigitsUniqueAndAscending) {
  std::string previous;
  for (const auto& p : all_probes()) {
    const std::string id = p.id;
    ASSERT_EQ(id.size(), 2u) << id;
    EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(id[0])) && std::isdigit(static_cast<unsigned char>(id[1])))
        << id;
    EXPECT_LT(previous, id) << "ids out of order or repeated";
    previous = id;
  }
  EXPECT_GE(all_probes().size(), 30u);
}

TEST(ProbeRegistry, NamesAreKebabCaseAndUnique) {
  std::set<std::string> names;
  for (const auto& p : all_probes()) {
    const std::string name = p.name;
    EXPECT_TRUE(names.insert(name).second) << "duplicate name " << name;
    ASSERT_FALSE(name.empty());
    EXPECT_NE(name.front(), '-');
    EXPECT_NE(name.back(), '-');
    for (char c : name)
      EXPECT_TRUE(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) ||
                  c == '-')
          << name;
  }
}

TEST(ProbeRegistry, FamiliesAreTheDocumentedOnesAndEachProbeSaysWhatItTries) {
  const std::set<std::string> families = {"egress",   "filesystem", "privilege",  "process",
                                          "terminal", "kernel",     "credentials"};
  std::set<std::string> seen;
  for (const auto& p : all_probes()) {
    EXPECT_TRUE(families.count(p.family)) << p.id << " " << p.family;
    seen.insert(p.family);
    EXPECT_NE(std::string(p.attempts), "") << p.id;
    EXPECT_NE(std::string(p.blocked), "") << p.id;
    EXPECT_NE(p.run, nullptr) << p.id;
  }
  EXPECT_EQ(seen, families);
}

}  // namespace
}  // namespace cordon::probe
