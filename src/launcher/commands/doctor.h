// `cordon doctor`: is this host able to enforce what cordon promises?
#pragma once

#include <string>
#include <vector>

#include "launcher/inputs/config.h"

namespace cordon {

enum class DoctorStatus { Pass, Warn, Fail };

struct DoctorRow {
  DoctorStatus status;
  std::string name;
  std::string detail;
  std::string fix;  // how to fix a FAIL or WARN
};

std::vector<DoctorRow> run_doctor(const Config& config);

// Prints the rows; returns the number of FAIL rows.
int print_doctor(const std::vector<DoctorRow>& rows, bool json);

}  // namespace cordon
