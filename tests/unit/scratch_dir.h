// A fresh directory under /tmp for one unit test, removed with everything in it when the
// test ends: the shape each file-touching unit test otherwise repeats in SetUp and TearDown.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace cordon::testing {

class ScratchDir {
 public:
  explicit ScratchDir(const std::string& prefix = "/tmp/cordon-unit-") {
    std::string pattern = prefix + "XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp " + pattern);
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace cordon::testing
